// The serving certificate: the given files, else the pair in --cert-dir, else a new self-signed CA + leaf
// written there (client-go's layout: apiserver.crt = leaf then CA, apiserver.key = PKCS#1). A pair found in
// --cert-dir is used only while it is sound: it parses, its key is the leaf's key, and it stays valid for
// RENEW_BEFORE_MS more; otherwise a new pair replaces it and the log says why (a pod restart then renews
// a certificate that would otherwise expire under a long-running Deployment). Given files are re-read while
// the server runs (server.ts swaps a new sound pair in); a generated pair is this process' own and is not.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { issueCertificate } from './cert-factory.ts';

/** Renew a --cert-dir pair that expires within 30 days. */
export const RENEW_BEFORE_MS = 30 * 86_400_000;

export interface ServingCertOptions {
  certFile?: string;
  keyFile?: string;
  certDir: string;
  /** DNS names for the SANs besides localhost (e.g. the Service's names). */
  dnsNames: string[];
  now: () => number;
  logger?: Pick<Logger, 'info' | 'warn'>;
}

export interface ServingCert {
  cert: string;
  key: string;
  source: 'files' | 'cert-dir' | 'generated';
}

export async function loadOrCreateServingCert(opts: ServingCertOptions): Promise<ServingCert> {
  if (opts.certFile || opts.keyFile) {
    if (!opts.certFile || !opts.keyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    return { ...(await readServingFiles(opts.certFile, opts.keyFile)), source: 'files' };
  }
  const certPath = join(opts.certDir, 'apiserver.crt');
  const keyPath = join(opts.certDir, 'apiserver.key');
  const nowMs = opts.now();
  let existing: { cert: string; key: string } | undefined;
  try {
    existing = { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8') };
  } catch {
    // Not there (or unreadable): generate below.
  }
  if (existing) {
    const problem = servingPairProblem(existing.cert, existing.key, nowMs);
    if (!problem) return { ...existing, source: 'cert-dir' };
    opts.logger?.warn({ certDir: opts.certDir, reason: problem }, 'regenerating the self-signed serving certificate');
  }
  const unix = Math.floor(nowMs / 1000);
  const notBefore = new Date(nowMs - 3_600_000);
  const notAfter = new Date(nowMs + 365 * 86_400_000);
  const ca = issueCertificate({ commonName: `localhost-ca@${unix}`, usage: 'ca', notBefore, notAfter });
  const leaf = issueCertificate(
    {
      commonName: `localhost@${unix}`,
      usage: 'server',
      dnsNames: ['localhost', ...opts.dnsNames.filter((n) => n !== 'localhost')],
      ipAddresses: ['127.0.0.1'],
      notBefore,
      notAfter,
    },
    ca,
  );
  const cert = leaf.certPem + ca.certPem;
  // Only this process reads the key: the directory is private to it (an existing directory keeps its mode).
  await mkdir(opts.certDir, { recursive: true, mode: 0o700 });
  await writeFile(certPath, cert, { mode: 0o644 });
  await writeFile(keyPath, leaf.keyPem, { mode: 0o600 });
  // `mode` applies only to a new file: a replaced key keeps the old file's mode unless set again.
  await chmod(keyPath, 0o600);
  return { cert, key: leaf.keyPem, source: 'generated' };
}

export interface PairCheck {
  /** How the messages name the two files (default: the --cert-dir names). */
  certName?: string;
  keyName?: string;
  /** A certificate expiring sooner than this is refused too (default RENEW_BEFORE_MS; 0: only an expired one). */
  renewBeforeMs?: number;
}

/** Why a leaf-first PEM chain and its key should not be served at `nowMs`, or undefined when they can be. */
export function servingPairProblem(certPem: string, keyPem: string, nowMs: number, check: PairCheck = {}): string | undefined {
  const crt = check.certName ?? 'apiserver.crt';
  const key = check.keyName ?? 'apiserver.key';
  const renewBeforeMs = check.renewBeforeMs ?? RENEW_BEFORE_MS;
  const leafPem = certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)?.[0];
  if (!leafPem) return `${crt} holds no certificate`;
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(leafPem);
  } catch (e) {
    return `${crt} does not parse (${(e as Error).message})`;
  }
  try {
    if (!leaf.checkPrivateKey(createPrivateKey(keyPem))) return `${key} is not the key of ${crt}`;
  } catch (e) {
    return `${key} does not parse (${(e as Error).message})`;
  }
  const notAfter = Date.parse(leaf.validTo);
  if (notAfter <= nowMs) return `${crt} expired at ${new Date(notAfter).toISOString()}`;
  if (notAfter - nowMs < renewBeforeMs) return `${crt} expires at ${new Date(notAfter).toISOString()}, within ${Math.round(renewBeforeMs / 86_400_000)} days`;
  if (Date.parse(leaf.validFrom) > nowMs) return `${crt} is not valid before ${leaf.validFrom}`;
  return undefined;
}

/** The leaf's identity for log lines and the expiry gauge; undefined when the chain holds no parsable certificate. */
export function leafInfo(certPem: string): { serialNumber: string; fingerprint256: string; notAfterMs: number } | undefined {
  const leafPem = certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)?.[0];
  if (!leafPem) return undefined;
  try {
    const leaf = new X509Certificate(leafPem);
    return { serialNumber: leaf.serialNumber, fingerprint256: leaf.fingerprint256, notAfterMs: Date.parse(leaf.validTo) };
  } catch {
    return undefined;
  }
}

/**
 * Reads --tls-cert-file and --tls-private-key-file as one pair. The two reads are not one step: a rotation
 * landing between them would pair the old certificate with the new key. The certificate is read again after
 * the key and the pair re-read when it changed meanwhile, so only a writer that leaves the files mismatched
 * for longer than that (a non-atomic copy still in progress) yields a pair the check then refuses.
 */
export async function readServingFiles(certFile: string, keyFile: string, read: (path: string) => Promise<string> = (p) => readFile(p, 'utf8')): Promise<{ cert: string; key: string }> {
  let cert = await read(certFile);
  for (let attempt = 0; ; attempt++) {
    const key = await read(keyFile);
    const again = await read(certFile);
    if (again === cert || attempt >= 2) return { cert: again, key };
    cert = again;
  }
}

/** SAN DNS names for a Service (docs/metrics-api.md §6.2): name, name.ns, name.ns.svc, name.ns.svc.cluster.local. */
export function serviceDnsNames(service: string | undefined, namespace: string | undefined): string[] {
  if (!service) return [];
  if (!namespace) return [service];
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
}
