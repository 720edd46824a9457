// End-to-end: Crane's TimeSeriesPrediction tutorial (docs/tutorials/using-time-series-prediction.md,
// test/fixtures/crane-examples/site/tutorials-using-time-series-prediction.node-resource-percentile.yaml,
// verbatim) applied unchanged by an admin whose namespace `serve --user-promql=unrestricted=default` allows
// node predictions (docs/crane-behaviour.md §I.2), on a real control plane: the Node it names is a kwok
// node of that name, and Prometheus holds node-exporter-shaped series for it (harness/node-exporter.ts: eight
// days of the Azure Public Dataset v2 trace scaled to an 8-CPU, 32 GiB node, `instance` with node-exporter's
// :9100, then live). The tutorial's percentile blocks have no historyLength, so Crane's defaults run
// (Defaulted=True); its CPU forecast must fall where the fed usage's top is, its memory forecast where
// Crane's default histogram puts bytes. A DSP TSP of ours on a second node (instance without a port) shows
// byte-sized memory forecasts on the same path. The tutorial's object copied into a tenant namespace is
// refused in status with a message naming the policy and the admin's remedy.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { createNamespace, queryInstant, type AdapterProcess, type NodeUsage } from './harness/index.ts';
import { useCluster } from './helpers.ts';
import { installForServe, post, startServe, tspPath, waitObj, type Obj } from './scenario-helpers.ts';
import { DEFAULT_PERCENTILE_SETTINGS } from '../../src/prediction/crane-config.ts';
import { nodeCpuQuery, nodeMemoryQuery } from '../../src/prediction/history/queries.ts';

const TUTORIAL = new URL('../fixtures/crane-examples/site/tutorials-using-time-series-prediction.node-resource-percentile.yaml', import.meta.url);
const AZURE = fileURLToPath(new URL('../fixtures/traces/azure/vm_cpu_readings_month_aggregated_cpu_mem.csv', import.meta.url));
const TUTORIAL_NODE = '192.168.56.166';
const PLAIN_NODE = 'kwok-node-1';
const ADMIN_NS = 'default'; // the tutorial's own namespace
const TENANT_NS = 'tenant-a';
const GiB = 2 ** 30;

interface MetricStatus { resourceIdentifier: string; ready: boolean; prediction?: { samples: { value: string; timestamp: number }[] }[] }
type Condition = { type: string; status: string; reason: string; message: string };
const conditionOf = (o: Obj, type: string) => ((o.status?.conditions ?? []) as Condition[]).find((c) => c.type === type);
const metricsOf = (o: Obj) => ((o.status as { predictionMetrics?: MetricStatus[] } | undefined)?.predictionMetrics ?? []);
const valuesOf = (o: Obj, id: string): number[] => {
  const m = metricsOf(o).find((x) => x.resourceIdentifier === id);
  expect(m, `status.predictionMetrics has ${id}`).to.not.equal(undefined);
  expect(m!.ready, `${id} ready`).to.equal(true);
  const vs = (m!.prediction ?? []).flatMap((p) => p.samples.map((s) => Number(s.value)));
  expect(vs.length, `${id} samples`).to.be.above(0);
  return vs;
};
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const quantile = (xs: number[], q: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

// Ours, not Crane's: the same node metrics with DSP (the tutorial's other algorithm) and a historyLength.
const dspTsp = {
  apiVersion: 'prediction.crane.io/v1alpha1',
  kind: 'TimeSeriesPrediction',
  metadata: { name: 'node-usage-dsp', namespace: ADMIN_NS },
  spec: {
    targetRef: { kind: 'Node', name: PLAIN_NODE },
    predictionWindowSeconds: 3600,
    predictionMetrics: ['cpu', 'memory'].map((r) => ({
      resourceIdentifier: `node-${r}`, type: 'ResourceQuery', resourceQuery: r,
      algorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '1m', historyLength: '7d' } },
    })),
  },
};

describe('e2e: Crane\'s TimeSeriesPrediction tutorial predicts a node for an admin, and is refused to a tenant', function () {
  this.timeout(600_000);
  const trace = { file: AZURE, timeColumn: 'timestamp', cpuColumn: 'cpu_usage', memColumn: 'assigned_mem' };
  const env = useCluster({
    kwokNodeNames: [TUTORIAL_NODE, PLAIN_NODE],
    nodeExporter: [
      { ...trace, instance: `${TUTORIAL_NODE}:9100`, cpus: 8, memTotalBytes: 32 * GiB },
      { ...trace, instance: PLAIN_NODE, cpus: 4, memTotalBytes: 16 * GiB },
    ],
  });
  let serve: AdapterProcess;
  let tutorial: Obj;
  const usage = (instance: string): NodeUsage => env.cluster.nodeUsage.find((u) => u.instance === instance)!;

  before(async function () {
    this.timeout(300_000);
    const c = env.cluster;
    await installForServe(c);
    await createNamespace(c, TENANT_NS);
    tutorial = parseDocument(await readFile(TUTORIAL, 'utf8')).toJS() as Obj;
    await post(c, tspPath(ADMIN_NS), tutorial);
    // The same object as a tenant would apply it in its own namespace (only the namespace differs).
    await post(c, tspPath(TENANT_NS), { ...tutorial, metadata: { ...tutorial.metadata, namespace: TENANT_NS } });
    await post(c, tspPath(ADMIN_NS), dspTsp);
    serve = await startServe(c, 'serve-node-tutorial', [`--user-promql=unrestricted=${ADMIN_NS}`]);
  });

  after(async () => {
    await serve?.stop();
  });

  it('the Nodes are kwok nodes of the names the TSPs give, and Prometheus reads their node-exporter series through Crane\'s node queries (instance with and without :port)', async () => {
    const c = env.cluster;
    expect(c.kwok?.nodeNames).to.deep.equal([TUTORIAL_NODE, PLAIN_NODE]);
    for (const name of [TUTORIAL_NODE, PLAIN_NODE]) {
      const node = await c.admin.getJson<{ status: { conditions: Condition[] } }>(`/api/v1/nodes/${name}`);
      expect(node.status.conditions.find((x) => x.type === 'Ready')?.status, name).to.equal('True');
    }
    for (const [node, instance] of [[TUTORIAL_NODE, `${TUTORIAL_NODE}:9100`], [PLAIN_NODE, PLAIN_NODE]] as const) {
      const u = usage(instance);
      const lastBusy = u.busyCores[u.busyCores.length - 1]!.value;
      const lastUsed = u.usedBytes[u.usedBytes.length - 1]!.value;
      // Now (live, from the exporter) and a day ago (backfilled): what was fed, within the irate's rounding.
      const cpuNow = Number((await queryInstant(c.promUrl, nodeCpuQuery(node)))[0]?.value[1]);
      expect(cpuNow, `${node} cores busy now`).to.be.closeTo(lastBusy, 0.05);
      expect(Number((await queryInstant(c.promUrl, nodeMemoryQuery(node)))[0]?.value[1]), `${node} bytes used now`).to.be.closeTo(lastUsed, 1);
      const dayAgo = u.busyCores[u.busyCores.length - 1 - 1440]!;
      const cpuThen = Number((await queryInstant(c.promUrl, nodeCpuQuery(node), dayAgo.ts))[0]?.value[1]);
      expect(cpuThen, `${node} cores busy a day ago`).to.be.closeTo(dayAgo.value, 0.05);
    }
  });

  it('the tutorial, applied unchanged in the admin\'s namespace, is Ready with Crane\'s defaults: a CPU forecast at the top of the fed usage, flat as the tutorial says', async () => {
    const tsp = await waitObj(env.cluster, tspPath(ADMIN_NS, 'node-resource-percentile'), 'tutorial TSP Ready', (o) => conditionOf(o, 'Ready')?.status === 'True', 300_000);
    expect(tsp.spec).to.deep.equal(tutorial.spec); // unchanged, nothing defaulted into the object
    expect(conditionOf(tsp, 'Defaulted')).to.include({ status: 'True', reason: 'CraneDefaultsApplied' });
    const fed = usage(`${TUTORIAL_NODE}:9100`).busyCores.map((p) => p.value);
    const cpu = valuesOf(tsp, 'node-cpu');
    // Crane's default percentile: p99 of a value-weighted histogram, linear buckets of 0.1 core. Weighting by
    // value moves it up, never down, so it lies between the fed p90 and the fed peak (a bucket either side).
    const bucket = DEFAULT_PERCENTILE_SETTINGS.config.histogram.kind === 'linear' ? DEFAULT_PERCENTILE_SETTINGS.config.histogram.bucketSize : 0;
    for (const v of cpu) {
      expect(v).to.be.within(quantile(fed, 0.9) - bucket, Math.max(...fed) + bucket);
      expect(v).to.be.at.most(8); // never more than the node's CPUs
    }
    // "the percentile can output a time series predicted data, but it is all the same value" (the tutorial).
    expect(new Set(cpu).size).to.equal(1);
  });

  it('the tutorial\'s memory forecast is what Crane\'s defaults give bytes: the default histogram\'s ceiling (docs/crane-behaviour.md §E.1), finite and >= 0', async () => {
    const tsp = await waitObj(env.cluster, tspPath(ADMIN_NS, 'node-resource-percentile'), 'tutorial TSP Ready', (o) => conditionOf(o, 'Ready')?.status === 'True', 300_000);
    const mem = valuesOf(tsp, 'node-mem');
    const h = DEFAULT_PERCENTILE_SETTINGS.config.histogram;
    const fed = usage(`${TUTORIAL_NODE}:9100`).usedBytes.map((p) => p.value);
    // Every fed sample (tens of GiB) is past the default histogram's last bucket, so that bucket is the answer.
    expect(Math.min(...fed)).to.be.above(h.maxValue);
    for (const v of mem) {
      expect(Number.isFinite(v) && v >= 0, String(v)).to.equal(true);
      expect(v).to.be.within(h.maxValue - (h.kind === 'linear' ? h.bucketSize : h.maxValue / 2), h.maxValue);
    }
  });

  it('a DSP TSP on a node whose instance has no port forecasts cores and bytes of the fed magnitude', async () => {
    const tsp = await waitObj(env.cluster, tspPath(ADMIN_NS, 'node-usage-dsp'), 'DSP node TSP Ready', (o) => conditionOf(o, 'Ready')?.status === 'True', 300_000);
    const u = usage(PLAIN_NODE);
    for (const [id, fed, cap] of [['node-cpu', u.busyCores, u.cpus], ['node-memory', u.usedBytes, u.memTotalBytes]] as const) {
      const values = fed.map((p) => p.value);
      const [lo, hi] = [Math.min(...values), Math.max(...values)];
      const got = valuesOf(tsp, id);
      for (const v of got) {
        expect(Number.isFinite(v) && v >= 0, `${id} ${v}`).to.equal(true);
        // A seasonal forecast stays near the range it learned from (Crane's margins are a few per cent).
        expect(v, id).to.be.within(0.8 * lo, Math.min(1.2 * hi, cap * 1.05));
      }
    }
  });

  it('the same object in a tenant namespace is not Ready, and says which policy refuses it and how an admin allows it', async () => {
    const tsp = await waitObj(env.cluster, tspPath(TENANT_NS, 'node-resource-percentile'), 'tenant TSP Ready=False', (o) => conditionOf(o, 'Ready')?.status === 'False', 300_000);
    const ready = conditionOf(tsp, 'Ready')!;
    expect(ready.message).to.contain(`a Node target reads cluster-wide series, which namespace "${TENANT_NS}" may not under --user-promql=unrestricted=${ADMIN_NS}`);
    expect(ready.message).to.contain('a cluster admin allows node predictions here by listing the namespace in serve\'s --user-promql=unrestricted=<ns>');
    // Nothing of the node's usage reaches the tenant's status.
    for (const m of metricsOf(tsp)) expect(m.prediction ?? [], m.resourceIdentifier).to.have.length(0);
  });
});
