import { expect } from 'chai';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { pino } from 'pino';
import { parseFlags } from '../../../src/config/flags.ts';
import { ADAPTER_FLAGS } from '../../../src/adapter/flags.ts';
import { startAdapterFromFlags } from '../../../src/adapter/start-from-flags.ts';
import { MapSources, testPki } from '../../helpers/adapter-fixture.ts';

/** A stand-in kube-apiserver: the request-header ConfigMap and SubjectAccessReviews (allows user "hpa"). */
async function fakeApiServer(reviews: unknown[]): Promise<Server> {
  const p = testPki();
  const server = createServer({ cert: p.serving.certPem, key: p.serving.keyPem }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      if (req.method === 'GET' && req.url?.startsWith('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')) {
        res.end(JSON.stringify({
          apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extension-apiserver-authentication', namespace: 'kube-system' },
          data: {
            'requestheader-client-ca-file': p.frontProxyCa.certPem,
            'requestheader-allowed-names': '["front-proxy-client"]',
            'requestheader-username-headers': '["X-Remote-User"]',
            'requestheader-group-headers': '["X-Remote-Group"]',
            'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
          },
        }));
      } else if (req.method === 'POST' && req.url?.startsWith('/apis/authorization.k8s.io/v1/subjectaccessreviews')) {
        const sar = JSON.parse(body);
        reviews.push(sar);
        res.statusCode = 201;
        res.end(JSON.stringify({ ...sar, status: { allowed: sar.spec.user === 'hpa' } }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return server;
}

function kubeConfigFor(port: number): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `https://localhost:${port}`, caData: Buffer.from(testPki().servingCa.certPem).toString('base64') }],
    users: [{ name: 'u', token: 'test-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('startAdapterFromFlags (ConfigMap + SubjectAccessReview through @kubernetes/client-node)', function () {
  this.timeout(30_000);
  it('reads the request-header config from the cluster, generates a serving cert and authorizes with SARs (cached)', async () => {
    const reviews: { spec: { user: string; resourceAttributes?: unknown } }[] = [];
    const api = await fakeApiServer(reviews);
    const certDir = await mkdtemp(join(tmpdir(), 'adapter-flags-'));
    const flags = parseFlags(ADAPTER_FLAGS, ['--secure-port=0', '--bind-address=127.0.0.1', `--cert-dir=${certDir}`, '--authorization-cache-ttl=1m']);
    const handle = await startAdapterFromFlags(flags, {
      kubeConfig: kubeConfigFor((api.address() as AddressInfo).port),
      sources: new MapSources(),
      registry: new Registry(),
      logger: pino({ level: 'silent' }),
    });
    try {
      const path = '/apis/external.metrics.k8s.io/v1beta1';
      // The generated certificate is self-signed, so this client skips verification, as aggregators with
      // insecureSkipTLSVerify do.
      const insecureGet = (user: string) =>
        new Promise<number>((resolve, reject) => {
          const p = testPki();
          const req = request({ host: '127.0.0.1', port: handle.port, path, rejectUnauthorized: false, cert: p.frontProxyClient.certPem, key: p.frontProxyClient.keyPem, headers: { 'X-Remote-User': user } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject);
          req.end();
        });
      expect(await insecureGet('hpa')).to.equal(200);
      expect(await insecureGet('mallory')).to.equal(403);
      expect(await insecureGet('hpa')).to.equal(200);
      expect(reviews.map((r) => r.spec.user)).to.deep.equal(['hpa', 'mallory']);
      expect(reviews[0]).to.deep.include({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview' });
      expect(reviews[0]?.spec).to.deep.include({ groups: ['system:authenticated'], nonResourceAttributes: { path, verb: 'get' } });
    } finally {
      await handle.close();
      api.close();
    }
  });
  it('fails clearly when there is neither a CA file nor a cluster', async () => {
    const flags = parseFlags(ADAPTER_FLAGS, []);
    let err: Error | undefined;
    try {
      await startAdapterFromFlags(flags, { sources: new MapSources(), registry: new Registry(), logger: pino({ level: 'silent' }) });
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).to.match(/needs --requestheader-client-ca-file or a cluster connection/);
  });
  it('refuses an unknown --cron-local-timezone before listening', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adapter-flags-'));
    await import('node:fs/promises').then((fs) => fs.writeFile(join(dir, 'ca.crt'), testPki().frontProxyCa.certPem));
    const flags = parseFlags(ADAPTER_FLAGS, [`--requestheader-client-ca-file=${join(dir, 'ca.crt')}`, '--cron-local-timezone=Mars/Base']);
    let err: Error | undefined;
    try {
      await startAdapterFromFlags(flags, { sources: new MapSources(), registry: new Registry(), logger: pino({ level: 'silent' }), authorizer: { authorize: async () => ({ allowed: false }) } });
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).to.equal('--cron-local-timezone: unknown time zone "Mars/Base"');
  });
});
