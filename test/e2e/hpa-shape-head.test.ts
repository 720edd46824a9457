// End-to-end, --hpa-shape=head (docs/crane-behaviour.md §C.9) beside prometheus-adapter: prometheus-adapter
// v0.12.0 (scripts/build-prometheus-adapter.sh) holds custom.metrics.k8s.io with a rule of its own, and
// ehpa-adapter is registered for external.metrics.k8s.io only, the install Crane v0.8+ users run (in step 3,
// for nothing). Crane HEAD's prediction example (test/fixtures/crane-examples/examples/autoscaling/
// effective-hpa.yaml, unchanged but for its namespace) is applied with a week of a Crane trace backfilled in
// Prometheus for its 7d history:
//   1. under the default --hpa-shape=v0.7 the backing HPA reads the Pods metric crane_pod_cpu_usage, which
//      prometheus-adapter does not have: the forecast cannot reach the HPA in this install;
//   2. serve restarted with --hpa-shape=head rewrites that HPA in place to HEAD's External
//      crane_autoscaling_prediction (selector and target as gocrane/crane pkg/controller/ehpa/hpa.go writes
//      them), the real HPA controller reads it (status.currentMetrics, ScalingActive=True) and scales the
//      Deployment to the replicas the served forecast asks for;
//   3. with ehpa-adapter's metrics API gone (serve --adapter=false --hpa-shape=head, exporter mode) and
//      prometheus-adapter's external rules of manifests/components/prometheus-adapter holding
//      external.metrics.k8s.io too, the same HPA reads the exported forecast and settles on it again.
// kwok plays the nodes; the real metrics-server serves metrics.k8s.io for the example's original CPU metric.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import {
  createDeployment, createNamespace, installCrds, installManifestRbac, MANIFESTS_DIR, parseTraceCsv, prometheusAdapterBinary, queryInstant, waitFor, waitHpa, waitReplicas,
  type AdapterProcess,
} from './harness/index.ts';
import { freePort } from './harness/ports.ts';
import { startProcess, type ManagedProcess } from './harness/processes.ts';
import { CRANE_TRACES, useCluster } from './helpers.ts';
import { startPodCpu, type PodCpu } from './pod-cpu.ts';
import { ehpaPath, externalItems, hpaPath, post, quantityMilli, tspPath, waitObj, type Obj } from './scenario-helpers.ts';
import { externalAverageValueReplicas } from '../../src/hpa/replica-calculator.ts';
import { predictionAnswer } from '../../src/metric-values/forecast-value.ts';
import type { TimeSeriesPrediction } from '../../src/api/prediction.ts';

const NS = 'hpa-head';
const CUSTOM = 'custom.metrics.k8s.io';
const EXTERNAL = 'external.metrics.k8s.io';
const EXAMPLE = fileURLToPath(new URL('../fixtures/crane-examples/examples/autoscaling/effective-hpa.yaml', import.meta.url));
const TRACE = fileURLToPath(new URL('input1.csv', CRANE_TRACES));
const CPU_SCALE = 0.1; // trace unit -> cores
// The example's historyLength is 7d: a week and two hours of the trace.
const LAST_POINTS = 7 * 1440 + 120;
const SELECTOR = { targetKind: 'Deployment', targetName: 'php-apache', targetNamespace: NS, resourceIdentifier: 'resource.cpu' };
// prometheus-adapter's config: a custom metric of its own (the pods' CPU from the kubelet series, under a
// name of its own), and the external rules of manifests/components/prometheus-adapter for exporter mode.
const PROMETHEUS_ADAPTER_CUSTOM_RULES = [{
  seriesQuery: 'container_cpu_usage_seconds_total{namespace!="",pod!=""}',
  resources: { overrides: { namespace: { resource: 'namespace' }, pod: { resource: 'pod' } } },
  name: { matches: '^container_(.*)_seconds_total$', as: 'pod_$1' },
  metricsQuery: 'sum(rate(<<.Series>>{<<.LabelMatchers>>}[1m])) by (<<.GroupBy>>)',
}];
const EXTERNAL_RULES = join(MANIFESTS_DIR, 'components', 'prometheus-adapter', 'external-rules.yaml');

/**
 * A CPU request that puts the forecast's answer mid-range: the trace is daily, so the next hour's forecast is
 * close to the same hour a day earlier; aim that maximum at ~3 pods at the example's 50 % target. Assertions
 * use the value actually served, so this only keeps the answer away from min and max.
 */
function requestMilliFor(): number {
  const pts = parseTraceCsv(readFileSync(TRACE, 'utf8')).slice(-LAST_POINTS);
  const peak = Math.max(...pts.slice(-1440, -1440 + 62).map((p) => p.value * CPU_SCALE));
  return Math.max(20, Math.round(((peak * 1000) / 3) * 2));
}

interface HpaObj { metadata: { uid: string; resourceVersion: string }; spec: { metrics: Record<string, unknown>[] } }

describe('e2e: --hpa-shape=head, Crane HEAD\'s prediction example scales through crane_autoscaling_prediction with prometheus-adapter holding custom.metrics.k8s.io', function () {
  this.timeout(900_000);
  const env = useCluster({
    traces: [{ file: TRACE, namespace: NS, pod: 'php-apache-7d9c8b6f5d-abcde', container: 'app', cpuScale: CPU_SCALE, lastPoints: LAST_POINTS }],
  });
  let promAdapter: ManagedProcess | undefined;
  let promAdapterPort = 0;
  let serve: AdapterProcess | undefined;
  let podCpu: PodCpu | undefined;
  const requestMilli = requestMilliFor();
  // The example's 50 % of the request, per pod: GetHPAMetrics' int64(requests × 50 / 100 / pods).
  const targetMilli = Math.trunc(requestMilli / 2);

  const serveArgs = (name: string, extra: string[]) => [
    `--secure-port=${env.cluster.adapterPort}`, '--bind-address=127.0.0.1', `--cert-dir=${join(env.cluster.dir, 'adapter-certs')}`,
    `--prometheus-url=${env.cluster.promUrl}`,
    '--leader-election-namespace=ehpa-system', `--leader-election-identity=${name}`,
    '--leader-election-lease-duration=4s', '--leader-election-renew-deadline=3s', '--leader-election-retry-period=1s',
    '--prediction-update-frequency=5s', '--log-level=debug',
    // Whether a forecast pays on this trace is prediction-pays.test.ts's question; here it is how it is served.
    '--prediction-pays=observe',
    ...extra,
  ];

  const q = encodeURIComponent(Object.entries(SELECTOR).map(([k, v]) => `${k}=${v}`).join(','));
  /** crane_autoscaling_prediction for the example's selector, through the aggregator (whoever serves it). */
  const served = async () => {
    const r = await env.cluster.admin.get(`/apis/${EXTERNAL}/v1beta1/namespaces/${NS}/crane_autoscaling_prediction?labelSelector=${q}`);
    if (r.status !== 200) return undefined;
    const items = externalItems(r.json);
    expect(items).to.have.length(1);
    return quantityMilli(items[0]!.value);
  };
  /** The forecast as ehpa-adapter's own adapter computes it from the TSP now (not an observed fallback). */
  const forecastNow = async () => {
    const t = await env.cluster.admin.getJson<TimeSeriesPrediction>(tspPath(NS, 'ehpa-php-apache'));
    const a = predictionAnswer([t], { kind: 'Deployment', name: 'php-apache', namespace: NS }, 'resource.cpu', Date.now());
    return a.ok ? Number(a.milli) : undefined;
  };
  type Current = { type: string; external?: { metric: { name: string }; current: { averageValue?: string } } };
  const predictedIn = (h: { status?: { currentMetrics?: unknown[] } }) =>
    (h.status?.currentMetrics as Current[] | undefined)?.find((m) => m.external?.metric.name === 'crane_autoscaling_prediction');

  /**
   * Polls until the HPA has synced on the forecast: what is served is the forecast, what the HPA shows ×
   * replicas is what is served now, it is at its desired count, and that count is the upstream arithmetic on
   * the served value (pods added by a scale-up take a sync or two to count).
   */
  async function settleOnForecast(): Promise<{ h: Awaited<ReturnType<typeof waitHpa>>; total: number; last: string }> {
    let last = '';
    const deadline = Date.now() + 300_000;
    for (;;) {
      const own = await forecastNow();
      const total = await served();
      const h = await waitHpa(env.cluster, NS, 'ehpa-php-apache', 'read', () => true);
      const current = h.status?.currentReplicas ?? 0;
      const shownAvg = predictedIn(h)?.external?.current.averageValue;
      const shown = shownAvg === undefined ? NaN : quantityMilli(shownAvg);
      const expected = total === undefined ? NaN : Math.min(10, Math.max(1, externalAverageValueReplicas({ statusReplicas: current, sumMilli: total, targetMilli })));
      last = `forecast ${own}m, served ${total}m, HPA shows ${shownAvg} × ${current} (desired ${h.status?.desiredReplicas}), expected ${expected} at ${targetMilli}m per pod`;
      const fromForecast = own !== undefined && total !== undefined && Math.abs(own - total) <= Math.max(2, own * 0.05);
      const synced = total !== undefined && Math.abs(shown * current - total) <= Math.max(5, total * 0.05);
      if (fromForecast && synced && current > 1 && h.status?.desiredReplicas === current && current === expected) return { h, total: total!, last };
      if (Date.now() > deadline) throw new Error(`not settled on the forecast: ${last}`);
      await new Promise((r) => setTimeout(r, 3000));
    }
  }

  before(async function () {
    this.timeout(600_000);
    const c = env.cluster;
    await installCrds(c);
    await installManifestRbac(c);
    // prometheus-adapter on custom.metrics.k8s.io, as the cluster had it before Crane.
    const rules = join(c.dir, 'prometheus-adapter-rules.yaml');
    const { externalRules } = parse(readFileSync(EXTERNAL_RULES, 'utf8')) as { externalRules: unknown[] };
    await writeFile(rules, stringify({ rules: PROMETHEUS_ADAPTER_CUSTOM_RULES, externalRules }));
    const port = await freePort();
    promAdapterPort = port;
    promAdapter = startProcess({
      name: 'prometheus-adapter',
      command: await prometheusAdapterBinary(),
      logDir: c.logDir,
      args: [
        `--secure-port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${join(c.dir, 'prometheus-adapter-certs')}`,
        `--lister-kubeconfig=${c.kubeconfigPath}`, `--authentication-kubeconfig=${c.kubeconfigPath}`, `--authorization-kubeconfig=${c.kubeconfigPath}`,
        `--prometheus-url=${c.promUrl}/`, `--config=${rules}`, '--metrics-relist-interval=2s', '--v=2',
      ],
    });
    await c.routeMetricsApisToAdapter({ port, namespace: 'monitoring', serviceName: 'prometheus-adapter', groups: [CUSTOM] });
    // ehpa-adapter: external.metrics.k8s.io only.
    await c.routeMetricsApisToAdapter({ groups: [EXTERNAL] });
    await c.waitMetricsApisAvailable(180_000, [CUSTOM]);
    // The example's original CPU metric reads the real metrics-server: an idle 1m per pod, so it alone wants
    // 1 replica and the forecast decides.
    podCpu = startPodCpu(c);
    podCpu.setCpu(NS, () => 1);
    await createNamespace(c, NS);
    await createDeployment(c, NS, 'php-apache', { replicas: 1, cpuRequest: `${requestMilli}m` });
  });

  after(async () => {
    await serve?.stop();
    await promAdapter?.stop(5000);
    await podCpu?.close();
  });

  it('the APIServices: custom.metrics.k8s.io is prometheus-adapter\'s (with its own metric, no crane_pod_cpu_usage), external.metrics.k8s.io ours', async () => {
    const c = env.cluster;
    const owner = async (name: string) => ((await c.admin.getJson<{ spec: { service: { name: string } } }>(`/apis/apiregistration.k8s.io/v1/apiservices/${name}`)).spec.service.name);
    expect(await owner(`v1beta1.${CUSTOM}`)).to.equal('prometheus-adapter');
    expect(await owner(`v1beta2.${CUSTOM}`)).to.equal('prometheus-adapter');
    expect(await owner(`v1beta1.${EXTERNAL}`)).to.equal('ehpa-adapter-loopback');
    let names: string[] = [];
    await waitFor('prometheus-adapter lists pods/pod_cpu_usage', async () => {
      const r = await c.admin.get(`/apis/${CUSTOM}/v1beta1`);
      names = r.status === 200 ? (r.json as { resources: { name: string }[] }).resources.map((x) => x.name) : [];
      return names.includes('pods/pod_cpu_usage');
    }, { timeoutMs: 90_000 });
    expect(names.some((n) => n.includes('crane_pod_cpu_usage'))).to.equal(false);
  });

  let v07Hpa: HpaObj | undefined;

  it('under the default --hpa-shape=v0.7 the example\'s HPA reads crane_pod_cpu_usage, which this install does not serve', async () => {
    const c = env.cluster;
    serve = await c.startAdapterProcess({ name: 'serve-v07', args: serveArgs('serve-v07', []) });
    await c.waitMetricsApisAvailable(120_000, [EXTERNAL]);
    const example = parse(readFileSync(EXAMPLE, 'utf8')) as Obj & { metadata: Record<string, unknown> };
    await post(c, ehpaPath(NS), { ...example, metadata: { ...example.metadata, namespace: NS } });
    v07Hpa = (await waitObj(c, hpaPath(NS, 'ehpa-php-apache'), 'HPA in the v0.7 shape', (h) => JSON.stringify(h.spec).includes('crane_pod_cpu_usage'))) as unknown as HpaObj;
    expect(v07Hpa.spec.metrics.map((m) => m['type'])).to.deep.equal(['Resource', 'Pods']);
    // The aggregator sends the HPA's request to prometheus-adapter, which has no such metric.
    const r = await c.admin.get(`/apis/${CUSTOM}/v1beta2/namespaces/${NS}/pods/*/crane_pod_cpu_usage?labelSelector=app%3Dphp-apache`);
    expect(r.status, r.body).to.not.equal(200);
    await serve.stop();
    serve = undefined;
  });

  it('serve restarted with --hpa-shape=head rewrites the HPA in place to HEAD\'s External crane_autoscaling_prediction', async () => {
    const c = env.cluster;
    serve = await c.startAdapterProcess({ name: 'serve-head', args: serveArgs('serve-head', ['--hpa-shape=head']) });
    await c.waitMetricsApisAvailable(120_000, [EXTERNAL]);
    const hpa = (await waitObj(c, hpaPath(NS, 'ehpa-php-apache'), 'HPA in the head shape', (h) => JSON.stringify(h.spec).includes('crane_autoscaling_prediction'), 120_000)) as unknown as HpaObj;
    // Same object: the HPA controller keeps its history across the switch.
    expect(hpa.metadata.uid).to.equal(v07Hpa!.metadata.uid);
    expect(hpa.spec.metrics).to.deep.equal([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      // gocrane/crane pkg/controller/ehpa/hpa.go GetHPAMetrics: the target's kind/name/namespace and HEAD's
      // resourceIdentifier, AverageValue = int64(requests × 50 / 100 / pods) milli.
      { type: 'External', external: { metric: { name: 'crane_autoscaling_prediction', selector: { matchLabels: SELECTOR } }, target: { type: 'AverageValue', averageValue: `${targetMilli}m` } } },
    ]);
  });

  it('the HPA controller reads crane_autoscaling_prediction (currentMetrics, ScalingActive=True) and scales to what the forecast asks for', async () => {
    const c = env.cluster;
    // Under head the TSP names workload CPU as HEAD does (resource.cpu), refitted after the switch.
    type Entry = { resourceIdentifier: string; ready?: boolean };
    const tsp = await waitObj(c, tspPath(NS, 'ehpa-php-apache'), 'TSP Ready with resource.cpu', (t) =>
      ((t.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ?? false)
        && ((t.status?.['predictionMetrics'] as Entry[] | undefined) ?? []).some((m) => m.resourceIdentifier === 'resource.cpu' && m.ready === true)), 300_000);
    expect((tsp.spec as { predictionWindowSeconds: number; predictionMetrics: Entry[] }).predictionMetrics.map((m) => m.resourceIdentifier)).to.deep.equal(['resource.cpu']);
    expect((tsp.spec as { predictionWindowSeconds: number }).predictionWindowSeconds).to.equal(3600);
    const { h, total, last } = await settleOnForecast();
    expect(h.status!.conditions!.find((x) => x.type === 'ScalingActive'), JSON.stringify(h.status!.conditions)).to.include({ status: 'True', reason: 'ValidMetricFound' });
    expect(total, 'the forecast is above one pod\'s target').to.be.greaterThan(targetMilli);
    await waitReplicas(c, NS, 'php-apache', h.status!.currentReplicas!, 180_000);
    console.log(`      ${last}`);
    expect(serve!.running).to.equal(true);
  });

  it('prometheus-adapter-only: with serve --adapter=false --hpa-shape=head, the same HPA reads the exported forecast through prometheus-adapter', async () => {
    const c = env.cluster;
    // ehpa-adapter's metrics API goes away: the HPA loses the forecast (its CPU metric alone would scale down,
    // so the HPA stops: ScalingActive=False).
    await serve!.stop();
    serve = undefined;
    await waitHpa(c, NS, 'ehpa-php-apache', 'the external metric unavailable', (x) =>
      x.status?.conditions?.some((k) => k.type === 'ScalingActive' && k.status === 'False' && k.reason === 'FailedGetExternalMetric') ?? false, 120_000);
    // Exporter mode: controllers and craned's series on /metrics, scraped by Prometheus, served by
    // prometheus-adapter's external rules, which now hold external.metrics.k8s.io too.
    serve = await c.startAdapterProcess({ name: 'serve-exporter', args: serveArgs('serve-exporter', ['--hpa-shape=head', '--adapter=false']) });
    await c.setExtraScrapeTargets([{ target: `127.0.0.1:${serve.metricsPort}` }]);
    await c.routeMetricsApisToAdapter({ port: promAdapterPort, namespace: 'monitoring', serviceName: 'prometheus-adapter', groups: [EXTERNAL] });
    await c.waitMetricsApisAvailable(120_000, [EXTERNAL]);
    let series: { metric: Record<string, string> }[] = [];
    await waitFor('the exported forecast in Prometheus', async () => {
      series = await queryInstant(c.promUrl, 'crane_autoscaling_prediction{targetName="php-apache"}');
      return series.length === 1;
    }, { timeoutMs: 90_000 });
    // The exporter's labels are the head HPA's selector (the TSP names workload CPU resource.cpu).
    expect(series[0]!.metric).to.include({ ...SELECTOR, algorithm: 'dsp' });
    // The HPA has not changed (the exporter-mode controller wants the same one) and reads the forecast again.
    const hpa = (await c.admin.getJson<HpaObj>(hpaPath(NS, 'ehpa-php-apache')));
    expect(hpa.metadata.uid).to.equal(v07Hpa!.metadata.uid);
    expect(hpa.spec.metrics[1]).to.deep.equal({ type: 'External', external: { metric: { name: 'crane_autoscaling_prediction', selector: { matchLabels: SELECTOR } }, target: { type: 'AverageValue', averageValue: `${targetMilli}m` } } });
    const { h, last } = await settleOnForecast();
    expect(h.status!.conditions!.find((x) => x.type === 'ScalingActive'), JSON.stringify(h.status!.conditions)).to.include({ status: 'True', reason: 'ValidMetricFound' });
    console.log(`      through prometheus-adapter: ${last}`);
  });

  it('head: an External metric without a metric-query annotation is predicted on HEAD\'s default query, pinned to the namespace; one whose selector names another namespace is refused in status (crane-behaviour.md §B.4)', async () => {
    const c = env.cluster;
    await createDeployment(c, NS, 'queue-worker', { replicas: 1, cpuRequest: '50m' });
    const metric = (name: string, matchLabels: Record<string, string>) => ({ type: 'External', external: { metric: { name, selector: { matchLabels } }, target: { type: 'AverageValue', averageValue: '30' } } });
    await post(c, ehpaPath(NS), {
      apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler', metadata: { name: 'queue-worker', namespace: NS },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'queue-worker' }, minReplicas: 1, maxReplicas: 3, scaleStrategy: 'Preview',
        metrics: [metric('queue_messages_ready', { queue: 'orders' }), metric('secrets_total', { namespace: 'kube-system' })],
        prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } } },
      },
    });
    // The API server stores the TSP with the default query as the controller wrote it.
    const tsp = await waitObj(c, tspPath(NS, 'ehpa-queue-worker'), 'the TSP of queue-worker', () => true);
    expect((tsp.spec['predictionMetrics'] as { resourceIdentifier: string; type: string; expressionQuery?: { expression: string } }[]).map((m) => [m.resourceIdentifier, m.type, m.expressionQuery?.expression])).to.deep.equal([
      ['external.queue_messages_ready', 'ExpressionQuery', `sum(queue_messages_ready{namespace="${NS}",queue="orders"})`],
    ]);
    const e = await waitObj(c, ehpaPath(NS, 'queue-worker'), 'MetricsPredicted=False on queue-worker', (o) => o.status?.conditions?.some((x) => x.type === 'MetricsPredicted' && x.status === 'False') ?? false);
    const cond = e.status!.conditions!.find((x) => x.type === 'MetricsPredicted')!;
    expect(cond.reason).to.equal('DefaultQueryRefused');
    expect(cond.message).to.match(/^External secrets_total is not predicted: selector on "namespace" does not select the EHPA's own namespace "hpa-head"/);
    // The head HPA reads the defaulted metric's forecast under HEAD's identifier; the refused one keeps its original only.
    const hpa = await waitObj(c, hpaPath(NS, 'ehpa-queue-worker'), 'HPA of queue-worker', () => true);
    const rids = (hpa.spec['metrics'] as { external?: { metric: { name: string; selector?: { matchLabels?: Record<string, string> } } } }[])
      .filter((m) => m.external?.metric.name === 'crane_autoscaling_prediction').map((m) => m.external!.metric.selector?.matchLabels?.['resourceIdentifier']);
    expect(rids).to.deep.equal(['external.queue_messages_ready']);
  });
});
