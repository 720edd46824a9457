// Helpers of the secured-Prometheus e2e: secrets made at run time (so none is ever committed),
// the bcrypt hash Prometheus' web config wants for a basic-auth password, a bearer-token reverse proxy
// (Prometheus 2.42's --web.config.file has basic auth but no bearer tokens; Thanos, Mimir and the OpenShift
// querier sit behind such a proxy), and the scans that show no secret went where it should not.
import { execFileSync } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { KeyedCert } from '../../src/adapter/cert-factory.ts';

/** A fresh secret, e.g. `e2e-token-<24 random base64url chars>`; the prefix only helps reading a failure. */
export function randomSecret(prefix: string): string {
  return `${prefix}-${randomBytes(18).toString('base64url')}`;
}

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * bcrypt (cost 10) of `password` through the system crypt(3), called from perl (perl-base is essential on
 * Debian, and Debian's libxcrypt implements bcrypt): Node has no bcrypt. The password goes on stdin, not
 * argv. Prometheus' exporter-toolkit checks it with golang.org/x/crypto/bcrypt, which reads `$2b$`.
 */
export function bcryptHash(password: string): string {
  const r = randomBytes(22);
  // 22 salt characters carry 128 bits: the last one has only its top two bits free ('.', 'O', 'e', 'u').
  const salt = [...r.subarray(0, 21)].map((b) => BCRYPT_ALPHABET[b & 63]).join('') + '.Oeu'[r[21]! & 3];
  const out = execFileSync('perl', ['-e', 'my $p = <STDIN>; my $h = crypt($p, $ARGV[0]); print defined $h ? $h : ""', `$2b$10$${salt}`], { input: password, encoding: 'utf8' });
  if (!/^\$2b\$10\$[./A-Za-z0-9]{53}$/.test(out)) throw new Error('the system crypt(3) has no bcrypt (libxcrypt): cannot hash the test password');
  return out;
}

export interface BearerProxy {
  readonly url: string;
  /** Requests let through to Prometheus, and refused with 401, since start. */
  readonly accepted: number;
  readonly refused: number;
  /** The one token accepted from now on (a rotation: the previous one is refused at once). */
  setToken(token: string): void;
  close(): Promise<void>;
}

/**
 * An HTTPS reverse proxy on loopback that lets a request through to `upstream` (plain HTTP) only with
 * `Authorization: Bearer <token>`, answering 401 otherwise; the Authorization header is not forwarded.
 */
export async function startBearerProxy(o: { upstream: string; cert: KeyedCert; token: string }): Promise<BearerProxy> {
  let want = Buffer.from(`Bearer ${o.token}`);
  let accepted = 0;
  let refused = 0;
  const server = createServer({ cert: o.cert.certPem, key: o.cert.keyPem }, (req, res) => {
    const got = Buffer.from(req.headers.authorization ?? '');
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      refused++;
      req.resume();
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' });
      res.end('Unauthorized\n');
      return;
    }
    accepted++;
    const headers = { ...req.headers };
    delete headers.authorization;
    delete headers.host;
    const up = httpRequest(new URL(req.url ?? '/', o.upstream), { method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`upstream: ${e.message}\n`);
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get accepted() {
      return accepted;
    },
    get refused() {
      return refused;
    },
    setToken(token) {
      want = Buffer.from(`Bearer ${token}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every log file of the cluster's components (serve processes, both Prometheus servers, kube-*), joined. */
export function allLogs(logDir: string): string {
  return readdirSync(logDir)
    .filter((f) => f.endsWith('.log'))
    .map((f) => readFileSync(join(logDir, f), 'utf8'))
    .join('\n');
}

/** Files of the repository (tracked, and untracked but not ignored) holding any of `needles`, by `git grep`. */
export function gitGrepFiles(repoRoot: string, needles: readonly string[]): string[] {
  try {
    const out = execFileSync('git', ['grep', '--untracked', '-l', '-F', ...needles.flatMap((n) => ['-e', n])], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 16 << 20 });
    return out.split('\n').filter(Boolean);
  } catch (e) {
    // git grep exits 1 when nothing matches; anything else is a real failure.
    if ((e as { status?: number }).status === 1) return [];
    throw e;
  }
}

/** The pino JSON lines of a log file (other lines skipped). */
export function logRecords(path: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut by a crash
    }
  }
  return out;
}
