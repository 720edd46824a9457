// Writing an answer on the metrics API port: one place for the headers every response carries.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse, ServerHttp2Stream } from 'node:http2';

/** A request on the metrics API port: HTTP/2 (what kube-apiserver's proxy negotiates) or HTTP/1.1. */
export type ApiRequest = IncomingMessage | Http2ServerRequest;
/** Its response, of the same protocol. */
export type ApiResponse = ServerResponse | Http2ServerResponse;

/**
 * What stays the same for every request of one client connection: the HTTP/2 session (its streams each
 * get a socket proxy of their own), else the TLS socket. Per-connection state (the verified peer
 * certificate) is keyed by it.
 */
export function connectionOf(req: ApiRequest): object {
  return http2StreamOf(req)?.session ?? req.socket;
}

/** The HTTP/2 stream a request came on; undefined for HTTP/1.1. */
export function http2StreamOf(req: ApiRequest): ServerHttp2Stream | undefined {
  return 'stream' in req ? req.stream : undefined;
}

export function send(res: ApiResponse, req: ApiRequest, code: number, body: unknown, contentType = 'application/json'): void {
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
