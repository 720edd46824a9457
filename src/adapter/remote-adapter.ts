// --remote-adapter: metrics we do not own go to an existing adapter (e.g. prometheus-adapter), since only one
// server can own an APIService (docs/crane-behaviour.md §C.1, docs/metrics-api.md §5.7). The caller has
// already been authorized by us for this exact request; we call the remote with our own credentials (a
// bearer token file, normally the ServiceAccount's), never with the caller's identity headers.
// Its serving certificate is verified (against --remote-adapter-ca-file, else the system roots) unless
// --remote-adapter-insecure is asked for, and what it sends back is bounded in size and in total time.
import { Agent, request } from 'node:https';
import { readFileSync } from 'node:fs';

export interface RemoteAdapterOptions {
  url: string;
  tokenFile?: string;
  /** PEM bundle the remote's serving certificate must chain to (replaces the system roots). */
  caFile?: string;
  /** Skip verifying the remote's serving certificate (Crane does this; here only when asked for). */
  insecure: boolean;
  /** Deadline for the whole exchange (connect, TLS, headers and body), not an idle timeout. */
  timeoutMs: number;
  /** Largest response body accepted (default REMOTE_MAX_BODY_BYTES). */
  maxBodyBytes?: number;
}

/** 16 MiB: a discovery list or a metric value list of thousands of objects is far smaller. */
export const REMOTE_MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface RemoteResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

export interface RemoteAdapter {
  get(pathAndQuery: string): Promise<RemoteResponse>;
  close(): void;
}

// OpenSSL's chain and name verification failures, as Node reports them in err.code.
const VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_SIGNATURE_FAILURE', 'CERT_UNTRUSTED', 'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID', 'INVALID_CA', 'HOSTNAME_MISMATCH',
]);

function describe(err: Error & { code?: string }, opts: RemoteAdapterOptions): Error {
  if (err.code && VERIFY_CODES.has(err.code)) {
    const against = opts.caFile ? `--remote-adapter-ca-file ${opts.caFile}` : 'the system roots (set --remote-adapter-ca-file)';
    return new Error(`remote adapter certificate verification failed against ${against}: ${err.message}`);
  }
  return err;
}

export function createRemoteAdapter(opts: RemoteAdapterOptions, log?: { warn(obj: object, msg: string): void }): RemoteAdapter {
  const base = new URL(opts.url);
  if (base.protocol !== 'https:') throw new Error(`--remote-adapter must be an https:// URL, got ${opts.url}`);
  const maxBody = opts.maxBodyBytes ?? REMOTE_MAX_BODY_BYTES;
  if (opts.insecure) {
    log?.warn({ url: opts.url }, '--remote-adapter-insecure: the remote adapter\'s certificate is not verified; anyone on the path can answer (and read our token)');
  }
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
        let settled = false;
        const finish = (err: Error | undefined, value?: RemoteResponse) => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          if (err) reject(describe(err, opts));
          else resolve(value as RemoteResponse);
        };
        const auth = bearer();
        const req = request(
          {
            agent,
            host: base.hostname,
            port: base.port || 443,
            method: 'GET',
            path: prefix + pathAndQuery,
            headers: { Accept: 'application/json', ...(auth ? { Authorization: `Bearer ${auth}` } : {}) },
          },
          (res) => {
            const tooBig = () => new Error(`remote adapter response exceeds ${maxBody} bytes`);
            const declared = Number(res.headers['content-length']);
            if (Number.isFinite(declared) && declared > maxBody) {
              abandon(tooBig());
              return;
            }
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (c: Buffer) => {
              size += c.length;
              if (size > maxBody) abandon(tooBig());
              else chunks.push(c);
            });
            res.on('end', () => finish(undefined, { status: res.statusCode ?? 502, contentType: res.headers['content-type'] ?? 'application/json', body: Buffer.concat(chunks) }));
            res.on('error', (e) => finish(e));
            res.on('aborted', () => finish(new Error('remote adapter closed the connection mid-response')));
          },
        );
        // Settle first, then tear the connection down (and out of the keep-alive pool).
        const abandon = (err: Error) => {
          finish(err);
          req.destroy();
        };
        // A total deadline: a remote that trickles one byte a second never resets it.
        const deadline = setTimeout(() => abandon(new Error(`remote adapter did not answer within ${opts.timeoutMs}ms`)), opts.timeoutMs);
        req.on('error', (e) => finish(e));
        req.end();
      });
    },
    close: () => agent.destroy(),
  };
}
