// End-to-end: ehpa-adapter against a secured Prometheus, as managed and hardened clusters run it. Two
// secured endpoints, both over TLS with a CA made here:
// - a second, real Prometheus started with a --web.config.file that requires TLS and basic auth; it holds
//   no data of its own and reads the harness Prometheus (backfilled traces, live usage) through
//   remote_read, so what it answers is real Prometheus query evaluation over real series;
// - a bearer-token reverse proxy in front of the harness Prometheus (Prometheus 2.42's web config has no
//   bearer auth; Thanos, Mimir and the OpenShift querier sit behind such a proxy).
// `serve` reaches them only through the CA, user/password file and token file flags. The TSP becomes Ready,
// the VPA recommender loads its start-up history through the same flags and recommends from it, a wrong
// credential gives a condition naming the 401 within a reconcile (no hang): the TSP's Ready=False, and for
// the VPA's history FetchingHistory=False with a Warning event (beside the log line); a rotated token file
// is picked up without a restart, and no secret appears in any status, event, log line or file of the
// repository. Every secret is made at run time (secured-prometheus-helpers.ts), so none is committed.
// kwok plays the nodes (kube-scheduler, kwok, the real metrics-server).
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDeployment, createNamespace, podsOf, REPO_ROOT, waitFor, type AdapterProcess } from './harness/index.ts';
import { freePort } from './harness/ports.ts';
import { startProcess, type ManagedProcess } from './harness/processes.ts';
import { CRANE_TRACES, useCluster } from './helpers.ts';
import { condition, installForServe, post, startServe, tspPath, waitObj, type Obj } from './scenario-helpers.ts';
import { allLogs, bcryptHash, gitGrepFiles, logRecords, randomSecret, startBearerProxy, type BearerProxy } from './secured-prometheus-helpers.ts';
import { issueCertificate } from '../../src/adapter/cert-factory.ts';

const NS = 'secprom';
const TRACE = fileURLToPath(new URL('input1.csv', CRANE_TRACES));
// Secrets of this run only: written to the cluster's temp dir, never to the repository.
const PASSWORD = randomSecret('e2e-pw');
const WRONG_PASSWORD = randomSecret('e2e-wrong-pw');
const TOKEN = randomSecret('e2e-token');
const ROTATED_TOKEN = randomSecret('e2e-rotated-token');
const WRONG_TOKEN = randomSecret('e2e-wrong-token');
const SECRETS = [
  PASSWORD, WRONG_PASSWORD, TOKEN, ROTATED_TOKEN, WRONG_TOKEN,
  Buffer.from(`ehpa:${PASSWORD}`).toString('base64'), Buffer.from(`ehpa:${WRONG_PASSWORD}`).toString('base64'),
];
// The VPA's history: a pod of Deployment "cache" that no longer exists, with a steady 400 MB working set
// (scenario 5's figure, test/e2e/vpa-recommender.test.ts); the live "cache" pods use no more than kwok's
// idle default (1Mi), so a recommendation near 400 MB can only come from the history read through the
// secured Prometheus.
const VPA_PATH = `/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalers`;
const CP_PATH = `/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalercheckpoints`;
const HISTORY_MEMORY = 400e6;

const ready = (o: Obj | undefined) => o?.status?.conditions?.find((c) => c.type === 'Ready');
const seconds = (fromMs: number) => ((Date.now() - fromMs) / 1000).toFixed(1);

interface Vpa {
  status?: { recommendation?: { containerRecommendations?: { containerName: string; target: Record<string, string> }[] } };
}

/** Bytes of a plain memory quantity as the recommender writes it ("483183820", "400Mi"). */
function bytes(q: string): number {
  const m = /^(\d+)(Ki|Mi|Gi|k|M|G)?$/.exec(q);
  expect(m, `plain quantity ${q}`).to.not.equal(null);
  const mult: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 };
  return Number(m![1]) * mult[m![2] ?? '']!;
}

describe('e2e: a secured Prometheus (TLS + basic auth, TLS + bearer token)', function () {
  this.timeout(600_000);
  const env = useCluster({
    traces: [
      { file: TRACE, namespace: NS, pod: 'web-7d9c8b6f5d-abcde', container: 'app', cpuScale: 0.1, lastPoints: 2 * 1440 + 120 },
      { file: TRACE, namespace: NS, pod: 'cache-6b8f9c7d5-qwert', container: 'app', cpuScale: 0.01, memBaseBytes: HISTORY_MEMORY, memBytesPerCore: 0, lastPoints: 2 * 1440 + 60, continueLive: false },
    ],
  });
  let secured: ManagedProcess;
  let securedUrl = '';
  let proxy: BearerProxy | undefined;
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
    const serverCert = () => issueCertificate({ commonName: 'prometheus', ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'], usage: 'server', notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 86_400_000) }, ca);
    const cert = serverCert();
    writeFileSync(join(dir, 'ca.pem'), ca.certPem);
    writeFileSync(join(dir, 'tls.crt'), cert.certPem);
    writeFileSync(join(dir, 'tls.key'), cert.keyPem);
    writeFileSync(join(dir, 'password'), `${PASSWORD}\n`);
    writeFileSync(join(dir, 'wrong-password'), `${WRONG_PASSWORD}\n`);
    writeFileSync(
      join(dir, 'web.yml'),
      ['tls_server_config:', `  cert_file: ${join(dir, 'tls.crt')}`, `  key_file: ${join(dir, 'tls.key')}`, 'basic_auth_users:', `  ehpa: '${bcryptHash(PASSWORD)}'`, ''].join('\n'),
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
    proxy = await startBearerProxy({ upstream: c.promUrl, cert: serverCert(), token: TOKEN });
    // The VPA's workload: live pods with no usage series of their own (their history pod is gone).
    await createDeployment(c, NS, 'cache', { replicas: 1, cpuRequest: '100m', memoryRequest: '1Gi' });
    await waitFor('cache pod', async () => (await podsOf(c, NS, 'app=cache')).length === 1, { timeoutMs: 120_000 });
    await post(c, VPA_PATH, {
      apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler',
      metadata: { name: 'cache', namespace: NS },
      spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'cache' }, updatePolicy: { updateMode: 'Off' }, recommenders: [{ name: 'ehpa-adapter' }] },
    });
  });

  after(async () => {
    await serve?.stop();
    await secured?.stop();
    await proxy?.close();
  });

  const basicAuthFlags = (passwordFile: string) => [
    `--prometheus-url=${securedUrl}`,
    `--prometheus-ca-file=${join(dir, 'ca.pem')}`,
    '--prometheus-username=ehpa',
    `--prometheus-password-file=${join(dir, passwordFile)}`,
    // The VPA recommender beside the TSP controller, reading the same Prometheus with the same flags, for
    // current usage too (`auto` would take metrics.k8s.io, which metrics-server serves on the kwok cluster).
    '--controllers=ehpa,tsp,vpa-recommender',
    '--recommender-usage-source=prometheus',
    '--recommender-interval=2s',
    '--history-length=3d',
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
  const readyWithSamples = async (name: string, timeoutMs = 240_000) => {
    const t = await waitObj(env.cluster, tspPath(NS, name), `TSP ${name} Ready`, (o) => ready(o)?.status === 'True', timeoutMs);
    const samples = (t.status?.['predictionMetrics'] as { prediction: { samples: unknown[] }[] }[])[0]!.prediction[0]!.samples;
    expect(samples.length).to.be.greaterThan(50);
  };
  const refused = (o: Obj) => ready(o)?.status === 'False' && /refused the credentials: HTTP 401/.test(ready(o)?.message ?? '');
  /** The serve log's records with this message, e.g. the recommender's history load. */
  const logged = (msg: string) => logRecords(serve!.logPath).filter((r) => r['msg'] === msg);

  it('with the CA, user and password file: the TSP is Ready from the secured Prometheus', async () => {
    serve = await startServe(env.cluster, 'serve-secured', basicAuthFlags('password'));
    await post(env.cluster, tspPath(NS), tsp('good'));
    await readyWithSamples('good');
  });

  it('the VPA recommender loads its start-up history through the same flags, and recommends from it', async () => {
    let loaded: Record<string, unknown> | undefined;
    await waitFor('history loaded', async () => (loaded = logged('vpa-recommender: loaded Prometheus history')[0]) !== undefined, { timeoutMs: 120_000 });
    console.log(`      history through the secured Prometheus: ${JSON.stringify(loaded)}`);
    // Two days of the gone pod's CPU and memory at the 1 h history resolution: some 48 samples of each.
    expect(loaded!['samples']).to.be.a('number').greaterThan(40);
    expect(logged('vpa-recommender: Prometheus history unavailable; starting without')).to.have.length(0);
    let target: string | undefined;
    await waitFor('VPA cache recommendation', async () => {
      const v = await env.cluster.admin.getJson<Vpa>(`${VPA_PATH}/cache`);
      target = v.status?.recommendation?.containerRecommendations?.find((r) => r.containerName === 'app')?.target['memory'];
      return target !== undefined;
    }, { timeoutMs: 120_000 });
    // p90 of the history's 400 MB peaks (upstream answers with its histogram bucket's end, at most 5% higher)
    // plus the 15% margin: only the history holds 400 MB; without it there is nothing to recommend from.
    expect(bytes(target!)).to.be.within(HISTORY_MEMORY * 1.15, HISTORY_MEMORY * 1.05 * 1.15);
  });

  let wrongPasswordServeStarted = 0;

  it('with a wrong password: the TSP condition names the refusal within a reconcile', async () => {
    const c = env.cluster;
    await serve?.stop();
    // The first serve checkpointed the VPA; without its checkpoint (as for a VPA new since the last run)
    // the next term needs the history, so a refused load matters to this VPA and must show on it.
    const cps = await c.admin.getJson<{ items: { metadata: { name: string } }[] }>(CP_PATH);
    expect(cps.items.map((i) => i.metadata.name)).to.include('cache-app');
    for (const cp of cps.items) expect((await c.admin.request('DELETE', `${CP_PATH}/${cp.metadata.name}`)).status).to.equal(200);
    const started = (wrongPasswordServeStarted = Date.now());
    serve = await startServe(c, 'serve-wrong-password', basicAuthFlags('wrong-password'));
    await post(c, tspPath(NS), tsp('refused'));
    const t0 = Date.now();
    const t = await waitObj(c, tspPath(NS, 'refused'), 'TSP refused', refused, 120_000);
    console.log(`      refusal reported ${seconds(t0)} s after create (${seconds(started)} s after serve start): ${ready(t)?.message}`);
  });

  it('with a wrong password: the refused VPA history load is FetchingHistory=False and a Warning event on the VPA, and logged; the loop goes on', async () => {
    let warned: Record<string, unknown> | undefined;
    await waitFor('history refused', async () => (warned = logged('vpa-recommender: Prometheus history unavailable; starting without')[0]) !== undefined, { timeoutMs: 120_000 });
    // Logged by the first loop of the term, seconds after start: the 401 ends the load, no timeout does.
    const afterStartMs = (warned!['time'] as number) - wrongPasswordServeStarted;
    console.log(`      VPA history refusal logged ${(afterStartMs / 1000).toFixed(1)} s after serve start: ${String(warned!['err'])}`);
    expect(afterStartMs).to.be.lessThan(60_000);
    expect(warned!['err']).to.match(/prometheus at https:\/\/127\.0\.0\.1:\d+ refused the credentials: HTTP 401/);
    expect(logged('vpa-recommender: loaded Prometheus history')).to.have.length(0);
    // On the object, as our TSPs report it: FetchingHistory=False naming the 401 (never the credential).
    const c = env.cluster;
    const v = await waitObj(c, `${VPA_PATH}/cache`, 'VPA cache FetchingHistory=False', (o) => condition(o, 'FetchingHistory')?.status === 'False', 60_000);
    const fh = condition(v, 'FetchingHistory')!;
    console.log(`      VPA condition: FetchingHistory=False ${fh.reason}: ${fh.message}`);
    expect(fh.reason).to.equal('HistoryUnavailable');
    expect(fh.message).to.match(/^Prometheus history could not be loaded when this recommender started: prometheus at https:\/\/127\.0\.0\.1:\d+ refused the credentials: HTTP 401\. /);
    const setMs = Date.parse((fh as { lastTransitionTime?: string }).lastTransitionTime ?? '') - wrongPasswordServeStarted;
    expect(setMs, 'condition set within a minute of serve start').to.be.lessThan(60_000);
    // And the Warning event upstream VPA components use for problems with an object.
    type Ev = { type: string; reason: string; message: string; involvedObject: { kind: string; name: string } };
    let ev: Ev | undefined;
    await waitFor('HistoryUnavailable event on VPA cache', async () => {
      const l = await c.admin.getJson<{ items: Ev[] }>(`/api/v1/namespaces/${NS}/events`);
      ev = l.items.find((e) => e.reason === 'HistoryUnavailable' && e.involvedObject.kind === 'VerticalPodAutoscaler' && e.involvedObject.name === 'cache');
      return ev !== undefined;
    }, { timeoutMs: 30_000 });
    expect(ev!.type).to.equal('Warning');
    expect(ev!.message).to.equal(fh.message);
    // Not stuck on it: the loop runs on after the failed load (it logs each run at debug).
    await waitFor('a recommender loop after the refusal', async () => logged('vpa-recommender loop done').length >= 2, { timeoutMs: 60_000 });
  });

  const bearerFlags = () => [
    `--prometheus-url=${proxy!.url}`,
    `--prometheus-ca-file=${join(dir, 'ca.pem')}`,
    `--prometheus-token-file=${join(dir, 'token')}`,
    // A short re-read interval instead of the minute a real deployment uses, so rotation shows in seconds.
    '--prometheus-credentials-reread-interval=2s',
  ];

  it('with a bearer token through a checking proxy: a wrong token is Ready=False naming the 401 at once; the corrected file is picked up without a restart', async () => {
    const c = env.cluster;
    await serve?.stop();
    writeFileSync(join(dir, 'token'), `${WRONG_TOKEN}\n`);
    serve = await startServe(c, 'serve-bearer', bearerFlags());
    await post(c, tspPath(NS), tsp('bearer'));
    const t0 = Date.now();
    // Seconds, not Prometheus' 3 m request timeout: the proxy's 401 ends the request at once.
    const t = await waitObj(c, tspPath(NS, 'bearer'), 'TSP bearer refused', refused, 30_000);
    console.log(`      wrong token reported ${seconds(t0)} s after create: ${ready(t)?.message}`);
    expect(proxy!.refused).to.be.greaterThan(0);
    // The mounted token is replaced (as the kubelet does with a projected token): the next reconcile uses it.
    const acceptedBefore = proxy!.accepted;
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
    const t1 = Date.now();
    // Within the 2 s re-read plus a 5 s reconcile or two; with the default minute it would take ~a minute.
    await readyWithSamples('bearer', 30_000);
    console.log(`      corrected token file picked up: TSP Ready ${seconds(t1)} s after the write`);
    expect(proxy!.accepted).to.be.greaterThan(acceptedBefore);
  });

  it('rotating the token: the proxy moves to a new one, the file follows, and a new TSP is Ready through it', async () => {
    const c = env.cluster;
    proxy!.setToken(ROTATED_TOKEN); // the old token is refused from here on
    const acceptedBefore = proxy!.accepted;
    writeFileSync(join(dir, 'token'), `${ROTATED_TOKEN}\n`);
    const t0 = Date.now();
    await post(c, tspPath(NS), tsp('bearer-rotated'));
    await readyWithSamples('bearer-rotated', 30_000);
    console.log(`      rotated token in use: TSP Ready ${seconds(t0)} s after the rotation`);
    // Only the rotated token gets through now, so these requests carried it.
    expect(proxy!.accepted).to.be.greaterThan(acceptedBefore);
  });

  it('no secret in any status, event or log, nor in any file of the repository (git grep)', async () => {
    const c = env.cluster;
    await serve?.stop();
    serve = undefined;
    const list = async (path: string) => JSON.stringify((await c.admin.getJson<{ items: unknown[] }>(path)).items);
    const everything = [
      await list(tspPath(NS)),
      await list(VPA_PATH),
      await list(`/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalercheckpoints`),
      await list(`/api/v1/namespaces/${NS}/events`),
      allLogs(c.logDir),
    ].join('\n');
    // The scan reads what it should: the serve logs are there, with the refusals.
    expect(everything).to.contain('refused the credentials: HTTP 401');
    expect(everything).to.contain('"reason":"HistoryUnavailable"'); // the VPA's condition and event are in it
    for (const secret of SECRETS) expect(everything, 'a secret leaked').to.not.contain(secret);
    // The grep reads the repository (a string this file holds is found), and none of the secrets is there.
    expect(gitGrepFiles(REPO_ROOT, ['prometheus-credentials-reread-interval'])).to.include('test/e2e/secured-prometheus.test.ts');
    expect(gitGrepFiles(REPO_ROOT, SECRETS)).to.deep.equal([]);
  });
});
