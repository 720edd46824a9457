// End-to-end, prediction of metrics other than CPU, as Crane predicts them: an EHPA with a Resource memory metric
// (Utilization, converted from the pods' memory requests) and a Pods metric `http_requests` (queried through
// the `metric-query.autoscaling.crane.io/pods.http_requests` annotation), both backfilled in Prometheus from a
// real daily trace (Crane's input1.csv). One TSP gets Ready with both entries; the adapter serves them
// through the aggregator under the v0.6–v0.7 name (`crane_custom.pods_http_requests`) and HEAD's
// (`crane_autoscaling_prediction{…, resourceIdentifier}`); the real HPA's desiredReplicas is the upstream
// replica arithmetic (src/hpa/replica-calculator.ts) on the served values; with the forecast removed, the
// observed values of the same queries keep the HPA scaling.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createDeployment, createNamespace, parseTraceCsv, queryInstant, waitFor, waitHpa, type AdapterProcess, type HpaState } from './harness/index.ts';
import { CRANE_TRACES, useCluster } from './helpers.ts';
import { startPodCpu, type PodCpu } from './pod-cpu.ts';
import { condition, ehpaObject, ehpaPath, externalItems, hpaPath, installForServe, post, quantityMilli, startServe, tspPath, waitObj, type Obj } from './scenario-helpers.ts';
import { maxForecastInWindow } from '../../src/metric-values/forecast-window.ts';
import { externalAverageValueReplicas, podsAverageValueReplicas } from '../../src/hpa/replica-calculator.ts';
import type { TimeSeriesPrediction } from '../../src/api/prediction.ts';

const NS = 'multi';
const TRACE = fileURLToPath(new URL('input1.csv', CRANE_TRACES));
const CPU_SCALE = 0.1;
const MEM_BASE = 200 * 2 ** 20;
const MEM_PER_CORE = 400 * 2 ** 20;
const HTTP_SCALE = 10; // trace unit -> requests per second
const LAST_POINTS = 2 * 1440 + 120;
const WINDOW_S = 3600;
const MAX_REPLICAS = 8;
const BACKFILL_POD = 'web-7d9c8b6f5d-abcde';
const UID_LABEL = 'autoscaling.crane.io/effective-hpa-uid';
const HTTP_QUERY = `sum(http_requests{namespace="${NS}"})`;

// The next hour's forecast of a daily trace is close to the same hour a day earlier: size the memory request
// so that maximum wants ~3 pods at 50 %, and the http target so it wants ~2 (the assertions use what is served).
const dayAgo = parseTraceCsv(readFileSync(TRACE, 'utf8')).slice(-LAST_POINTS).slice(-1440, -1440 + 62).map((p) => p.value);
const peak = Math.max(...dayAgo);
const MEM_REQUEST_MI = Math.max(64, Math.round((((MEM_BASE + MEM_PER_CORE * peak * CPU_SCALE) / 2 ** 20) / 3) * 2));
const HTTP_TARGET = Math.max(1, Math.round((peak * HTTP_SCALE) / 2));

describe('e2e: prediction of memory and a Pods metric', function () {
  this.timeout(900_000);
  // Pods on a kwok node (kube-scheduler binds them); metrics.k8s.io from the real metrics-server.
  const env = useCluster({
    traces: [{ file: TRACE, namespace: NS, pod: BACKFILL_POD, container: 'app', cpuScale: CPU_SCALE, memBaseBytes: MEM_BASE, memBytesPerCore: MEM_PER_CORE, lastPoints: LAST_POINTS }],
    gaugeTraces: [{ file: TRACE, name: 'http_requests', labels: { namespace: NS, pod: BACKFILL_POD }, scale: HTTP_SCALE, lastPoints: LAST_POINTS }],
  });
  let serve: AdapterProcess;
  let podCpu: PodCpu;
  let uid = '';
  const podsV07 = () => `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${NS}/pods/*/crane_custom.pods_http_requests?labelSelector=${encodeURIComponent('app=web')}&metricLabelSelector=${encodeURIComponent(`${UID_LABEL}=${uid}`)}`;
  const head = (rid: string) =>
    `/apis/external.metrics.k8s.io/v1beta1/namespaces/${NS}/crane_autoscaling_prediction?labelSelector=${encodeURIComponent(`targetKind=Deployment,targetName=web,targetNamespace=${NS},resourceIdentifier=${rid}`)}`;

  before(async function () {
    this.timeout(300_000);
    const c = env.cluster;
    await installForServe(c);
    // The original Resource memory metric reads metrics.k8s.io: kwok reports 1Mi per pod (its default), so on its
    // own it wants 1 replica; the original Pods metric has no provider here (the HPA ignores it for scale-up).
    podCpu = startPodCpu(c);
    podCpu.setCpu(NS, () => 1);
    await createNamespace(c, NS);
    await createDeployment(c, NS, 'web', { replicas: 1, cpuRequest: '100m', memoryRequest: `${MEM_REQUEST_MI}Mi` });
    serve = await startServe(c, 'serve-multi-1');
  });

  after(async () => {
    await serve?.stop();
    await podCpu?.close();
  });

  it('gets one Ready TSP with a resource.memory and a pods.http_requests entry', async () => {
    const c = env.cluster;
    const e = await post(c, ehpaPath(NS), {
      ...ehpaObject(NS, 'web', 'web', {
        minReplicas: 1, maxReplicas: MAX_REPLICAS,
        metrics: [
          { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 50 } } },
          { type: 'Pods', pods: { metric: { name: 'http_requests' }, target: { type: 'AverageValue', averageValue: String(HTTP_TARGET) } } },
        ],
        prediction: { predictionWindowSeconds: WINDOW_S, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d' } } },
      }),
      metadata: { name: 'web', namespace: NS, annotations: { 'metric-query.autoscaling.crane.io/pods.http_requests': HTTP_QUERY } },
    });
    uid = e.metadata.uid;
    const tsp = await waitObj(c, tspPath(NS, 'ehpa-web'), 'TSP Ready', (t) => condition(t, 'Ready')?.status === 'True', 300_000);
    const spec = (tsp.spec as { predictionMetrics: { resourceIdentifier: string; type: string }[] }).predictionMetrics;
    expect(spec.map((m) => [m.resourceIdentifier, m.type])).to.deep.equal([['resource.memory', 'ResourceQuery'], ['pods.http_requests', 'ExpressionQuery']]);
    const m = tsp.status!['predictionMetrics'] as { resourceIdentifier: string; ready: boolean; prediction: { samples: unknown[] }[] }[];
    for (const rid of ['resource.memory', 'pods.http_requests']) {
      const x = m.find((y) => y.resourceIdentifier === rid);
      expect(x?.ready, rid).to.equal(true);
      expect(x!.prediction[0]!.samples.length, rid).to.be.greaterThan(50);
    }
    const ehpa = await waitObj(c, ehpaPath(NS, 'web'), 'EHPA MetricsPredicted', (o) => condition(o, 'MetricsPredicted')?.status === 'True');
    expect(condition(ehpa, 'MetricsPredicted')!.reason).to.equal('AllMetricsPredicted');
    // The backing HPA: originals first, then the v0.7 Pods name and HEAD's External name.
    const hpa = await c.admin.getJson<{ spec: { metrics: { type: string; pods?: { metric: { name: string } }; external?: { metric: { name: string; selector: { matchLabels: Record<string, string> } }; target: { averageValue: string } } }[] } }>(hpaPath(NS, 'ehpa-web'));
    expect(hpa.spec.metrics.map((x) => x.pods?.metric.name ?? x.external?.metric.name ?? x.type)).to.deep.equal(['Resource', 'http_requests', 'crane_autoscaling_prediction', 'crane_custom.pods_http_requests']);
    expect(hpa.spec.metrics[2]!.external!.metric.selector.matchLabels).to.deep.equal({ targetKind: 'Deployment', targetName: 'web', targetNamespace: NS, resourceIdentifier: 'resource.memory' });
    // One available pod requesting MEM_REQUEST_MI at 50 %: the converted per-pod target, in bytes.
    expect(quantityMilli(hpa.spec.metrics[2]!.external!.target.averageValue)).to.equal(MEM_REQUEST_MI * 2 ** 20 * 500);
  });

  /** Largest forecast of `rid` in the window at either end of a call (the window moves while we ask). */
  async function forecastBounds(rid: string, call: () => Promise<void>): Promise<number[]> {
    const tsp = (await env.cluster.admin.getJson<Obj>(tspPath(NS, 'ehpa-web'))) as unknown as TimeSeriesPrediction;
    const t0 = Date.now();
    await call();
    const t1 = Date.now();
    const metric = tsp.status!.predictionMetrics!.find((x) => x.resourceIdentifier === rid)!;
    return [t0, t1].map((t) => {
      const w = maxForecastInWindow(metric, t, WINDOW_S);
      if (!w.ok) throw new Error(w.problem.message);
      return w.largest;
    });
  }

  it('the adapter serves both forecasts through the aggregator, http_requests under the v0.7 and HEAD names', async () => {
    const c = env.cluster;
    await waitObj(c, podsV07(), 'crane_custom.pods_http_requests served', () => true, 120_000);
    let pods: { value: string }[] = [];
    const httpBounds = await forecastBounds('pods.http_requests', async () => {
      const r = await c.admin.get(podsV07());
      expect(r.status, r.body).to.equal(200);
      pods = (r.json as { items: { value: string }[] }).items;
    });
    expect(pods.length).to.be.greaterThan(0);
    // Each available pod gets round(largest × 1000 / pods) milli-requests.
    const allowed = httpBounds.map((b) => Math.round((b * 1000) / pods.length));
    for (const p of pods) expect(allowed).to.include(quantityMilli(p.value));
    let headHttp = 0;
    const headBounds = await forecastBounds('pods.http_requests', async () => {
      const r = await c.admin.get(head('pods.http_requests'));
      expect(r.status, r.body).to.equal(200);
      headHttp = quantityMilli(externalItems(r.json)[0]!.value);
    });
    expect(headBounds.map((b) => Math.ceil(Number(b.toPrecision(7)) * 1000))).to.include(headHttp);
    let mem = 0;
    const memBounds = await forecastBounds('resource.memory', async () => {
      const r = await c.admin.get(head('resource.memory'));
      expect(r.status, r.body).to.equal(200);
      mem = quantityMilli(externalItems(r.json)[0]!.value);
    });
    expect(memBounds.map((b) => Math.ceil(Number(b.toPrecision(7)) * 1000))).to.include(mem);
    // A working set of a few hundred MiB, as backfilled.
    expect(mem / 1000).to.be.within(MEM_BASE, MEM_BASE + MEM_PER_CORE * 3);
  });

  /**
   * Waits until the HPA has settled on what is served now and returns the served values with the HPA: every
   * pod served, current = desired, and the HPA's shown averages match the served ones.
   */
  async function settled(what: string, timeoutMs: number, minExpected = 0): Promise<{ hpa: HpaState; podMilli: number[]; memMilli: number; expected: number }> {
    const c = env.cluster;
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      const pr = await c.admin.get(podsV07());
      const mr = await c.admin.get(head('resource.memory'));
      const hpa = await waitHpa(c, NS, 'ehpa-web', 'read', () => true);
      if (pr.status === 200 && mr.status === 200 && hpa.status?.currentReplicas) {
        const podMilli = (pr.json as { items: { value: string }[] }).items.map((i) => quantityMilli(i.value));
        const memMilli = quantityMilli(externalItems(mr.json)[0]!.value);
        const current = hpa.status.currentReplicas;
        const podsProposal = podsAverageValueReplicas({ currentReplicas: current, podMilli, targetMilli: HTTP_TARGET * 1000 }).replicas;
        const memTargetMilli = MEM_REQUEST_MI * 2 ** 20 * 500;
        const memProposal = externalAverageValueReplicas({ statusReplicas: current, sumMilli: memMilli, targetMilli: memTargetMilli });
        // The original memory metric (1Mi of the request) proposes 1; the original http_requests has no value.
        const expected = Math.min(MAX_REPLICAS, Math.max(1, podsProposal, memProposal));
        const shown = (hpa.status.currentMetrics as { type: string; pods?: { metric: { name: string }; current: { averageValue: string } } }[] | undefined)
          ?.find((m) => m.type === 'Pods' && m.pods?.metric.name === 'crane_custom.pods_http_requests')?.pods?.current.averageValue;
        const avg = Math.floor(podMilli.reduce((a, b) => a + b, 0) / Math.max(1, podMilli.length));
        const synced = shown !== undefined && Math.abs(quantityMilli(shown) - avg) <= Math.ceil(avg * 0.05) + 1;
        last = `served pods ${JSON.stringify(podMilli)} mem ${memMilli}m; HPA current ${current} desired ${hpa.status.desiredReplicas} shows ${shown}; expected ${expected}`;
        if (podMilli.length === current && hpa.status.desiredReplicas === current && synced && expected === current && expected >= minExpected) return { hpa, podMilli, memMilli, expected };
      }
      if (Date.now() > deadline) throw new Error(`${what}: not settled: ${last}`);
      await new Promise((r) => setTimeout(r, 3000));
    }
  }

  it('the real HPA\'s desiredReplicas is the replica arithmetic on the served forecasts', async () => {
    const r = await settled('on the forecasts', 420_000);
    expect(r.hpa.status!.desiredReplicas).to.equal(r.expected);
    expect(r.expected, 'the forecasts scale the workload up from 1').to.be.greaterThan(1);
    const active = r.hpa.status!.conditions!.find((k) => k.type === 'ScalingActive');
    expect(active?.status).to.equal('True');
    expect(serve.running).to.equal(true);
  });

  it('with the forecast removed, the observed values of the same queries keep the HPA scaling', async () => {
    const c = env.cluster;
    // No more forecasts: serve restarts without the TSP controller and the TSP is recreated without status.
    await serve.stop();
    serve = await startServe(c, 'serve-multi-2', ['--controllers=ehpa']);
    const old = await c.admin.getJson<Obj>(tspPath(NS, 'ehpa-web'));
    const del = await c.admin.request('DELETE', tspPath(NS, 'ehpa-web'));
    expect(del.status, del.body).to.be.oneOf([200, 202]);
    const fresh = await waitObj(c, tspPath(NS, 'ehpa-web'), 'TSP recreated', (t) => t.metadata.uid !== old.metadata.uid, 120_000);
    expect(fresh.status?.['predictionMetrics'] ?? []).to.deep.equal([]);
    // The load rises to 5 pods' worth of requests: only the observed fallback can tell the HPA.
    const rate = HTTP_TARGET * 5;
    c.setGauge('http_requests', { namespace: NS, pod: BACKFILL_POD }, rate);
    await waitFor('Prometheus sees the new rate', async () => Number((await queryInstant(c.promUrl, HTTP_QUERY))[0]?.value[1]) === rate, { timeoutMs: 60_000 });
    // Settled means settled on the new load: until the observation reaches the adapter the HPA is steady at
    // the old count, which is not what this step is about.
    const r = await settled('on observed values', 420_000, 5);
    // http_requests alone now wants 5 (memory may want more from its own observation: the max wins).
    expect(r.hpa.status!.desiredReplicas).to.equal(r.expected);
    expect(r.expected).to.be.at.least(5);
    // What is served is the observation: the query's value split over the pods, and the workload's working set.
    for (const v of r.podMilli) expect(Math.abs(v - Math.round((rate * 1000) / r.podMilli.length))).to.be.at.most(1);
    const ws = Number((await queryInstant(c.promUrl, `sum(container_memory_working_set_bytes{namespace="${NS}",container!=""})`))[0]?.value[1]);
    expect(Math.abs(r.memMilli - ws * 1000)).to.be.at.most(ws); // within 0.1 % (the live gauge is static)
    // The fallback is reported on the EHPA, with the reason and the metric.
    const events = (await c.admin.getJson<{ items: { reason: string; message: string; involvedObject: { name: string; kind: string } }[] }>(`/api/v1/namespaces/${NS}/events`)).items;
    const fallback = events.filter((x) => x.involvedObject.kind === 'EffectiveHorizontalPodAutoscaler' && x.reason === 'PredictionMissing');
    expect(fallback.map((x) => x.message).join('\n')).to.contain('pods.http_requests').and.to.contain('serving observed usage instead');
    expect(serve.running).to.equal(true);
  });
});

