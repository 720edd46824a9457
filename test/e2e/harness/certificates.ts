// The control plane's PKI, made with the openssl CLI in a temp dir: a cluster CA (serving cert and client
// certs), a separate front-proxy CA (kube-apiserver's client cert towards aggregated servers, and the
// request-header trust root those servers check) and a service-account signing key pair.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const run = promisify(execFile);

export interface KeyPair {
  certPath: string;
  keyPath: string;
}

export interface ClusterPki {
  dir: string;
  ca: KeyPair;
  apiserver: KeyPair;
  admin: KeyPair;
  controllerManager: KeyPair;
  frontProxyCa: KeyPair;
  frontProxyClient: KeyPair;
  serviceAccountKeyPath: string;
  serviceAccountPubPath: string;
  /** A client cert for any identity signed by the cluster CA (authenticates as CN, groups = O). */
  clientCert(name: string, user: string, groups?: string[]): Promise<KeyPair>;
  /** A client cert signed by an arbitrary CA (e.g. a self-made untrusted one) for negative tests. */
  signWith(ca: KeyPair, name: string, subject: Subject, ext: string): Promise<KeyPair>;
}

export interface Subject {
  cn: string;
  o?: string[];
}

function subjectString(s: Subject): string {
  const esc = (v: string) => v.replace(/[/\\]/g, (c) => `\\${c}`);
  return `${(s.o ?? []).map((o) => `/O=${esc(o)}`).join('')}/CN=${esc(s.cn)}`;
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args, { maxBuffer: 1 << 20 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`openssl ${args[0]} failed: ${e.stderr ?? e.message}`);
  }
}

export async function makeCa(dir: string, name: string, cn: string): Promise<KeyPair> {
  const pair = { certPath: join(dir, `${name}.crt`), keyPath: join(dir, `${name}.key`) };
  await openssl([
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '365',
    '-keyout', pair.keyPath, '-out', pair.certPath, '-subj', `/CN=${cn}`,
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
  ]);
  return pair;
}

async function signLeaf(dir: string, ca: KeyPair, name: string, subject: Subject, ext: string): Promise<KeyPair> {
  const pair = { certPath: join(dir, `${name}.crt`), keyPath: join(dir, `${name}.key`) };
  const csr = join(dir, `${name}.csr`);
  const extFile = join(dir, `${name}.ext`);
  await writeFile(extFile, `basicConstraints=CA:FALSE\n${ext}\n`);
  await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', pair.keyPath, '-out', csr, '-subj', subjectString(subject)]);
  // Backdate by an hour so small clock differences never make a fresh cert "not yet valid".
  await openssl([
    'x509', '-req', '-in', csr, '-CA', ca.certPath, '-CAkey', ca.keyPath, '-set_serial', `0x${randomSerial()}`,
    '-sha256', '-days', '365', '-out', pair.certPath, '-extfile', extFile,
    ...(await supportsNotBefore() ? ['-not_before', backdated()] : []),
  ]);
  return pair;
}

let notBeforeSupport: Promise<boolean> | undefined;
function supportsNotBefore(): Promise<boolean> {
  // `-not_before` arrived in OpenSSL 3.4; Debian bookworm has 3.0, where fresh certs start "now".
  notBeforeSupport ??= run('openssl', ['x509', '-help']).then(
    (r) => /not_before/.test(r.stdout + r.stderr),
    (e: { stdout?: string; stderr?: string }) => /not_before/.test(`${e.stdout ?? ''}${e.stderr ?? ''}`),
  );
  return notBeforeSupport;
}

function backdated(): string {
  const d = new Date(Date.now() - 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
}

function randomSerial(): string {
  let s = '';
  for (let i = 0; i < 16; i++) s += Math.floor(Math.random() * 16).toString(16);
  return `1${s}`;
}

const CLIENT_EXT = 'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth';

export async function makeClusterPki(dir: string): Promise<ClusterPki> {
  const ca = await makeCa(dir, 'ca', 'ehpa-e2e-cluster-ca');
  const frontProxyCa = await makeCa(dir, 'front-proxy-ca', 'ehpa-e2e-front-proxy-ca');
  const sans = [
    'IP:127.0.0.1', 'IP:10.0.0.1', 'DNS:localhost', 'DNS:kubernetes', 'DNS:kubernetes.default',
    'DNS:kubernetes.default.svc', 'DNS:kubernetes.default.svc.cluster.local',
  ].join(',');
  const [apiserver, admin, controllerManager, frontProxyClient] = await Promise.all([
    signLeaf(dir, ca, 'apiserver', { cn: 'kube-apiserver' },
      `keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${sans}`),
    signLeaf(dir, ca, 'admin', { cn: 'ehpa-e2e-admin', o: ['system:masters'] }, CLIENT_EXT),
    // Not in system:masters: the controller manager (and so the real HPA) gets exactly what RBAC grants.
    signLeaf(dir, ca, 'kube-controller-manager', { cn: 'system:kube-controller-manager' }, CLIENT_EXT),
    signLeaf(dir, frontProxyCa, 'front-proxy-client', { cn: 'front-proxy-client' }, CLIENT_EXT),
  ]);
  const serviceAccountKeyPath = join(dir, 'sa.key');
  const serviceAccountPubPath = join(dir, 'sa.pub');
  await openssl(['genrsa', '-out', serviceAccountKeyPath, '2048']);
  await openssl(['rsa', '-in', serviceAccountKeyPath, '-pubout', '-out', serviceAccountPubPath]);
  return {
    dir, ca, apiserver, admin, controllerManager, frontProxyCa, frontProxyClient,
    serviceAccountKeyPath, serviceAccountPubPath,
    clientCert: (name, user, groups = []) => signLeaf(dir, ca, name, { cn: user, o: groups }, CLIENT_EXT),
    signWith: (other, name, subject, ext) => signLeaf(dir, other, name, subject, ext),
  };
}

export async function readPem(pair: KeyPair): Promise<{ cert: string; key: string }> {
  return { cert: await readFile(pair.certPath, 'utf8'), key: await readFile(pair.keyPath, 'utf8') };
}

export { CLIENT_EXT };
