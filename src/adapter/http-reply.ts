// Writing an answer on the metrics API port: one place for the headers every response carries.
import type { IncomingMessage, ServerResponse } from 'node:http';

export function send(res: ServerResponse, req: IncomingMessage, code: number, body: unknown, contentType = 'application/json'): void {
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  if (req.method === 'HEAD') res.end();
  else res.end(text);
}

/** The query string of a request URL. */
export function queryOf(url: string): URLSearchParams {
  const q = url.indexOf('?');
  return new URLSearchParams(q >= 0 ? url.slice(q + 1) : '');
}
