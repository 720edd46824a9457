// End-to-end M3 on the real control plane: the adapter reads kube-system/extension-apiserver-authentication
// with only the upstream Role extension-apiserver-authentication-reader (get/list/watch on that one name),
// watches it, and follows an edit of the front-proxy CA bundle without a restart: a CA added to the bundle
// is trusted, a CA taken out again is refused, on an already open connection too. And the serving
// certificate follows its files: rotated in a Secret-shaped volume while the aggregator and direct clients
// send requests without pause, with a mismatched pair published first, not one request fails and new
// connections get the new certificate.
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request, type RequestOptions } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { pino } from 'pino';
import { issueCertificate, type KeyedCert } from '../../src/adapter/cert-factory.ts';
import { parseFlags } from '../../src/config/flags.ts';
import { ADAPTER_FLAGS } from '../../src/adapter/flags.ts';
import { startAdapterFromFlags } from '../../src/adapter/start-from-flags.ts';
import type { MetricsAdapterHandle } from '../../src/adapter/server.ts';
import { leafInfo } from '../../src/adapter/serving-cert.ts';
import { MapSources } from '../helpers/adapter-fixture.ts';
import { SecretVolume } from '../helpers/secret-volume.ts';
import { useCluster } from './helpers.ts';
import { until as untilHolds } from '../helpers/until.ts';

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

/** A real control plane's reload is slower than a unit test's: 30 s, polled every 100 ms. */
const until = (what: string, check: () => Promise<boolean>, timeoutMs = 30_000) => untilHolds(what, check, timeoutMs, 100);

/** One GET; resolves with the status and the serial of the certificate the connection was handshaken with. */
function getOnce(opts: RequestOptions): Promise<{ status: number; serial: string }> {
  return new Promise((resolve, reject) => {
    const req = request(opts, (res) => {
      const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, serial }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

describe('e2e: request-header trust and the serving certificate follow rotation without a restart (M3)', function () {
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
  it('the serving certificate rotated in its Secret volume under continuous load: zero failed requests, new connections get it', async () => {
    const c = env.cluster;
    const NS = 'default';
    const SVC = 'ehpa-rotation';
    const APISERVICE = 'v1beta1.external.metrics.k8s.io';
    const nb = new Date(Date.now() - 3_600_000);
    const na = new Date(Date.now() + 86_400_000);
    // Two CAs, as when an issuer's CA is replaced too; the APIService trusts both during the switch.
    const oldCa = issueCertificate({ commonName: 'serving-ca-old', usage: 'ca', notBefore: nb, notAfter: na });
    const newCa = issueCertificate({ commonName: 'serving-ca-new', usage: 'ca', notBefore: nb, notAfter: na });
    const names = { dnsNames: ['localhost', `${SVC}.${NS}.svc`], ipAddresses: ['127.0.0.1'] };
    const first = issueCertificate({ commonName: 'ehpa-adapter', usage: 'server', ...names, notBefore: nb, notAfter: na }, oldCa);
    const second = issueCertificate({ commonName: 'ehpa-adapter', usage: 'server', ...names, notBefore: nb, notAfter: new Date(na.getTime() + 86_400_000) }, newCa);
    const serialOf = (k: KeyedCert) => leafInfo(k.certPem)!.serialNumber;

    const dir = await mkdtemp(join(tmpdir(), 'e2e-serving-rotation-'));
    const vol = new SecretVolume(join(dir, 'serving-cert'));
    await vol.publish({ 'tls.crt': first.certPem + oldCa.certPem, 'tls.key': first.keyPem });
    const lines: { msg: string; level: number }[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as { msg: string; level: number }) });
    let handle: MetricsAdapterHandle | undefined;
    let stop = false;
    const apiservicePath = `/apis/apiregistration.k8s.io/v1/apiservices/${APISERVICE}`;
    try {
      const flags = parseFlags(ADAPTER_FLAGS, [
        `--secure-port=${c.adapterPort}`, '--bind-address=127.0.0.1', `--cert-dir=${join(dir, 'unused')}`,
        `--tls-cert-file=${vol.path('tls.crt')}`, `--tls-private-key-file=${vol.path('tls.key')}`,
      ]);
      handle = await startAdapterFromFlags(flags, {
        kubeConfig: c.kc, sources: new MapSources(), registry: new Registry(), logger,
        authorizer: { authorize: async () => ({ allowed: true }) }, trustPollMs: 500,
      });
      // The aggregator verifies the serving certificate against caBundle (no insecureSkipTLSVerify).
      for (const [path, body] of [
        [`/api/v1/namespaces/${NS}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: SVC, namespace: NS }, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port: c.adapterPort }] } }],
        ['/apis/apiregistration.k8s.io/v1/apiservices', {
          apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: APISERVICE },
          spec: {
            group: 'external.metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100,
            service: { namespace: NS, name: SVC, port: c.adapterPort }, caBundle: Buffer.from(oldCa.certPem + newCa.certPem).toString('base64'),
          },
        }],
      ] as const) {
        const name = (body.metadata as { name: string }).name;
        const r = await c.admin.request('PATCH', `${path}/${name}?fieldManager=ehpa-e2e&force=true`, { body, contentType: 'application/apply-patch+yaml' });
        expect(r.status, r.body).to.be.oneOf([200, 201]);
      }
      await until('the APIService to be Available', async () => {
        const a = await c.admin.getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(apiservicePath);
        return a.status?.conditions?.some((x) => x.type === 'Available' && x.status === 'True') ?? false;
      }, 120_000);

      const frontProxy = { cert: await readFile(c.frontProxy.certPath, 'utf8'), key: await readFile(c.frontProxy.keyPath, 'utf8') };
      const direct: RequestOptions = {
        host: '127.0.0.1', port: c.adapterPort, path: '/apis', servername: 'localhost', ca: [oldCa.certPem, newCa.certPem],
        ...frontProxy, headers: { 'X-Remote-User': 'hpa' },
      };
      const kept = new Agent({ keepAlive: true, maxSockets: 1 });
      const counts = { aggregator: 0, fresh: 0, kept: 0 };
      const failures: string[] = [];
      const freshSerials: { startedAt: number; at: number; serial: string }[] = [];
      const keptSerials = new Set<string>();
      const loop = async (kind: keyof typeof counts, once: () => Promise<void>) => {
        while (!stop) {
          try {
            await once();
            counts[kind]++;
          } catch (e) {
            failures.push(`${kind}: ${(e as Error).message}`);
          }
        }
      };
      const workers = [
        // Through kube-apiserver's aggregator: its one h2 connection, opened before the rotation.
        ...Array.from({ length: 3 }, () => loop('aggregator', async () => {
          const r = await c.admin.get('/apis/external.metrics.k8s.io/v1beta1');
          if (r.status !== 200) throw new Error(`HTTP ${r.status} ${r.body.slice(0, 200)}`);
        })),
        // A new TLS connection per request: each handshake gets whatever certificate is in force.
        ...Array.from({ length: 3 }, () => loop('fresh', async () => {
          const startedAt = Date.now();
          const r = await getOnce({ ...direct, agent: false });
          if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
          freshSerials.push({ startedAt, at: Date.now(), serial: r.serial });
        })),
        // One kept-alive connection across the rotation.
        loop('kept', async () => {
          const r = await getOnce({ ...direct, agent: kept });
          if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
          keptSerials.add(r.serial);
        }),
      ];
      try {
        await new Promise((r) => setTimeout(r, 2_000));
        // A writer that replaces one file at a time: the new certificate beside the old key, for a few polls.
        await vol.publish({ 'tls.crt': second.certPem + newCa.certPem, 'tls.key': first.keyPem });
        await until('the mismatched pair to be refused', async () => lines.some((l) => l.level === 50 && /rejected, keeping the previous one/.test(l.msg)));
        await new Promise((r) => setTimeout(r, 1_500));
        const rotatedAt = Date.now();
        await vol.publish({ 'tls.crt': second.certPem + newCa.certPem, 'tls.key': second.keyPem });
        await until('new connections to get the new certificate', async () => freshSerials.some((x) => x.serial === serialOf(second)));
        const servedAt = freshSerials.find((x) => x.serial === serialOf(second))!.at;
        await new Promise((r) => setTimeout(r, 3_000));
        stop = true;
        await Promise.all(workers);
        // A connection begun after one was handed the new certificate began after the swap.
        const after = freshSerials.filter((x) => x.startedAt > servedAt);
        // Figures for the report: requests per path and how long the new pair took to be served.
        console.log(`      serving-cert rotation under load: ${JSON.stringify(counts)} requests, ${failures.length} failed; new certificate served ${servedAt - rotatedAt} ms after the swap`);
        expect(failures, 'failed requests').to.deep.equal([]);
        expect(counts.aggregator).to.be.greaterThan(20);
        expect(counts.fresh).to.be.greaterThan(20);
        expect(counts.kept).to.be.greaterThan(20);
        expect(freshSerials[0]!.serial).to.equal(serialOf(first));
        expect(after.length).to.be.greaterThan(5);
        expect(after.every((x) => x.serial === serialOf(second)), 'every new connection after the swap').to.equal(true);
        // The kept-alive connection never re-handshook: it finished on the certificate it started with.
        expect([...keptSerials]).to.deep.equal([serialOf(first)]);
        expect(lines.filter((l) => l.msg === 'serving certificate reloaded')).to.have.length(1);
        expect(lines.filter((l) => l.level === 50)).to.have.length(1);
      } finally {
        stop = true;
        await Promise.all(workers);
        kept.destroy();
      }

      // The aggregator on the new CA alone: a new transport, a new handshake, the new certificate.
      const a = await c.admin.getJson<{ metadata: { resourceVersion: string }; spec: Record<string, unknown> }>(apiservicePath);
      const r = await c.admin.request('PUT', apiservicePath, { body: { ...a, spec: { ...a.spec, caBundle: Buffer.from(newCa.certPem).toString('base64') } } });
      expect(r.status, r.body).to.equal(200);
      await new Promise((res) => setTimeout(res, 2_000));
      for (let i = 0; i < 10; i++) expect((await c.admin.get('/apis/external.metrics.k8s.io/v1beta1')).status).to.equal(200);
    } finally {
      stop = true;
      await c.admin.request('DELETE', apiservicePath);
      await c.admin.request('DELETE', `/api/v1/namespaces/${NS}/services/${SVC}`);
      await handle?.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
