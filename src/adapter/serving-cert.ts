// The serving certificate: the given files, else the pair in --cert-dir, else a new self-signed CA + leaf
// written there (client-go's layout: apiserver.crt = leaf then CA, apiserver.key = PKCS#1).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { issueCertificate } from './cert-factory.ts';

export interface ServingCertOptions {
  certFile?: string;
  keyFile?: string;
  certDir: string;
  /** DNS names for the SANs besides localhost (e.g. the Service's names). */
  dnsNames: string[];
  now: () => number;
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
  try {
    return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8'), source: 'cert-dir' };
  } catch {
    // Not there (or unreadable): generate below.
  }
  const nowMs = opts.now();
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
  await mkdir(opts.certDir, { recursive: true });
  await writeFile(certPath, cert, { mode: 0o644 });
  await writeFile(keyPath, leaf.keyPem, { mode: 0o600 });
  return { cert, key: leaf.keyPem, source: 'generated' };
}

/** SAN DNS names for a Service (docs/metrics-api.md §6.2): name, name.ns, name.ns.svc, name.ns.svc.cluster.local. */
export function serviceDnsNames(service: string | undefined, namespace: string | undefined): string[] {
  if (!service) return [];
  if (!namespace) return [service];
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
}
