// A minimal HTTPS client for kube-apiserver with client-certificate auth: raw paths (`kubectl get --raw`),
// any verb and content type, JSON in and out. Tests use it for what the typed client makes awkward
// (merge patches on status, aggregated API paths, asserting exact status codes). Like client-go, it retries
// a 429 that carries Retry-After (kube-apiserver's priority-and-fairness "come back later", seen on a loaded
// 2-core machine right after a CRD is established), at most 10 times; every other answer is returned as is.
import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import type { KeyPair } from './certificates.ts';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface RestClient {
  readonly server: string;
  request(method: string, path: string, opts?: { body?: unknown; contentType?: string; headers?: Record<string, string>; timeoutMs?: number }): Promise<RawResponse>;
  get(path: string): Promise<RawResponse>;
  /** GET that throws unless 2xx; returns the parsed body. */
  getJson<T = unknown>(path: string): Promise<T>;
}

/** `caPath` null = do not verify the server (self-signed serving certs, like insecureSkipTLSVerify). */
export function restClient(server: string, caPath: string | null, client?: KeyPair): RestClient {
  const ca = caPath === null ? undefined : readFileSync(caPath);
  const cert = client ? readFileSync(client.certPath) : undefined;
  const key = client ? readFileSync(client.keyPath) : undefined;
  function once(method: string, path: string, opts: { body?: unknown; contentType?: string; headers?: Record<string, string>; timeoutMs?: number }): Promise<RawResponse> {
    const url = new URL(path, server);
    const payload = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          ca,
          rejectUnauthorized: ca !== undefined,
          cert,
          key,
          headers: {
            accept: 'application/json',
            ...(payload !== undefined ? { 'content-type': opts.contentType ?? 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
            ...opts.headers,
          },
          timeout: opts.timeoutMs ?? 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = JSON.parse(body);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timeout`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
  const self: RestClient = {
    server,
    async request(method, path, opts = {}) {
      for (let attempt = 1; ; attempt++) {
        const r = await once(method, path, opts);
        const retryAfter = Number(r.headers['retry-after']);
        if (r.status !== 429 || !Number.isFinite(retryAfter) || attempt >= 10) return r;
        await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(retryAfter, 1), 10) * 1000));
      }
    },
    get(path) {
      return self.request('GET', path);
    },
    async getJson<T>(path: string) {
      const r = await self.get(path);
      if (r.status < 200 || r.status >= 300) throw new Error(`GET ${path}: ${r.status} ${r.body.slice(0, 500)}`);
      return r.json as T;
    },
  };
  return self;
}
