// Kubeconfig files for the harness's identities (admin, controller manager, the adapter's service account)
// and a KubeConfig object from @kubernetes/client-node for tests.
import { readFile, writeFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { KeyPair } from './certificates.ts';

export async function writeKubeconfig(path: string, opts: { server: string; caPath: string; client: KeyPair; user: string }): Promise<string> {
  const b64 = async (p: string) => (await readFile(p)).toString('base64');
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'ehpa-e2e', cluster: { server: opts.server, 'certificate-authority-data': await b64(opts.caPath) } }],
    users: [{ name: opts.user, user: { 'client-certificate-data': await b64(opts.client.certPath), 'client-key-data': await b64(opts.client.keyPath) } }],
    contexts: [{ name: 'ehpa-e2e', context: { cluster: 'ehpa-e2e', user: opts.user } }],
    'current-context': 'ehpa-e2e',
  };
  await writeFile(path, stringify(doc), { mode: 0o600 });
  return path;
}

export function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}
