// How the one Prometheus client proves who it is to a secured Prometheus (Thanos, Mimir, the OpenShift
// querier, a Prometheus with --web.config.file): a bearer token file, basic auth with a password file,
// extra headers (X-Scope-OrgID), and TLS with a CA bundle, a client certificate, or, when asked,
// no verification. Secrets come from files so they can rotate: a token file is re-read when it is older
// than `rereadMs` (projected service-account tokens rotate hourly; client-go's cached token file source
// re-reads on a similar schedule). Nothing here ever puts a secret into an error message.
import { readFile } from 'node:fs/promises';

export interface PrometheusCredentials {
  /** A file holding a bearer token (whitespace trimmed), sent as `Authorization: Bearer`. */
  bearerTokenFile?: string;
  /** Basic auth: the user name, with the password read from passwordFile. */
  username?: string;
  passwordFile?: string;
  /** Extra request headers, e.g. { 'X-Scope-OrgID': 'team-a' }. */
  headers?: Readonly<Record<string, string>>;
  /** PEM CA bundle that verifies Prometheus' certificate (otherwise the system roots). */
  caFile?: string;
  /** PEM client certificate and key for mutual TLS. */
  certFile?: string;
  keyFile?: string;
  /** Skip verification of Prometheus' certificate (never the default; logged loudly at start). */
  insecureSkipVerify?: boolean;
}

/** TLS material, read once at start (a rotated CA or client certificate needs a restart, as in
 *  prometheus-adapter). */
export interface PrometheusTls {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
}

export class CredentialsError extends Error {
  override name = 'CredentialsError';
}

async function readSecret(path: string, what: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (e) {
    // The path is configuration, not a secret; the content never appears.
    throw new CredentialsError(`cannot read the Prometheus ${what} file ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

export async function loadPrometheusTls(c: PrometheusCredentials): Promise<PrometheusTls | undefined> {
  if (!c.caFile && !c.certFile && !c.keyFile && !c.insecureSkipVerify) return undefined;
  if (!!c.certFile !== !!c.keyFile) throw new CredentialsError('a Prometheus client certificate needs both --prometheus-client-cert and --prometheus-client-key');
  return {
    ...(c.caFile ? { ca: await readSecret(c.caFile, 'CA') } : {}),
    ...(c.certFile ? { cert: await readSecret(c.certFile, 'client certificate') } : {}),
    ...(c.keyFile ? { key: await readSecret(c.keyFile, 'client key') } : {}),
    rejectUnauthorized: !c.insecureSkipVerify,
  };
}

/** The headers every request carries, with file-backed secrets re-read when stale. */
export class RequestHeaders {
  private cached: { headers: Record<string, string>; readAtMs: number } | undefined;

  constructor(
    private readonly c: PrometheusCredentials,
    private readonly now: () => number,
    private readonly rereadMs = 60_000,
  ) {
    if (c.bearerTokenFile && (c.username || c.passwordFile)) throw new CredentialsError('choose one of a Prometheus bearer token and basic auth, not both');
    if (!!c.username !== !!c.passwordFile) throw new CredentialsError('Prometheus basic auth needs both --prometheus-username and --prometheus-password-file');
  }

  async get(): Promise<Record<string, string>> {
    const nowMs = this.now();
    if (this.cached && nowMs - this.cached.readAtMs < this.rereadMs) return this.cached.headers;
    const headers: Record<string, string> = { ...this.c.headers };
    if (this.c.bearerTokenFile) headers['Authorization'] = `Bearer ${await readSecret(this.c.bearerTokenFile, 'bearer token')}`;
    if (this.c.username && this.c.passwordFile) {
      const password = await readSecret(this.c.passwordFile, 'password');
      headers['Authorization'] = `Basic ${Buffer.from(`${this.c.username}:${password}`).toString('base64')}`;
    }
    this.cached = { headers, readAtMs: nowMs };
    return headers;
  }
}

/** `Name=value,Other=value` (the --prometheus-header syntax) as a header map; throws on a malformed pair. */
export function parseHeaderList(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!text) return out;
  for (const pair of text.split(',')) {
    const i = pair.indexOf('=');
    const name = pair.slice(0, i).trim();
    if (i <= 0 || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) throw new CredentialsError(`--prometheus-header: "${pair}" is not Name=value`);
    if (/^(authorization|content-type|content-length|host)$/i.test(name)) throw new CredentialsError(`--prometheus-header: ${name} is set by the client itself`);
    out[name] = pair.slice(i + 1).trim();
  }
  return out;
}
