// End-to-end: ehpa-adapter against a secured Prometheus (issue 15). A second, real Prometheus is started
// with a --web.config.file that requires TLS and basic auth; it holds no data of its own and reads the
// harness Prometheus (backfilled trace, live usage) through remote_read, so what it answers is real
// Prometheus query evaluation over real series. `serve` reaches it only through the CA, user and password
// file flags: the TSP becomes Ready; with a wrong password the TSP's condition names the refusal within a
// reconcile (no hang), and the password appears in no status, event or log line.
import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNamespace, waitFor, type AdapterProcess } from './harness/index.ts';
import { freePort } from './harness/ports.ts';
import { startProcess, type ManagedProcess } from './harness/processes.ts';
import { CRANE_TRACES, useCluster } from './helpers.ts';
import { installForServe, post, startServe, tspPath, waitObj, type Obj } from './scenario-helpers.ts';
import { issueCertificate } from '../../src/adapter/cert-factory.ts';

const NS = 'secprom';
const TRACE = fileURLToPath(new URL('input1.csv', CRANE_TRACES));
const PASSWORD = 'e2e-secret-password';
// bcrypt (cost 10) of PASSWORD, made once with golang.org/x/crypto/bcrypt: Prometheus' web config wants
// the hash, and neither Node nor Debian's base image has bcrypt.
const PASSWORD_BCRYPT = '$2a$10$qbq2FHktdD0zSFxCPWSF6usu43Bv2GU5TqhGBfGZ0nL7Ep5EY.ou6';

const ready = (o: Obj | undefined) => o?.status?.conditions?.find((c) => c.type === 'Ready');

describe('e2e: a TLS + basic-auth Prometheus', function () {
  this.timeout(600_000);
  const env = useCluster({ traces: [{ file: TRACE, namespace: NS, pod: 'web-7d9c8b6f5d-abcde', container: 'app', cpuScale: 0.1, lastPoints: 2 * 1440 + 120 }] });
  let secured: ManagedProcess;
  let securedUrl = '';
  let dir = '';
  let serve: AdapterProcess | undefined;

  before(async function () {
    this.timeout(300_000);
    const c = env.cluster;
    await installForServe(c);
    await createNamespace(c, NS);
    dir = join(c.dir, 'secured-prometheus');
    mkdirSync(dir, { recursive: true });
    const now = Date.now();
    const ca = issueCertificate({ commonName: 'e2e-prometheus-ca', usage: 'ca', notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 86_400_000) });
    const cert = issueCertificate({ commonName: 'prometheus', ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'], usage: 'server', notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 86_400_000) }, ca);
    writeFileSync(join(dir, 'ca.pem'), ca.certPem);
    writeFileSync(join(dir, 'tls.crt'), cert.certPem);
    writeFileSync(join(dir, 'tls.key'), cert.keyPem);
    writeFileSync(join(dir, 'password'), `${PASSWORD}\n`);
    writeFileSync(join(dir, 'wrong-password'), 'not-the-password\n');
    writeFileSync(
      join(dir, 'web.yml'),
      ['tls_server_config:', `  cert_file: ${join(dir, 'tls.crt')}`, `  key_file: ${join(dir, 'tls.key')}`, 'basic_auth_users:', `  ehpa: '${PASSWORD_BCRYPT}'`, ''].join('\n'),
    );
    writeFileSync(join(dir, 'prometheus.yml'), ['global:', '  scrape_interval: 15s', 'remote_read:', `  - url: ${c.promUrl}/api/v1/read`, '    read_recent: true', ''].join('\n'));
    const port = await freePort();
    securedUrl = `https://127.0.0.1:${port}`;
    secured = startProcess({
      name: 'prometheus-secured',
      command: c.binaries.prometheus,
      logDir: c.logDir,
      args: [`--config.file=${join(dir, 'prometheus.yml')}`, `--web.config.file=${join(dir, 'web.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    });
    // Ready once it answers 401 to an anonymous TLS request (it serves nothing without the password).
    await waitFor(
      'secured prometheus up',
      async () => {
        const { request } = await import('node:https');
        return await new Promise<boolean>((resolve) => {
          const req = request(`${securedUrl}/-/ready`, { ca: ca.certPem }, (res) => {
            res.resume();
            resolve(res.statusCode === 401);
          });
          req.on('error', () => resolve(false));
          req.end();
        });
      },
      { process: secured, timeoutMs: 60_000 },
    );
  });

  after(async () => {
    await serve?.stop();
    await secured?.stop();
  });

  const flags = (passwordFile: string) => [
    `--prometheus-url=${securedUrl}`,
    `--prometheus-ca-file=${join(dir, 'ca.pem')}`,
    '--prometheus-username=ehpa',
    `--prometheus-password-file=${join(dir, passwordFile)}`,
  ];
  const tsp = (name: string) => ({
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: { name, namespace: NS },
    spec: {
      targetRef: { kind: 'Deployment', name: 'web' },
      predictionWindowSeconds: 3600,
      predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d' } } }],
    },
  });

  it('with the CA, user and password file: the TSP is Ready from the secured Prometheus', async () => {
    const c = env.cluster;
    serve = await startServe(c, 'serve-secured', flags('password'));
    await post(c, tspPath(NS), tsp('good'));
    const t = await waitObj(c, tspPath(NS, 'good'), 'TSP Ready', (o) => ready(o)?.status === 'True', 240_000);
    const samples = (t.status?.['predictionMetrics'] as { prediction: { samples: unknown[] }[] }[])[0]!.prediction[0]!.samples;
    expect(samples.length).to.be.greaterThan(50);
  });

  it('with a wrong password: a condition naming the refusal within a reconcile, and the secrets nowhere', async () => {
    const c = env.cluster;
    await serve?.stop();
    serve = await startServe(c, 'serve-wrong-password', flags('wrong-password'));
    await post(c, tspPath(NS), tsp('refused'));
    const t0 = Date.now();
    const t = await waitObj(c, tspPath(NS, 'refused'), 'TSP refused', (o) => ready(o)?.status === 'False' && /refused the credentials: HTTP 401/.test(ready(o)?.message ?? ''), 120_000);
    console.log(`      refusal reported ${((Date.now() - t0) / 1000).toFixed(1)} s after create: ${ready(t)?.message}`);
    const everything = [
      JSON.stringify((await c.admin.getJson<{ items: unknown[] }>(tspPath(NS))).items),
      JSON.stringify((await c.admin.getJson<{ items: unknown[] }>(`/api/v1/namespaces/${NS}/events`)).items),
      readFileSync(serve.logPath, 'utf8'),
    ].join('\n');
    for (const secret of [PASSWORD, 'not-the-password', Buffer.from(`ehpa:${PASSWORD}`).toString('base64'), Buffer.from('ehpa:not-the-password').toString('base64')]) {
      expect(everything, 'a secret leaked').to.not.contain(secret);
    }
  });
});
