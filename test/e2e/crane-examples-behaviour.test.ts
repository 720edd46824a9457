// End-to-end: gocrane/crane's own EHPA and TSP examples and documentation manifests
// (test/fixtures/crane-examples/, verbatim) applied as written to a real control plane with
// `ehpa-adapter serve` running, each EHPA in a namespace of its own beside the Deployment it names, doing
// what they do in Crane (docs/crane-behaviour.md): the backing HPA with Crane's name, bounds and metrics;
// the prediction examples' TSP with their window and algorithm; the metric-query annotation examples' HPA
// with Crane's predicted Pods metric beside the original and a TSP entry with the annotation's query; and
// each cron example's `crane_autoscaling_cron` answering, through the aggregator, the targetReplicas of the
// cron active now in its zone ("Local" and an unset zone are the process zone and UTC under the default
// --cron-semantics=v0.7), or minReplicas when none is active and the HPA has other metrics. The expected
// cron value is worked out here from the files' own windows and the clock, not by our cron code. The
// documentation's TSPs are taken up by the TSP controller: the workload one says, in Crane's words, why it
// is not Ready with nothing to predict from; the Node one is flagged where Crane would run defaults. kwok
// plays the nodes, so the pods the backing HPAs scale to (up to the crons' 80 or 100 each) are scheduled and
// run as in a cluster.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { createDeployment, createNamespace, waitHpa } from './harness/index.ts';
import { useCluster } from './helpers.ts';
import { cronSelector, externalItems, installForServe, post, quantityMilli, startServe, waitObj, type Obj } from './scenario-helpers.ts';
import type { AdapterProcess } from './harness/index.ts';

const fixture = (path: string) => new URL(`../fixtures/crane-examples/${path}`, import.meta.url);

interface CronSpec { name: string; timezone?: string; start: string; end: string; targetReplicas: number }

/** The hour of day (0–23) at `ms` in `zone`. */
function hourIn(zone: string, ms: number): number {
  return Number(new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', hourCycle: 'h23' }).format(ms));
}

/** The examples' crons are "M H ? * *" windows on whole hours tiling the day: the one whose [start, end)
 *  holds the hour is active (end "00 00" is midnight, the next day). */
function activeTarget(crons: CronSpec[], zoneOf: (c: CronSpec) => string, ms: number): number {
  const hourOf = (expr: string) => Number(expr.trim().split(/\s+/)[1]);
  const active = crons.filter((c) => {
    const h = hourIn(zoneOf(c), ms);
    const [s, e] = [hourOf(c.start), hourOf(c.end) === 0 ? 24 : hourOf(c.end)];
    return h >= s && h < e;
  });
  expect(active, 'exactly one cron of the example is active').to.have.length(1);
  return active[0]!.targetReplicas;
}

interface HpaMetric { type: string; pods?: { metric: { name: string; selector?: unknown }; target: unknown }; resource?: { name: string }; external?: { metric: { name: string } } }
const hpaMetrics = (hpa: { spec: unknown }) => (hpa.spec as { metrics: HpaMetric[] }).metrics;
const nameOf = (o: Obj) => (o.metadata as { name: string }).name;
const targetOf = (o: Obj) => (o.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name;
const conditionOf = (o: Obj, type: string) =>
  ((o.status as { conditions?: { type: string; status: string; reason: string; message: string }[] } | undefined)?.conditions ?? []).find((c) => c.type === type);

describe('e2e: Crane\'s EHPA and TSP examples and documentation manifests do what they do in Crane', function () {
  this.timeout(600_000);
  const env = useCluster({ prometheus: true });
  let serve: AdapterProcess;
  const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  type Kind = 'predict' | 'cron' | 'annotation' | 'multi';
  const examples: { file: string; ns: string; kind: Kind }[] = [
    { file: 'examples/autoscaling/effective-hpa.yaml', ns: 'crane-ex-predict', kind: 'predict' },
    { file: 'examples/autoscaling/effective-hpa-cron.yaml', ns: 'crane-ex-cron', kind: 'cron' },
    { file: 'examples/autoscaling/effective-hpa-cron-local.yaml', ns: 'crane-ex-cron-local', kind: 'cron' },
    { file: 'examples/autoscaling/effective-hpa-cron-shanghai.yaml', ns: 'crane-ex-cron-shanghai', kind: 'cron' },
    // The documentation's EHPAs (site/ and docs/ of gocrane/crane; NOTICE.md names each page).
    { file: 'site/tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache.yaml', ns: 'crane-doc-predict', kind: 'predict' },
    { file: 'site/tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache-local.yaml', ns: 'crane-doc-cron-local', kind: 'cron' },
    { file: 'site/zh-tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache-local.yaml', ns: 'crane-doc-zh-cron-local', kind: 'cron' },
    { file: 'site/tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache-multi-dimensions.yaml', ns: 'crane-doc-multi', kind: 'multi' },
    { file: 'site/zh-tutorials-using-effective-hpa-to-scaling-with-effectiveness.php-apache-multi-dimensions.yaml', ns: 'crane-doc-zh-multi', kind: 'multi' },
    { file: 'site/best-practices-effective-hpa-with-prometheus-adapter.sample-app-hpa.yaml', ns: 'crane-doc-annot', kind: 'annotation' },
    { file: 'site/zh-best-practices-effective-hpa-with-prometheus-adapter.sample-app-hpa.yaml', ns: 'crane-doc-zh-annot', kind: 'annotation' },
    // The v0.6 annotation form `metric-query.autoscaling.crane.io/<metricName>`.
    { file: 'docs/tutorials-effective-hpa-with-prometheus-adapter.sample-app-hpa.yaml', ns: 'crane-doc-v06-annot', kind: 'annotation' },
  ];
  // The documentation's TSPs: all name namespace default. The three tsp-workload-dsp pages differ only in
  // comments, so the current one stands for them.
  const tsps = [
    'site/core-concept-timeseries-forecasting-by-dsp.tsp-workload-dsp.yaml',
    'site/tutorials-using-time-series-prediction.node-resource-percentile.yaml',
  ];
  const objects = new Map<string, Obj>();

  before(async function () {
    this.timeout(300_000);
    const c = env.cluster;
    await installForServe(c);
    for (const e of examples) {
      await createNamespace(c, e.ns);
      const obj = parseDocument(await readFile(fixture(e.file), 'utf8')).toJS() as Obj;
      objects.set(e.file, obj);
      await createDeployment(c, e.ns, targetOf(obj), { replicas: 1, cpuRequest: '200m' });
      await post(c, `/apis/autoscaling.crane.io/v1alpha1/namespaces/${e.ns}/effectivehorizontalpodautoscalers`, obj);
    }
    for (const file of tsps) {
      const obj = parseDocument(await readFile(fixture(file), 'utf8')).toJS() as Obj;
      objects.set(file, obj);
      await post(c, '/apis/prediction.crane.io/v1alpha1/namespaces/default/timeseriespredictions', obj);
    }
    serve = await startServe(c, 'serve-crane-examples');
  });

  after(async () => {
    await serve?.stop();
  });

  for (const e of examples.filter((x) => x.kind === 'predict')) {
    it(`${e.file}: an HPA on the forecast beside CPU, and a TSP with the example's window and DSP settings`, async () => {
      const c = env.cluster;
      const ehpa = objects.get(e.file)!;
      const hpa = await waitHpa(c, e.ns, `ehpa-${nameOf(ehpa)}`, 'created', () => true);
      expect(hpa.spec.minReplicas).to.equal(1);
      expect(hpa.spec.maxReplicas).to.equal(10);
      expect(hpa.spec.scaleTargetRef).to.include({ kind: 'Deployment', name: 'php-apache' });
      const metrics = hpaMetrics(hpa);
      expect(metrics.map((m) => m.type)).to.include.members(['Resource', 'Pods']);
      expect(metrics.find((m) => m.type === 'Pods')?.pods?.metric.name).to.equal('crane_pod_cpu_usage');
      const tsp = await waitObj(c, `/apis/prediction.crane.io/v1alpha1/namespaces/${e.ns}/timeseriespredictions/ehpa-${nameOf(ehpa)}`, 'TSP created', () => true);
      const spec = tsp.spec as { predictionWindowSeconds: number; targetRef: { kind: string; name: string }; predictionMetrics: { resourceIdentifier: string; algorithm: { algorithmType: string; dsp: { sampleInterval: string; historyLength: string } } }[] };
      const want = (ehpa.spec as { prediction: { predictionWindowSeconds: number; predictionAlgorithm: { dsp: { sampleInterval: string; historyLength: string } } } }).prediction;
      expect(spec.predictionWindowSeconds).to.equal(want.predictionWindowSeconds);
      expect(spec.targetRef).to.include({ kind: 'Deployment', name: 'php-apache' });
      expect(spec.predictionMetrics[0]!.resourceIdentifier).to.equal('crane_pod_cpu_usage');
      expect(spec.predictionMetrics[0]!.algorithm).to.deep.include({ algorithmType: 'dsp' });
      expect(spec.predictionMetrics[0]!.algorithm.dsp).to.include(want.predictionAlgorithm.dsp);
    });
  }

  for (const e of examples.filter((x) => x.kind === 'cron')) {
    it(`${e.file}: an HPA on crane_autoscaling_cron, which answers the targetReplicas of the cron active now in its zone`, async () => {
      const c = env.cluster;
      const ehpa = objects.get(e.file)!;
      const hpa = await waitHpa(c, e.ns, `ehpa-${nameOf(ehpa)}`, 'created', () => true);
      expect(hpa.spec.maxReplicas).to.equal((ehpa.spec as { maxReplicas: number }).maxReplicas);
      expect(hpaMetrics(hpa).map((m) => m.external?.metric.name)).to.deep.equal(['crane_autoscaling_cron']);
      const crons = (ehpa.spec as { crons: CronSpec[] }).crons;
      const zoneOf = (cr: CronSpec) => (cr.timezone === undefined ? 'UTC' : cr.timezone === 'Local' ? localZone : cr.timezone);
      const served = await servedCron(e.ns, targetOf(ehpa));
      // Straddling a window boundary, either side's value is right.
      expect(served.value).to.be.oneOf([activeTarget(crons, zoneOf, served.before), activeTarget(crons, zoneOf, served.after)]);
    });
  }

  for (const e of examples.filter((x) => x.kind === 'multi')) {
    it(`${e.file}: cron, forecast and observed CPU in one HPA; the cron answers 100 from Saturday 00:00 to Sunday 23:00 UTC, else minReplicas`, async () => {
      const c = env.cluster;
      const ehpa = objects.get(e.file)!;
      const hpa = await waitHpa(c, e.ns, `ehpa-${nameOf(ehpa)}`, 'created', () => true);
      expect(hpa.spec.maxReplicas).to.equal(100);
      const names = hpaMetrics(hpa).map((m) => m.external?.metric.name ?? m.pods?.metric.name ?? m.resource?.name);
      expect(names).to.have.members(['cpu', 'crane_pod_cpu_usage', 'crane_autoscaling_cron']);
      await waitObj(c, `/apis/prediction.crane.io/v1alpha1/namespaces/${e.ns}/timeseriespredictions/ehpa-${nameOf(ehpa)}`, 'TSP created', () => true);
      // The file's one cron: start "0 0 ? * 6" (Saturday 00:00), end "00 23 ? * 0" (Sunday 23:00), no zone (UTC).
      // With no active cron and other metrics in the HPA, Crane v0.7 answers minReplicas (1 here).
      const expected = (ms: number) => {
        const d = new Date(ms);
        return d.getUTCDay() === 6 || (d.getUTCDay() === 0 && d.getUTCHours() < 23) ? 100 : 1;
      };
      const served = await servedCron(e.ns, targetOf(ehpa));
      expect(served.value).to.be.oneOf([expected(served.before), expected(served.after)]);
    });
  }

  for (const e of examples.filter((x) => x.kind === 'annotation')) {
    it(`${e.file}: the metric-query annotation predicts http_requests: Crane's crane_custom.pods_http_requests beside the original, and a TSP entry with the annotation's query`, async () => {
      const c = env.cluster;
      const ehpa = objects.get(e.file)!;
      const name = nameOf(ehpa);
      const hpa = await waitHpa(c, e.ns, `ehpa-${name}`, 'created', () => true);
      expect(hpa.spec.scaleTargetRef).to.include({ kind: 'Deployment', name: 'sample-app' });
      const metrics = hpaMetrics(hpa);
      const uid = (await waitObj(c, `/apis/autoscaling.crane.io/v1alpha1/namespaces/${e.ns}/effectivehorizontalpodautoscalers/${name}`, 'EHPA', () => true)).metadata as { uid: string };
      const predicted = metrics.find((m) => m.pods?.metric.name === 'crane_custom.pods_http_requests');
      expect(predicted, JSON.stringify(metrics)).to.not.equal(undefined);
      expect(predicted!.pods!.metric.selector).to.deep.equal({ matchLabels: { 'autoscaling.crane.io/effective-hpa-uid': uid.uid } });
      expect(predicted!.pods!.target).to.deep.equal({ type: 'AverageValue', averageValue: '500m' });
      expect(metrics.map((m) => m.pods?.metric.name ?? m.resource?.name)).to.include.members(['cpu', 'http_requests', 'crane_pod_cpu_usage', 'crane_custom.pods_http_requests']);
      const tsp = await waitObj(c, `/apis/prediction.crane.io/v1alpha1/namespaces/${e.ns}/timeseriespredictions/ehpa-${name}`, 'TSP created', () => true);
      const entries = (tsp.spec as { predictionMetrics: { resourceIdentifier: string; type: string; expressionQuery?: { expression: string } }[] }).predictionMetrics;
      const annotationQuery = Object.entries((ehpa.metadata as { annotations: Record<string, string> }).annotations).find(([k]) => k.startsWith('metric-query.autoscaling.crane.io/'))![1];
      expect(entries.map((m) => m.resourceIdentifier)).to.deep.equal(['crane_pod_cpu_usage', 'pods.http_requests']);
      expect(entries[1]).to.deep.include({ type: 'ExpressionQuery', expressionQuery: { expression: annotationQuery } });
      const cond = await waitObj(c, `/apis/autoscaling.crane.io/v1alpha1/namespaces/${e.ns}/effectivehorizontalpodautoscalers/${name}`, 'MetricsPredicted condition', (o) => conditionOf(o, 'MetricsPredicted') !== undefined);
      expect(conditionOf(cond, 'MetricsPredicted')).to.include({ status: 'True' });
    });
  }

  it('the documentation\'s workload TSP (explicit FFT estimators, 15 days of history) is taken up and, with no series to read, is not Ready and says so in Crane\'s words', async () => {
    const tsp = await waitObj(env.cluster, '/apis/prediction.crane.io/v1alpha1/namespaces/default/timeseriespredictions/tsp-workload-dsp', 'Ready condition', (o) => conditionOf(o, 'Ready') !== undefined);
    const ready = conditionOf(tsp, 'Ready')!;
    expect(ready).to.include({ status: 'False', reason: 'PredictFailed' });
    expect(ready.message).to.match(/^not all metric predicted; workload-cpu: /);
  });

  // Crane throws this percentile block away (no historyLength: its parser fails on the empty duration) and
  // runs its default percentile configuration; so does serve, and says so (docs/crane-behaviour.md §E.1, A12).
  it('the documentation\'s Node TSP (percentile without historyLength) runs Crane\'s defaults and says so: Defaulted=True/CraneDefaultsApplied naming each block, not InvalidSpec', async () => {
    const tsp = await waitObj(env.cluster, '/apis/prediction.crane.io/v1alpha1/namespaces/default/timeseriespredictions/node-resource-percentile', 'Ready and Defaulted conditions', (o) => conditionOf(o, 'Ready') !== undefined && conditionOf(o, 'Defaulted') !== undefined);
    const defaulted = conditionOf(tsp, 'Defaulted')!;
    expect(defaulted).to.include({ status: 'True', reason: 'CraneDefaultsApplied' });
    expect(defaulted.message).to.contain('spec.predictionMetrics[0].algorithm.percentile (time: invalid duration "")');
    expect(defaulted.message).to.contain('spec.predictionMetrics[1].algorithm.percentile (time: invalid duration "")');
    expect(defaulted.message).to.contain('historyLength 7d');
    // The spec is taken up: what decides Ready now is whether this namespace may read a node's series
    // (serve runs with the default --user-promql=namespaced here, so it may not, and the message says so).
    const ready = conditionOf(tsp, 'Ready')!;
    expect(ready.reason).to.not.equal('InvalidSpec');
    if (ready.status === 'False') expect(ready.message).to.match(/^not all metric predicted; node-cpu: .*Node target/);
  });

  /** The cron metric for the EHPA's target, read through the aggregator, with the clock either side. */
  async function servedCron(ns: string, target: string): Promise<{ value: number; before: number; after: number }> {
    const c = env.cluster;
    const path = `/apis/external.metrics.k8s.io/v1beta1/namespaces/${ns}/crane_autoscaling_cron?labelSelector=${cronSelector(ns, target)}`;
    await waitObj(c, path, 'cron metric served', () => true, 120_000);
    const before = Date.now();
    const r = await c.admin.get(path);
    const after = Date.now();
    expect(r.status, r.body).to.equal(200);
    return { value: quantityMilli(externalItems(r.json)[0]!.value) / 1000, before, after };
  }
});
