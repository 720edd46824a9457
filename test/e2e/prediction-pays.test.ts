// End-to-end: prediction pays, or steps aside (the default, --prediction-pays=enforce). Two workloads with
// two days of real history backfilled in Prometheus: a daily Crane trace (input11), whose forecast beats a
// plain HPA at the same cost on a replay of that history, and an aperiodic, bursty one (input4), whose
// forecast costs more than a plain HPA that is as short. On the real control plane: the first EHPA shows
// PredictionPays=True and its HPA scales on the forecast ahead of the load; the second shows
// PredictionPays=False/SteppedAside, the adapter serves 0 for crane_pod_cpu_usage (a metric at 0 asks for
// no replicas), and its HPA stays where the CPU metric alone puts it.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createDeployment, createNamespace, parseTraceCsv, waitHpa, type AdapterProcess } from './harness/index.ts';
import { CRANE_TRACES, useCluster } from './helpers.ts';
import { startPodCpu, type PodCpu } from './pod-cpu.ts';
import { ehpaObject, ehpaPath, installForServe, post, quantityMilli, startServe, tspPath, waitObj, type Obj } from './scenario-helpers.ts';

const LAST_POINTS = 2 * 1440 + 120;
const CPU_SCALE = 0.1;
const MAX_REPLICAS = 8;
const UID_LABEL = 'autoscaling.crane.io/effective-hpa-uid';
const WORKLOADS = [
  { ns: 'pays-daily', trace: 'input11.csv' },
  { ns: 'pays-bursty', trace: 'input4.csv' },
] as const;

const traceFile = (name: string) => fileURLToPath(new URL(name, CRANE_TRACES));

/** A request that puts the last day's largest hour at ~3 pods at the 50 % target (away from min and max). */
function requestMilliFor(file: string): number {
  const pts = parseTraceCsv(readFileSync(file, 'utf8')).slice(-LAST_POINTS);
  const peak = Math.max(...pts.slice(-1440).map((p) => p.value * CPU_SCALE));
  return Math.max(20, Math.round(((peak * 1000) / 3) * 2));
}

const condition = (o: Obj, type: string) => (o.status?.conditions as { type: string; status: string; reason: string; message: string }[] | undefined)?.find((c) => c.type === type);

describe('e2e: prediction pays, or steps aside', function () {
  this.timeout(600_000);
  const env = useCluster({
    traces: WORKLOADS.map((w) => ({ file: traceFile(w.trace), namespace: w.ns, pod: 'web-7d9c8b6f5d-abcde', container: 'app', cpuScale: CPU_SCALE, lastPoints: LAST_POINTS })),
  });
  let serve: AdapterProcess;
  let podCpu: PodCpu;

  before(async function () {
    this.timeout(300_000);
    const c = env.cluster;
    await installForServe(c);
    // The live pods idle at 1m each: the Resource CPU metric alone asks for minReplicas.
    podCpu = startPodCpu(c);
    for (const w of WORKLOADS) {
      podCpu.setCpu(w.ns, () => 1);
      await createNamespace(c, w.ns);
      await createDeployment(c, w.ns, 'web', { replicas: 1, cpuRequest: `${requestMilliFor(traceFile(w.trace))}m` });
    }
    serve = await startServe(c, 'serve-pays', ['--prediction-pays=enforce']);
    for (const w of WORKLOADS) {
      await post(c, ehpaPath(w.ns), ehpaObject(w.ns, 'web', 'web', {
        minReplicas: 1, maxReplicas: MAX_REPLICAS,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
        prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d' } } },
      }));
    }
  });

  after(async () => {
    await serve?.stop();
    await podCpu?.close();
  });

  it('the daily trace: PredictionPays=True with the replayed figures, and the HPA scales on the forecast', async () => {
    const c = env.cluster;
    const ns = 'pays-daily';
    const tsp = await waitObj(c, tspPath(ns, 'ehpa-web'), 'TSP judged', (t) => condition(t, 'PredictionPays') !== undefined, 240_000);
    const pays = condition(tsp, 'PredictionPays');
    console.log(`      ${ns}: PredictionPays ${pays?.status}/${pays?.reason}: ${pays?.message}`);
    expect(pays, JSON.stringify(tsp.status?.conditions)).to.include({ status: 'True', reason: 'ForecastPays' });
    expect(pays!.message).to.match(/^crane_pod_cpu_usage: pays over the last [\d.]+ h replayed: with the forecast the HPA was short [\d.]+ min at [\d.]+× the plain HPA's capacity/);
    const metric = (tsp.status?.predictionMetrics as { resourceIdentifier: string; stepAside?: string }[]).find((m) => m.resourceIdentifier === 'crane_pod_cpu_usage');
    expect(metric).to.not.have.property('stepAside');
    // The EHPA shows the verdict and that the forecast is what its HPA reads.
    const ehpa = await waitObj(c, ehpaPath(ns, 'web'), 'EHPA PredictionPays', (o) => condition(o, 'PredictionPays')?.status === 'True' && condition(o, 'PredictionFallback')?.reason === 'ForecastServed', 120_000);
    expect(condition(ehpa, 'PredictionPays')?.message).to.equal(pays!.message);
    // The live pods idle at 1m, so CPU alone asks for 1 replica: more is the forecast of the coming hour.
    const h = await waitHpa(c, ns, 'ehpa-web', 'scaled on the forecast', (x) => (x.status?.desiredReplicas ?? 0) > 1, 300_000);
    const cpu = (h.status!.currentMetrics as { type: string; resource?: { current: { averageValue?: string } } }[] | undefined)?.find((m) => m.type === 'Resource');
    expect(quantityMilli(cpu?.resource?.current.averageValue ?? '0')).to.be.within(0, 5);
  });

  it('the bursty trace: PredictionPays=False/SteppedAside; 0 is served, and the HPA stays where CPU alone puts it', async () => {
    const c = env.cluster;
    const ns = 'pays-bursty';
    const tsp = await waitObj(c, tspPath(ns, 'ehpa-web'), 'TSP judged', (t) => condition(t, 'PredictionPays') !== undefined, 240_000);
    const pays = condition(tsp, 'PredictionPays');
    console.log(`      ${ns}: PredictionPays ${pays?.status}/${pays?.reason}: ${pays?.message}`);
    expect(pays, JSON.stringify(tsp.status?.conditions)).to.include({ status: 'False', reason: 'SteppedAside' });
    const metric = (tsp.status?.predictionMetrics as { resourceIdentifier: string; ready: boolean; stepAside?: string; prediction: { samples: unknown[] }[] }[]).find((m) => m.resourceIdentifier === 'crane_pod_cpu_usage')!;
    // The forecast is still published, to be watched; it is just not served.
    expect(metric.ready).to.equal(true);
    expect(metric.prediction[0]!.samples.length).to.be.greaterThan(0);
    expect(metric.stepAside).to.be.a('string').and.not.equal('');
    const ehpa = await waitObj(c, ehpaPath(ns, 'web'), 'EHPA steps aside', (o) => condition(o, 'PredictionPays')?.reason === 'SteppedAside' && condition(o, 'PredictionFallback')?.reason === 'PredictionSteppedAside', 120_000);
    expect(condition(ehpa, 'PredictionFallback')?.message).to.match(/^crane_pod_cpu_usage reads 0 while the forecast steps aside, so the HPA scales on its other metrics as a plain HPA would: /);
    // What crane_pod_cpu_usage answers is 0 for every pod: neither the forecast nor a second reading of usage.
    const uid = (ehpa.metadata as { uid: string }).uid;
    const q = `labelSelector=${encodeURIComponent('app=web')}&metricLabelSelector=${encodeURIComponent(`${UID_LABEL}=${uid}`)}`;
    const path = `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${ns}/pods/*/crane_pod_cpu_usage?${q}`;
    const served = await waitObj(c, path, '0 served', (o) => ((o as unknown as { items?: unknown[] }).items?.length ?? 0) > 0, 180_000);
    for (const i of (served as unknown as { items: { value: string }[] }).items) expect(quantityMilli(i.value), JSON.stringify(i)).to.equal(0);
    // The HPA reads both metrics and wants what CPU alone wants: 1.
    const h = await waitHpa(c, ns, 'ehpa-web', 'reads both metrics', (x) => ((x.status?.currentMetrics as unknown[] | undefined)?.length ?? 0) === 2, 300_000);
    expect(h.status?.desiredReplicas, JSON.stringify(h.status)).to.equal(1);
    expect(serve.running).to.equal(true);
  });
});
