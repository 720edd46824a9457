// End-to-end, exporter mode (for clusters where prometheus-adapter already serves external metrics):
// prometheus-adapter v0.12.0 (built from the Go module proxy by scripts/build-prometheus-adapter.sh) owns
// external.metrics.k8s.io; `ehpa-adapter serve --adapter=false` runs the controllers and exports
// crane_autoscaling_cron / crane_autoscaling_prediction on its /metrics; the harness Prometheus scrapes that; prometheus-adapter serves the series with the rules of
// manifests/components/prometheus-adapter/external-rules.yaml, and the real HPA scales on them:
//   - the HPA the EHPA generated, on the cron metric;
//   - an HPA written in Crane v0.8+'s shape, on the predicted metric of a DSP forecast of a backfilled trace.
// kwok plays the nodes (kube-scheduler, kwok, the real metrics-server for metrics.k8s.io).
import { expect } from 'chai';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createDeployment, createNamespace, installCrds, installManifestRbac, MANIFESTS_DIR, prometheusAdapterBinary, queryInstant, waitFor, waitHpa, waitReplicas,
  type AdapterProcess,
} from './harness/index.ts';
import { startProcess, type ManagedProcess } from './harness/processes.ts';
import { CRANE_TRACES, useCluster } from './helpers.ts';
import { cronWindowNow, ehpaObject, ehpaPath, externalItems, hpaPath, mergePatch, post, quantityMilli, tspPath, waitObj } from './scenario-helpers.ts';
import { predictionAnswer } from '../../src/metric-values/forecast-value.ts';
import type { TimeSeriesPrediction } from '../../src/api/prediction.ts';

const NS = 'exporter';
const EXTERNAL = 'external.metrics.k8s.io';
const RULES = join(MANIFESTS_DIR, 'components', 'prometheus-adapter', 'external-rules.yaml');
const TRACE = fileURLToPath(new URL('input1.csv', CRANE_TRACES));
const CPU_SCALE = 0.1;
const LAST_POINTS = 2 * 1440 + 120;
const PRED_SELECTOR = { targetKind: 'Deployment', targetName: 'web', targetNamespace: NS, resourceIdentifier: 'crane_pod_cpu_usage' };

const selectorQuery = (labels: Record<string, string>) =>
  encodeURIComponent(Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`).join(','));

describe('e2e: exporter mode — prometheus-adapter owns external.metrics.k8s.io, ehpa-adapter runs --adapter=false', function () {
  this.timeout(900_000);
  const env = useCluster({
    traces: [{ file: TRACE, namespace: NS, pod: 'web-7d9c8b6f5d-abcde', container: 'app', cpuScale: CPU_SCALE, lastPoints: LAST_POINTS }],
  });
  let promAdapter: ManagedProcess | undefined;
  let serve: AdapterProcess | undefined;

  const external = async (ns: string, metric: string, labels: Record<string, string>) =>
    env.cluster.admin.get(`/apis/${EXTERNAL}/v1beta1/namespaces/${ns}/${metric}?labelSelector=${selectorQuery(labels)}`);
  const externalValue = async (metric: string, labels: Record<string, string>): Promise<number | undefined> => {
    const r = await external(NS, metric, labels);
    if (r.status !== 200) return undefined;
    const items = externalItems(r.json);
    return items.length === 1 ? quantityMilli(items[0]!.value) / 1000 : undefined;
  };

  before(async function () {
    this.timeout(600_000);
    const c = env.cluster;
    await installCrds(c);
    await installManifestRbac(c);
    // prometheus-adapter as a cluster admin would run it, reading the rules users add from the component.
    const bin = await prometheusAdapterBinary();
    promAdapter = startProcess({
      name: 'prometheus-adapter',
      command: bin,
      logDir: c.logDir,
      args: [
        `--secure-port=${c.adapterPort}`, '--bind-address=127.0.0.1', `--cert-dir=${join(c.dir, 'prometheus-adapter-certs')}`,
        `--lister-kubeconfig=${c.kubeconfigPath}`, `--authentication-kubeconfig=${c.kubeconfigPath}`, `--authorization-kubeconfig=${c.kubeconfigPath}`,
        `--prometheus-url=${c.promUrl}/`, `--config=${RULES}`,
        // Pick up new series within seconds (default: every 10 minutes).
        '--metrics-relist-interval=2s', '--metrics-max-age=30s', '--v=2',
      ],
    });
    // Only external.metrics.k8s.io goes to prometheus-adapter (it serves no custom rules here).
    await c.routeMetricsApisToAdapter({ namespace: 'monitoring', serviceName: 'prometheus-adapter', groups: [EXTERNAL] });
    await c.waitMetricsApisAvailable(180_000, [EXTERNAL]);

    serve = await c.startAdapterProcess({
      name: 'serve-exporter',
      args: [
        '--adapter=false', `--prometheus-url=${c.promUrl}`,
        '--leader-election-namespace=ehpa-system', '--leader-election-identity=serve-exporter',
        '--leader-election-lease-duration=4s', '--leader-election-renew-deadline=3s', '--leader-election-retry-period=1s',
        '--prediction-update-frequency=5s', '--log-level=debug', '--prediction-pays=observe',
      ],
    });
    await c.setExtraScrapeTargets([{ target: `127.0.0.1:${serve.metricsPort}` }]);
    await createNamespace(c, NS);
    await createDeployment(c, NS, 'solo', { replicas: 1, cpuRequest: '200m' });
    await createDeployment(c, NS, 'web', { replicas: 1, cpuRequest: '200m' });
    await createDeployment(c, NS, 'reader', { replicas: 1, cpuRequest: '100m' });
    // The forecast takes a while: start it now. (The HPA this EHPA generates reads crane_pod_cpu_usage from
    // custom.metrics.k8s.io, which nobody serves here; see the component README. Only the TSP is used.)
    await post(c, ehpaPath(NS), ehpaObject(NS, 'web', 'web', {
      minReplicas: 1, maxReplicas: 8,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '500m' } } }],
      prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d' } } },
    }));
  });

  after(async () => {
    await serve?.stop();
    await promAdapter?.stop(5000);
  });

  it('the external metrics APIService is prometheus-adapter\'s, and serve runs without its own adapter', async () => {
    const c = env.cluster;
    const a = (await c.admin.get(`/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.${EXTERNAL}`)).json as { spec: { service: { name: string; namespace: string } } };
    expect(a.spec.service).to.include({ namespace: 'monitoring', name: 'prometheus-adapter' });
    // serve registered no APIService of its own and answers /metrics.
    const m = await fetch(`${serve!.metricsUrl}/metrics`);
    expect(m.status).to.equal(200);
    expect(await m.text()).to.contain('# TYPE crane_autoscaling_cron gauge');
  });

  it('a cron window scales the Deployment through exporter -> Prometheus -> prometheus-adapter -> the real HPA', async () => {
    const c = env.cluster;
    const window = cronWindowNow('burst', 10, 3);
    const t0 = Date.now();
    const since = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
    await post(c, ehpaPath(NS), ehpaObject(NS, 'solo', 'solo', { minReplicas: 1, maxReplicas: 5, crons: [window.cron] }));
    const labels = { resourceIdentifier: 'cron', targetKind: 'Deployment', targetName: 'solo', targetNamespace: NS };

    // 1. The series in Prometheus, with Crane's labels, scraped from serve's /metrics.
    let series: { metric: Record<string, string>; value: [number, string] }[] = [];
    await waitFor('crane_autoscaling_cron for solo in Prometheus', async () => {
      series = await queryInstant(c.promUrl, `crane_autoscaling_cron{targetName="solo"}`);
      return series.length === 1 && series[0]!.value[1] === '3';
    }, { timeoutMs: 60_000 });
    expect(series[0]!.metric).to.include({ ...labels, __name__: 'crane_autoscaling_cron', job: 'extra' });
    const inPrometheus = since();

    // 2. prometheus-adapter serves it through the aggregator under the generated HPA's name and selector.
    await waitFor('crane_autoscaling_cron 3 via prometheus-adapter', async () => (await externalValue('crane_autoscaling_cron', labels)) === 3, { timeoutMs: 90_000 });
    const served = since();
    const hpa = (await c.admin.get(hpaPath(NS, 'ehpa-solo'))).json as { spec: { metrics: unknown[] } };
    expect(hpa.spec.metrics).to.deep.equal([{
      type: 'External',
      external: { metric: { name: 'crane_autoscaling_cron', selector: { matchLabels: labels } }, target: { type: 'AverageValue', averageValue: '1' } },
    }]);

    // 3. The real HPA scales on it.
    await waitReplicas(c, NS, 'solo', 3, 180_000);
    console.log(`      after the EHPA create: series in Prometheus ${inPrometheus}, served by prometheus-adapter ${served}, Deployment at 3 replicas ${since()}`);
    const h = await waitHpa(c, NS, 'ehpa-solo', 'cron metric read at 3 replicas', (x) => x.status?.desiredReplicas === 3 && x.status.currentReplicas === 3);
    expect(h.status!.currentMetrics).to.deep.equal([{
      type: 'External',
      external: { metric: { name: 'crane_autoscaling_cron', selector: { matchLabels: labels } }, current: { averageValue: '1' } },
    }]);
    expect(h.status!.conditions!.find((x) => x.type === 'ScalingActive')).to.include({ status: 'True', reason: 'ValidMetricFound' });
    expect(Date.now(), 'scaled within the window').to.be.below(window.endMs);

    // 4. The rules confine a request to its own namespace: asking from "default" for this namespace's
    //    workload finds nothing (prometheus-adapter adds targetNamespace="default").
    const cross = await external('default', 'crane_autoscaling_cron', labels);
    const crossItems = cross.status === 200 ? externalItems(cross.json) : [];
    expect(crossItems, `status ${cross.status}`).to.deep.equal([]);
  });

  it('the exported value follows the EHPA on every scrape: lowering targetReplicas scales the Deployment down', async () => {
    const c = env.cluster;
    const e = (await c.admin.get(ehpaPath(NS, 'solo'))).json as { spec: { crons: Record<string, unknown>[] } };
    await mergePatch(c, ehpaPath(NS, 'solo'), { spec: { crons: [{ ...e.spec.crons[0], targetReplicas: 2 }] } });
    await waitReplicas(c, NS, 'solo', 2, 180_000);
    const h = await waitHpa(c, NS, 'ehpa-solo', 'desired 2', (x) => x.status?.desiredReplicas === 2 && x.status.currentReplicas === 2);
    expect(h.status!.conditions!.find((x) => x.type === 'ScalingActive')?.status).to.equal('True');
  });

  it('a Crane v0.8+-shaped HPA scales on crane_autoscaling_prediction, valued as the adapter would answer it', async () => {
    const c = env.cluster;
    await waitObj(c, tspPath(NS, 'ehpa-web'), 'TSP Ready', (t) => t.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ?? false, 300_000);
    let series: { metric: Record<string, string>; value: [number, string] }[] = [];
    await waitFor('crane_autoscaling_prediction for web in Prometheus', async () => {
      series = await queryInstant(c.promUrl, `crane_autoscaling_prediction{targetName="web"}`);
      return series.length === 1;
    }, { timeoutMs: 60_000 });
    expect(series[0]!.metric).to.include({ ...PRED_SELECTOR, algorithm: 'dsp' });

    // Served by prometheus-adapter; compare with what ehpa-adapter's own adapter computes from the TSP now.
    let served: number | undefined;
    await waitFor('crane_autoscaling_prediction via prometheus-adapter', async () => (served = await externalValue('crane_autoscaling_prediction', PRED_SELECTOR)) !== undefined, { timeoutMs: 90_000 });
    const tsp = (await c.admin.get(tspPath(NS, 'ehpa-web'))).json as TimeSeriesPrediction;
    const own = predictionAnswer([tsp], { kind: 'Deployment', name: 'web', namespace: NS }, 'crane_pod_cpu_usage', Date.now());
    expect(own.ok).to.equal(true);
    const ownValue = own.ok ? Number(own.milli) / 1000 : NaN;
    // The window slides between the two readings; the DSP forecast moves by far less than 5 % in seconds.
    expect(served!).to.be.closeTo(ownValue, Math.max(0.002, ownValue * 0.05));
    expect(served!).to.be.greaterThan(0);
    console.log(`      forecast: prometheus-adapter serves ${served} cores, ehpa-adapter's predictionAnswer gives ${ownValue}`);

    // An HPA as Crane v0.8+ writes one: target so that the forecast asks for 3 replicas of "reader".
    const targetMilli = Math.max(1, Math.round((served! * 1000) / 2.5));
    await post(c, hpaPath(NS), {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'reader', namespace: NS },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'reader' }, minReplicas: 1, maxReplicas: 6,
        metrics: [{ type: 'External', external: { metric: { name: 'crane_autoscaling_prediction', selector: { matchLabels: PRED_SELECTOR } }, target: { type: 'AverageValue', averageValue: `${targetMilli}m` } } }],
      },
    });
    await waitReplicas(c, NS, 'reader', 3, 180_000);
    const h = await waitHpa(c, NS, 'reader', 'desired 3 from the forecast', (x) => x.status?.desiredReplicas === 3 && x.status.currentReplicas === 3);
    expect(h.status!.conditions!.find((x) => x.type === 'ScalingActive')).to.include({ status: 'True', reason: 'ValidMetricFound' });
  });

  it('a TSP applied by hand (no EHPA) reaches Prometheus: crane_autoscaling_prediction and crane_prediction_tsp at its future time', async () => {
    const c = env.cluster;
    const rid = 'by-hand-cpu';
    await post(c, tspPath(NS), {
      apiVersion: 'prediction.crane.io/v1alpha1', kind: 'TimeSeriesPrediction',
      metadata: { name: 'by-hand', namespace: NS },
      spec: {
        // targetRef.namespace left out, as users write it: the series still names this namespace.
        targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        predictionWindowSeconds: 3600,
        predictionMetrics: [{
          resourceIdentifier: rid, type: 'ResourceQuery', resourceQuery: 'cpu',
          algorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d' } },
        }],
      },
    });
    await waitObj(c, tspPath(NS, 'by-hand'), 'hand-made TSP Ready', (t) => t.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ?? false, 300_000);
    const labels = { targetKind: 'Deployment', targetName: 'web', targetNamespace: NS, resourceIdentifier: rid, algorithm: 'dsp' };

    // 1. On serve's /metrics: the served value without a timestamp, the next point with its own, in the future.
    const scrapedAt = Date.now();
    const text = await (await fetch(`${serve!.metricsUrl}/metrics`)).text();
    const labelText = `{targetKind="Deployment",targetName="web",targetNamespace="${NS}",resourceIdentifier="${rid}",algorithm="dsp"}`;
    const line = (name: string) => text.split('\n').find((l) => l.startsWith(`${name}${labelText} `))?.split(' ').slice(1);
    const served = line('crane_autoscaling_prediction');
    const next = line('crane_prediction_tsp');
    expect(served, 'crane_autoscaling_prediction line, without a timestamp').to.have.length(1);
    expect(next, 'crane_prediction_tsp line, with a timestamp').to.have.length(2);
    const nextTs = Number(next![1]);
    expect(nextTs, 'the first point at or after now').to.be.at.least(Math.floor(scrapedAt / 1000) * 1000 - 5_000).and.below(scrapedAt + 120_000);
    expect(Number(served![0])).to.be.greaterThan(0);
    // The point is in the window whose maximum is served (to the served value's 7 significant digits).
    expect(Number(next![0])).to.be.at.least(0).and.at.most(Number(served![0]) * (1 + 1e-6));

    // 2. In Prometheus, with Crane's labels: the served value now, the model point at its own (future) time.
    let inProm: { metric: Record<string, string>; value: [number, string] }[] = [];
    await waitFor('the hand-made TSP\'s crane_autoscaling_prediction in Prometheus', async () => {
      inProm = await queryInstant(c.promUrl, `crane_autoscaling_prediction{resourceIdentifier="${rid}"}`);
      return inProm.length === 1;
    }, { timeoutMs: 60_000 });
    expect(inProm[0]!.metric).to.include({ ...labels, __name__: 'crane_autoscaling_prediction' });
    let point: { metric: Record<string, string>; value: [number, string] }[] = [];
    await waitFor('crane_prediction_tsp in Prometheus at its future timestamp', async () => {
      point = await queryInstant(c.promUrl, `timestamp(crane_prediction_tsp{resourceIdentifier="${rid}"})`, Date.now() / 1000 + 180);
      return point.length === 1;
    }, { timeoutMs: 60_000 });
    const storedTs = Number(point[0]!.value[1]) * 1000;
    expect(point[0]!.metric).to.include(labels);
    // Stored at a forecast point's own time, not a scrape time: on the grid of the TSP's predicted points (the
    // status is rewritten every 5 s here, so the very point may have left it by now; its grid has not).
    const byHand = (await c.admin.get(tspPath(NS, 'by-hand'))).json as TimeSeriesPrediction;
    const pointTimes = (byHand.status?.predictionMetrics?.find((m) => m.resourceIdentifier === rid)?.prediction?.[0]?.samples ?? []).map((x) => x.timestamp * 1000);
    const step = pointTimes[1]! - pointTimes[0]!;
    expect(step).to.equal(60_000);
    expect((storedTs - pointTimes[0]!) % step, `${storedTs} on the forecast's 60 s grid from ${pointTimes[0]}`).to.equal(0);
    expect(storedTs).to.be.at.least(Math.floor(scrapedAt / 1000) * 1000 - 5_000);
    console.log(`      hand-made TSP: served ${served![0]} cores; next point ${next![0]} at now + ${((nextTs - scrapedAt) / 1000).toFixed(0)} s, stored in Prometheus at ${new Date(storedTs).toISOString()}`);

    // 3. prometheus-adapter serves the hand-made TSP's forecast to an HPA in this namespace, as the EHPA's.
    let viaAdapter: number | undefined;
    await waitFor('the hand-made forecast via prometheus-adapter', async () => (viaAdapter = await externalValue('crane_autoscaling_prediction', { targetKind: 'Deployment', targetName: 'web', targetNamespace: NS, resourceIdentifier: rid })) !== undefined, { timeoutMs: 90_000 });
    expect(viaAdapter!).to.be.greaterThan(0);
  });
});
