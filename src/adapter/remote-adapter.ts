// --remote-adapter: metrics we do not own go to an existing adapter (e.g. prometheus-adapter), since only one
// server can own an APIService (docs/crane-behaviour.md §C.1, docs/metrics-api.md §5.7). The caller has
// already been authorized by us for this exact request; we call the remote with our own credentials (a
// bearer token file, normally the ServiceAccount's), never with the caller's identity headers.
import { Agent, request } from 'node:https';
import { readFileSync } from 'node:fs';

export interface RemoteAdapterOptions {
  url: string;
  tokenFile?: string;
  caFile?: string;
  /** Skip verifying the remote's serving certificate (Crane does this). */
  insecure: boolean;
  timeoutMs: number;
}

export interface RemoteResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

export interface RemoteAdapter {
  get(pathAndQuery: string): Promise<RemoteResponse>;
  close(): void;
}

export function createRemoteAdapter(opts: RemoteAdapterOptions): RemoteAdapter {
  const base = new URL(opts.url);
  if (base.protocol !== 'https:') throw new Error(`--remote-adapter must be an https:// URL, got ${opts.url}`);
  const agent = new Agent({
    keepAlive: true,
    rejectUnauthorized: !opts.insecure,
    ...(opts.caFile ? { ca: readFileSync(opts.caFile, 'utf8') } : {}),
  });
  let token: { value: string; readAt: number } | undefined;
  const bearer = (): string | undefined => {
    if (!opts.tokenFile) return undefined;
    // Projected ServiceAccount tokens rotate: re-read at most once a minute.
    if (!token || Date.now() - token.readAt > 60_000) token = { value: readFileSync(opts.tokenFile, 'utf8').trim(), readAt: Date.now() };
    return token.value;
  };
  const prefix = base.pathname.replace(/\/+$/, '');
  return {
    get(pathAndQuery) {
      return new Promise((resolve, reject) => {
        const auth = bearer();
        const req = request(
          {
            agent,
            host: base.hostname,
            port: base.port || 443,
            method: 'GET',
            path: prefix + pathAndQuery,
            headers: { Accept: 'application/json', ...(auth ? { Authorization: `Bearer ${auth}` } : {}) },
            timeout: opts.timeoutMs,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 502, contentType: res.headers['content-type'] ?? 'application/json', body: Buffer.concat(chunks) }));
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error(`remote adapter did not answer within ${opts.timeoutMs}ms`)));
        req.on('error', reject);
        req.end();
      });
    },
    close: () => agent.destroy(),
  };
}
