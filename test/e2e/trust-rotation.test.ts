// End-to-end M3 on the real control plane: the adapter reads kube-system/extension-apiserver-authentication
// with only the upstream Role extension-apiserver-authentication-reader (get/list/watch on that one name),
// watches it, and follows an edit of the front-proxy CA bundle without a restart: a CA added to the bundle
// is trusted, a CA taken out again is refused, on an already open connection too.
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { pino } from 'pino';
import { issueCertificate, type KeyedCert } from '../../src/adapter/cert-factory.ts';
import { parseFlags } from '../../src/config/flags.ts';
import { ADAPTER_FLAGS } from '../../src/adapter/flags.ts';
import { startAdapterFromFlags } from '../../src/adapter/start-from-flags.ts';
import type { MetricsAdapterHandle } from '../../src/adapter/server.ts';
import { MapSources } from '../helpers/adapter-fixture.ts';
import { useCluster } from './helpers.ts';

const CM_PATH = '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication';
const READER = 'ehpa-trust-rotation-reader';

function clientOf(client: KeyedCert) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false, cert: client.certPem, key: client.keyPem });
  const get = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/apis', agent, headers: { 'X-Remote-User': 'hpa' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  return { get, close: () => agent.destroy() };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('e2e: request-header trust follows an edit of extension-apiserver-authentication (M3)', function () {
  this.timeout(300_000);
  const env = useCluster({ controllerManager: false, kubelet: false, prometheus: false });

  it('a CA added to requestheader-client-ca-file is trusted, and refused again once removed, without a restart', async () => {
    const c = env.cluster;
    // Only the upstream reader Role, bound to a fresh user: proves the field-selected watch is allowed by it.
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding',
      metadata: { name: READER, namespace: 'kube-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: READER }],
    };
    const created = await c.admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings', { body: binding });
    expect(created.status, created.body).to.equal(201);
    const reader = await c.identity(READER);

    const original = ((await c.admin.getJson<{ data: Record<string, string> }>(CM_PATH)).data['requestheader-client-ca-file'] ?? '').trim();
    expect(original).to.match(/BEGIN CERTIFICATE/);
    const nb = new Date(Date.now() - 3_600_000);
    const na = new Date(Date.now() + 86_400_000);
    const extraCa = issueCertificate({ commonName: 'rotated-front-proxy-ca', usage: 'ca', notBefore: nb, notAfter: na });
    const rotated = clientOf(issueCertificate({ commonName: 'front-proxy-client', usage: 'client', notBefore: nb, notAfter: na }, extraCa));

    const dir = await mkdtemp(join(tmpdir(), 'e2e-trust-'));
    let handle: MetricsAdapterHandle | undefined;
    const setBundle = async (pem: string) => {
      const r = await c.admin.request('PATCH', CM_PATH, { body: { data: { 'requestheader-client-ca-file': pem } }, contentType: 'application/merge-patch+json' });
      expect(r.status, r.body).to.equal(200);
    };
    try {
      const flags = parseFlags(ADAPTER_FLAGS, ['--secure-port=0', '--bind-address=127.0.0.1', `--cert-dir=${dir}`]);
      handle = await startAdapterFromFlags(flags, {
        kubeConfig: reader.kc, sources: new MapSources(), registry: new Registry(), logger: pino({ level: 'silent' }),
        authorizer: { authorize: async () => ({ allowed: true }) },
      });
      const port = handle.port;
      expect(await rotated.get(port)).to.equal(401);

      await setBundle(`${original}\n${extraCa.certPem}`);
      await until('the added CA to be trusted', async () => (await rotated.get(port)) === 200);
      // kube-apiserver's own front-proxy client still gets in (its CA is still in the bundle).
      const apiserverProxy = clientOf({ certPem: await readFile(c.frontProxy.certPath, 'utf8'), keyPem: await readFile(c.frontProxy.keyPath, 'utf8') });
      try {
        expect(await apiserverProxy.get(port)).to.equal(200);
      } finally {
        apiserverProxy.close();
      }

      await setBundle(`${original}\n`);
      await until('the removed CA to be refused on the open connection', async () => (await rotated.get(port)) === 401);
    } finally {
      rotated.close();
      await handle?.close();
      await setBundle(`${original}\n`).catch(() => undefined);
      await c.admin.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings/${READER}`);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
