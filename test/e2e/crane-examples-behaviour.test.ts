// End-to-end: gocrane/crane's own EHPA examples (test/fixtures/crane-examples/, verbatim) applied as written to a
// real control plane with `ehpa-adapter serve` running, each in a namespace of its own beside the
// `php-apache` Deployment they name, doing what they do in Crane (docs/crane-behaviour.md): the backing HPA
// with Crane's name, bounds and metrics; the prediction example's TSP with its window and algorithm; and
// each cron example's `crane_autoscaling_cron` answering, through the aggregator, the targetReplicas of the
// cron active now in its zone ("Local" and an unset zone are the process zone and UTC under the default
// --cron-semantics=v0.7). The expected cron value is worked out here from the files' own windows and the
// clock, not by our cron code.
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

describe('e2e: Crane\'s EHPA examples do what they do in Crane', function () {
  this.timeout(600_000);
  const env = useCluster({ prometheus: true });
  let serve: AdapterProcess;
  const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  const examples = [
    { file: 'examples/autoscaling/effective-hpa.yaml', ns: 'crane-ex-predict' },
    { file: 'examples/autoscaling/effective-hpa-cron.yaml', ns: 'crane-ex-cron' },
    { file: 'examples/autoscaling/effective-hpa-cron-local.yaml', ns: 'crane-ex-cron-local' },
    { file: 'examples/autoscaling/effective-hpa-cron-shanghai.yaml', ns: 'crane-ex-cron-shanghai' },
  ];
  const objects = new Map<string, Obj>();

  before(async function () {
    this.timeout(300_000);
    const c = env.cluster;
    await installForServe(c);
    for (const e of examples) {
      await createNamespace(c, e.ns);
      await createDeployment(c, e.ns, 'php-apache', { replicas: 1, cpuRequest: '200m' });
      const obj = parseDocument(await readFile(fixture(e.file), 'utf8')).toJS() as Obj;
      objects.set(e.file, obj);
      await post(c, `/apis/autoscaling.crane.io/v1alpha1/namespaces/${e.ns}/effectivehorizontalpodautoscalers`, obj);
    }
    serve = await startServe(c, 'serve-crane-examples');
  });

  after(async () => {
    await serve?.stop();
  });

  it('effective-hpa.yaml: an HPA on the forecast beside CPU, and a TSP with the example\'s window and DSP settings', async () => {
    const c = env.cluster;
    const hpa = await waitHpa(c, 'crane-ex-predict', 'ehpa-php-apache', 'created', () => true);
    expect(hpa.spec.minReplicas).to.equal(1);
    expect(hpa.spec.maxReplicas).to.equal(10);
    expect(hpa.spec.scaleTargetRef).to.include({ kind: 'Deployment', name: 'php-apache' });
    const metrics = (hpa.spec as unknown as { metrics: { type: string; pods?: { metric: { name: string } }; resource?: { name: string } }[] }).metrics;
    expect(metrics.map((m) => m.type)).to.include.members(['Resource', 'Pods']);
    expect(metrics.find((m) => m.type === 'Pods')?.pods?.metric.name).to.equal('crane_pod_cpu_usage');
    const tsp = await waitObj(c, '/apis/prediction.crane.io/v1alpha1/namespaces/crane-ex-predict/timeseriespredictions/ehpa-php-apache', 'TSP created', () => true);
    const spec = tsp.spec as { predictionWindowSeconds: number; targetRef: { kind: string; name: string }; predictionMetrics: { resourceIdentifier: string; algorithm: { algorithmType: string; dsp: { sampleInterval: string; historyLength: string } } }[] };
    expect(spec.predictionWindowSeconds).to.equal(3600);
    expect(spec.targetRef).to.include({ kind: 'Deployment', name: 'php-apache' });
    expect(spec.predictionMetrics[0]!.resourceIdentifier).to.equal('crane_pod_cpu_usage');
    expect(spec.predictionMetrics[0]!.algorithm).to.deep.include({ algorithmType: 'dsp' });
    expect(spec.predictionMetrics[0]!.algorithm.dsp).to.include({ sampleInterval: '60s', historyLength: '7d' });
  });

  for (const e of examples.slice(1)) {
    it(`${e.file}: an HPA on crane_autoscaling_cron, which answers the targetReplicas of the cron active now in its zone`, async () => {
      const c = env.cluster;
      const name = (objects.get(e.file)!.metadata as { name: string }).name;
      const hpa = await waitHpa(c, e.ns, `ehpa-${name}`, 'created', () => true);
      expect(hpa.spec.maxReplicas).to.equal(10);
      const metrics = (hpa.spec as unknown as { metrics: { type: string; external?: { metric: { name: string } } }[] }).metrics;
      expect(metrics.map((m) => m.external?.metric.name)).to.deep.equal(['crane_autoscaling_cron']);
      const crons = (objects.get(e.file)!.spec as { crons: CronSpec[] }).crons;
      const zoneOf = (cr: CronSpec) => (cr.timezone === undefined ? 'UTC' : cr.timezone === 'Local' ? localZone : cr.timezone);
      const path = `/apis/external.metrics.k8s.io/v1beta1/namespaces/${e.ns}/crane_autoscaling_cron?labelSelector=${cronSelector(e.ns, 'php-apache')}`;
      await waitObj(c, path, 'cron metric served', () => true, 120_000);
      const before = Date.now();
      const r = await c.admin.get(path);
      const after = Date.now();
      expect(r.status, r.body).to.equal(200);
      const served = quantityMilli(externalItems(r.json)[0]!.value) / 1000;
      // Straddling a window boundary, either side's value is right.
      expect(served).to.be.oneOf([activeTarget(crons, zoneOf, before), activeTarget(crons, zoneOf, after)]);
    });
  }
});
