// End-to-end scenario, Faults, with `ehpa-adapter serve` as its own process behind the aggregator:
//  - Prometheus stopped: the TimeSeriesPrediction goes not-Ready, crane_pod_cpu_usage is unavailable, the
//    real HPA keeps scaling on the EHPA's original Resource CPU metric (the real metrics-server reading kwok's
//    kubelet endpoints, which does not depend on Prometheus), serve stays up; Prometheus back: it recovers.
//  - kube-apiserver restarted: serve's watches resume (an EHPA created afterwards gets its HPA), nothing lost.
//  - serve SIGKILLed while it writes, then restarted: one HPA and one TSP per EHPA, statuses consistent.
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { createDeployment, createNamespace, waitFor, waitHpa, waitReplicas, type AdapterProcess, type HpaState } from './harness/index.ts';
import { CRANE_TRACES, sleep, useCluster } from './helpers.ts';
import { startPodCpu, type PodCpu } from './pod-cpu.ts';
import { condition, ehpaObject, ehpaPath, exists, hpaPath, installForServe, post, startServe, tspPath, waitObj, type Obj } from './scenario-helpers.ts';

const NS = 'faults';
const TRACE = fileURLToPath(new URL('input1.csv', CRANE_TRACES));
const cpu50 = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } };
// A TSP refreshes only when its status stops covering [now, now + window] (Crane's rule), and rebuilds its
// model from Prometheus only once the model is older than --model-update-interval (12 h by default; until
// then a Prometheus outage rightly goes unnoticed). A 60 s window and a 20 s model interval make an outage
// show within about a minute.
const SERVE_ARGS = ['--model-update-interval=20s'];
const shortPrediction = { predictionWindowSeconds: 60, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d' } } };
const prediction = { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d' } } };

/** serve's informer syncs so far by mode (ehpa_adapter_informer_syncs_total summed over resources). */
async function informerSyncs(metricsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const out = new Map<string, number>();
  for (const [, mode, n] of text.matchAll(/^ehpa_adapter_informer_syncs_total\{resource="[^"]*",mode="([^"]*)"\} (\S+)$/gm)) out.set(mode!, (out.get(mode!) ?? 0) + Number(n));
  return out;
}

describe('e2e scenario 7: faults', function () {
  this.timeout(600_000);
  // Pods scheduled onto a kwok node by kube-scheduler; metrics.k8s.io from the real metrics-server.
  const env = useCluster({
    traces: [{ file: TRACE, namespace: NS, pod: 'web-7d9c8b6f5d-abcde', container: 'app', cpuScale: 0.01, lastPoints: 2 * 1440 + 120 }],
  });
  let serve: AdapterProcess;
  let podCpu: PodCpu;
  // The workload's total CPU in millicores, spread evenly over its pods: kwok reports it per pod to both
  // metrics-server and Prometheus (the observed-usage fallback once the forecast is gone reads the latter).
  let totalMilli = 100;

  const list = async (path: string) => (await env.cluster.admin.getJson<{ items: Obj[] }>(path)).items;

  before(async function () {
    this.timeout(300_000);
    const c = env.cluster;
    await installForServe(c);
    podCpu = startPodCpu(c);
    // Other workloads of the namespace idle at 10m per pod.
    podCpu.setCpu(NS, (pod, n) => (pod.startsWith('web-') ? totalMilli / n : 10));
    await createNamespace(c, NS);
    await createDeployment(c, NS, 'web', { replicas: 1, cpuRequest: '200m' });
    await createDeployment(c, NS, 'late', { replicas: 1, cpuRequest: '200m' });
    serve = await startServe(c, 'serve-faults-1', SERVE_ARGS);
    await post(c, ehpaPath(NS), ehpaObject(NS, 'web', 'web', { minReplicas: 1, maxReplicas: 6, metrics: [cpu50], prediction: shortPrediction }));
    await waitObj(c, tspPath(NS, 'ehpa-web'), 'TSP Ready', (t) => condition(t, 'Ready')?.status === 'True', 240_000);
  });

  after(async () => {
    await podCpu?.close();
  });

  it('Prometheus stopped: prediction not ready, the HPA keeps scaling on the original CPU metric, serve stays up; then it recovers', async () => {
    const c = env.cluster;
    // Before the fault the HPA reads both its metrics.
    await waitHpa(c, NS, 'ehpa-web', 'both metrics read', (h) => (h.status?.currentMetrics?.length ?? 0) === 2, 180_000);
    await c.stopPrometheus();
    try {
      const tsp = await waitObj(c, tspPath(NS, 'ehpa-web'), 'TSP not Ready', (t) => condition(t, 'Ready')?.status === 'False', 180_000);
      expect(condition(tsp, 'Ready')!.reason).to.equal('PredictFailed');
      await waitObj(c, ehpaPath(NS, 'web'), 'EHPA PredictionReady False', (o) => condition(o, 'PredictionReady')?.status === 'False');
      // The load rises: 400m over 200m-request pods at a 50 % target needs 4 pods. Only the Resource metric can
      // say so now; crane_pod_cpu_usage has neither a forecast nor observed usage (both live in Prometheus).
      totalMilli = 400;
      await waitReplicas(c, NS, 'web', 4, 240_000);
      // Once the 4 pods report, the next sync shows 100m each = 50 % of the request: on target, holding at 4.
      const utilization = (x: HpaState) => ((x.status?.currentMetrics ?? []) as { type: string; resource?: { current: { averageUtilization: number } } }[]).find((m) => m.type === 'Resource')?.resource?.current.averageUtilization;
      const h = await waitHpa(c, NS, 'ehpa-web', 'desired 4 at 50 % on the Resource metric', (x) => x.status?.desiredReplicas === 4 && x.status.currentReplicas === 4 && utilization(x) === 50, 120_000);
      expect(h.status!.conditions!.find((k) => k.type === 'ScalingActive')?.status).to.equal('True');
      // Meanwhile crane_pod_cpu_usage is unavailable (the HPA status keeps that metric's last value, so ask directly).
      const direct = await c.admin.get(`/apis/custom.metrics.k8s.io/v1beta2/namespaces/${NS}/pods/*/crane_pod_cpu_usage?labelSelector=app%3Dweb&metricLabelSelector=${encodeURIComponent(`autoscaling.crane.io/effective-hpa-uid=${(await c.admin.getJson<Obj>(ehpaPath(NS, 'web'))).metadata.uid}`)}`);
      expect(direct.status, direct.body).to.equal(503);
      expect(serve.running).to.equal(true);
      expect((await fetch(`${serve.metricsUrl}/healthz`)).status).to.equal(200);
    } finally {
      await c.startPrometheus();
    }
    await waitObj(c, tspPath(NS, 'ehpa-web'), 'TSP Ready again', (t) => condition(t, 'Ready')?.status === 'True', 180_000);
    await waitObj(c, ehpaPath(NS, 'web'), 'EHPA PredictionReady again', (o) => condition(o, 'PredictionReady')?.status === 'True');
    // crane_pod_cpu_usage is read again next to the Resource metric.
    await waitHpa(c, NS, 'ehpa-web', 'both metrics read again', (h) => ((h.status?.currentMetrics ?? []) as { type: string }[]).some((m) => m.type === 'Pods'), 180_000);
    expect(serve.running).to.equal(true);
  });

  it('kube-apiserver restarted: watches resume and no object is lost', async () => {
    const c = env.cluster;
    const before = { ehpa: await c.admin.getJson<Obj>(ehpaPath(NS, 'web')), hpa: await c.admin.getJson<Obj>(hpaPath(NS, 'ehpa-web')), tsp: await c.admin.getJson<Obj>(tspPath(NS, 'ehpa-web')) };
    const syncsBefore = await informerSyncs(serve.metricsUrl);
    // kube-apiserver 1.34 streams lists (its WatchList gate is on): serve's informers fill their caches
    // from one watch each, never from LIST pages.
    expect(syncsBefore.get('list'), 'no informer listed in pages').to.equal(undefined);
    expect(syncsBefore.get('watch-list')).to.be.at.least(5);
    await c.restartApiserver();
    await c.waitMetricsApisAvailable(120_000);
    // Created after the restart: only a resumed watch (or relist) lets serve see it.
    await post(c, ehpaPath(NS), ehpaObject(NS, 'late', 'late', { minReplicas: 2, maxReplicas: 3, metrics: [cpu50] }));
    await waitObj(c, hpaPath(NS, 'ehpa-late'), 'HPA for the EHPA created after the restart', () => true, 120_000);
    await waitReplicas(c, NS, 'late', 2, 120_000);
    // Nothing lost or replaced.
    expect((await c.admin.getJson<Obj>(ehpaPath(NS, 'web'))).metadata.uid).to.equal(before.ehpa.metadata.uid);
    expect((await c.admin.getJson<Obj>(hpaPath(NS, 'ehpa-web'))).metadata.uid).to.equal(before.hpa.metadata.uid);
    expect((await c.admin.getJson<Obj>(tspPath(NS, 'ehpa-web'))).metadata.uid).to.equal(before.tsp.metadata.uid);
    // serve still answers for the old EHPA too (its informers hold it after the restart).
    await waitHpa(c, NS, 'ehpa-web', 'web still scaling', (h) => condition(h as unknown as Obj, 'ScalingActive')?.status === 'True');
    expect(serve.running).to.equal(true);
    // The restarted watch cache starts at the current etcd revision and answers 410 to the informers'
    // older ones; they sync again by streaming list, still without a LIST.
    const syncsAfter = await informerSyncs(serve.metricsUrl);
    expect(syncsAfter.get('list'), 'no informer listed in pages').to.equal(undefined);
    expect(syncsAfter.get('watch-list'), 'informers synced again after the restart').to.be.above(syncsBefore.get('watch-list')!);
  });

  it('serve SIGKILLed mid-write and restarted: one HPA and one TSP per EHPA, statuses consistent', async () => {
    const c = env.cluster;
    const names = ['k1', 'k2', 'k3', 'k4'];
    for (const n of names) await createDeployment(c, NS, n, { replicas: 1, cpuRequest: '100m' });
    // A serve held to 4 API requests/s (burst 1) needs several seconds for the 8 creates and the status
    // writes, so a kill right after its first HPA appears lands with writes outstanding, however loaded
    // the machine; the counts below prove it did.
    await serve.stop();
    serve = await startServe(c, 'serve-faults-throttled', [...SERVE_ARGS, '--kube-api-qps=4', '--kube-api-burst=1']);
    const ours = (objs: Obj[]) => objs.filter((o) => names.includes(o.metadata.name.replace(/^ehpa-/, ''))).length;
    await Promise.all(names.map((n) => post(c, ehpaPath(NS), ehpaObject(NS, n, n, { minReplicas: 2, maxReplicas: 3, metrics: [cpu50], prediction }))));
    await waitFor('serve began writing', async () => ours(await list(hpaPath(NS))) > 0, { timeoutMs: 60_000, intervalMs: 100 });
    await serve.kill();
    expect(serve.running).to.equal(false);
    const hpasAtKill = ours(await list(hpaPath(NS)));
    const tspsAtKill = ours(await list(tspPath(NS)));
    expect(hpasAtKill, 'HPAs written before the kill').to.be.at.least(1);
    expect(hpasAtKill + tspsAtKill, `the kill landed mid-write (${hpasAtKill} HPAs, ${tspsAtKill} TSPs of ${names.length} each)`).to.be.below(2 * names.length);
    const partial = hpasAtKill;
    await sleep(1000);
    serve = await startServe(c, 'serve-faults-2', SERVE_ARGS);
    const all = ['web', 'late', ...names];
    for (const n of names) {
      await waitObj(c, ehpaPath(NS, n), `EHPA ${n} Ready`, (o) => condition(o, 'Ready')?.status === 'True', 180_000);
      await waitReplicas(c, NS, n, 2, 180_000);
    }
    // Exactly one HPA and one TSP per EHPA, each owned by its live EHPA.
    const ehpas = await list(ehpaPath(NS));
    const uidOf = new Map(ehpas.map((e) => [e.metadata.name, e.metadata.uid]));
    expect([...uidOf.keys()].sort()).to.deep.equal([...all].sort());
    const hpas = await list(hpaPath(NS));
    expect(hpas.map((h) => h.metadata.name).sort(), `${partial} HPAs when killed`).to.deep.equal(all.map((n) => `ehpa-${n}`).sort());
    for (const h of hpas) {
      const owner = h.metadata.ownerReferences?.filter((o) => o.kind === 'EffectiveHorizontalPodAutoscaler') ?? [];
      expect(owner.map((o) => o.uid)).to.deep.equal([uidOf.get(h.metadata.name.replace(/^ehpa-/, ''))]);
    }
    const tsps = await list(tspPath(NS));
    expect(tsps.map((t) => t.metadata.name).sort()).to.deep.equal(['web', ...names].map((n) => `ehpa-${n}`).sort());
    // Status after the restart: the conditions are there and expectReplicas follows the HPA.
    for (const n of names) {
      // The forecast can land after the replicas settle (the restarted serve rebuilds it from Prometheus, slower
      // on a loaded machine): wait for the conditions too rather than catching the EHPA in between.
      const e = await waitObj(c, ehpaPath(NS, n), `EHPA ${n} status follows its HPA and its forecast`, (o) =>
        o.status?.['expectReplicas'] === 2 && o.status?.['currentReplicas'] === 2 && ['Ready', 'PredictionReady', 'AbleToScale'].every((t) => condition(o, t) !== undefined), 120_000);
      const types = (e.status!.conditions ?? []).map((x) => x.type);
      expect(types).to.include.members(['Ready', 'PredictionReady', 'AbleToScale']);
      expect(await exists(c, tspPath(NS, `ehpa-${n}`))).to.equal(true);
    }
    expect(serve.running).to.equal(true);
  });

  after(async () => {
    await serve?.stop();
  });
});
