// The serving certificate: the given files, else the pair in --cert-dir, else a new self-signed CA + leaf
// written there (client-go's layout: apiserver.crt = leaf then CA, apiserver.key = PKCS#1). A pair found in
// --cert-dir is used only while it is sound: it parses, its key is the leaf's key, and it stays valid for
// RENEW_BEFORE_MS more; otherwise a new pair replaces it and the log says why (a pod restart then renews
// a certificate that would otherwise expire under a long-running Deployment).
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
    return { cert: await readFile(opts.certFile, 'utf8'), key: await readFile(opts.keyFile, 'utf8'), source: 'files' };
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

/** Why a leaf-first PEM chain and its key should not be served at `nowMs`, or undefined when they can be. */
export function servingPairProblem(certPem: string, keyPem: string, nowMs: number): string | undefined {
  const leafPem = certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)?.[0];
  if (!leafPem) return 'apiserver.crt holds no certificate';
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(leafPem);
  } catch (e) {
    return `apiserver.crt does not parse (${(e as Error).message})`;
  }
  try {
    if (!leaf.checkPrivateKey(createPrivateKey(keyPem))) return 'apiserver.key is not the key of apiserver.crt';
  } catch (e) {
    return `apiserver.key does not parse (${(e as Error).message})`;
  }
  const notAfter = Date.parse(leaf.validTo);
  if (notAfter <= nowMs) return `apiserver.crt expired at ${new Date(notAfter).toISOString()}`;
  if (notAfter - nowMs < RENEW_BEFORE_MS) return `apiserver.crt expires at ${new Date(notAfter).toISOString()}, within 30 days`;
  if (Date.parse(leaf.validFrom) > nowMs) return `apiserver.crt is not valid before ${leaf.validFrom}`;
  return undefined;
}

/** SAN DNS names for a Service (docs/metrics-api.md §6.2): name, name.ns, name.ns.svc, name.ns.svc.cluster.local. */
export function serviceDnsNames(service: string | undefined, namespace: string | undefined): string[] {
  if (!service) return [];
  if (!namespace) return [service];
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
}
