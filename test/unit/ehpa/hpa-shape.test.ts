// --hpa-shape: the backing HPA in either Crane generation's shape (docs/crane-behaviour.md §B.3, §C.9).
// The head column is what gocrane/crane pkg/controller/ehpa/hpa.go GetHPAMetrics (master) appends for each
// predicted metric: External `crane_autoscaling_prediction`, matchLabels {targetKind, targetName,
// targetNamespace, resourceIdentifier: pkg/utils/ehpa.go GetPredictionMetricIdentifier}, target
// {type: AverageValue, averageValue: the converted value, or the original's averageValue}. The v0.7 column
// is what this controller has always written (test/unit/ehpa/predicted-metrics.test.ts holds it too).
import { expect } from 'chai';
import { pino } from 'pino';
import type { V2MetricSpec } from '@kubernetes/client-node';
import { buildDesiredHpa, buildHpaMetrics, type HpaShape, type PodRequestsLookup } from '../../../src/ehpa/desired-hpa.ts';
import { buildDesiredTsp } from '../../../src/ehpa/desired-tsp.ts';
import { tspSeries } from '../../../src/adapter/tsp-series.ts';
import { EhpaReconciler } from '../../../src/ehpa/reconciler.ts';
import { StatusWriter } from '../../../src/kube/status-writer.ts';
import { resourcePath } from '../../../src/kube/api-client.ts';
import type { ScaleAccess } from '../../../src/kube/scale-client.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../../../src/api/ehpa.ts';
import type { HorizontalPodAutoscaler, Scale, Substitute } from '../../../src/api/autoscaling.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import type { PodLike } from '../../../src/api/pod.ts';
import { InMemoryObjects } from '../../helpers/in-memory-objects.ts';
import { UID, cpuUtilization50, ehpa, prediction } from './fixtures.ts';

const target = { targetKind: 'Deployment', targetName: 'php-apache', targetNamespace: 'default' };
const uid = { matchLabels: { 'autoscaling.crane.io/effective-hpa-uid': UID } };
const head = (resourceIdentifier: string, t: Record<string, string>): V2MetricSpec => ({
  type: 'External',
  external: { metric: { name: 'crane_autoscaling_prediction', selector: { matchLabels: { ...target, resourceIdentifier } } }, target: t as never },
});

// 4 available pods: cpu 500m each (container app 400m), memory 256Mi each.
const requests: PodRequestsLookup = (resource, container) =>
  resource === 'cpu' ? { pods: 4, requestMilli: container ? 1600 : 2000, missing: [] } : { pods: 4, requestMilli: 4 * 256 * 1024 * 1024 * 1000, missing: [] };

const SERIES_NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

interface Row {
  what: string;
  metric: V2MetricSpec;
  annotations?: Record<string, string>;
  v07: V2MetricSpec;
  head: V2MetricSpec;
}

const ROWS: Row[] = [
  {
    what: 'Resource cpu, Utilization 50 % (4 × 500m → 250m)',
    metric: cpuUtilization50 as V2MetricSpec,
    v07: { type: 'Pods', pods: { metric: { name: 'crane_pod_cpu_usage', selector: uid }, target: { type: 'AverageValue', averageValue: '250m' } } },
    // HEAD's identifier for workload CPU is resource.cpu (our TSP's crane_pod_cpu_usage is its alias in the adapter).
    head: head('resource.cpu', { type: 'AverageValue', averageValue: '250m' }),
  },
  {
    what: 'Resource cpu, AverageValue 300m',
    metric: { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '300m' } } },
    v07: { type: 'Pods', pods: { metric: { name: 'crane_pod_cpu_usage', selector: uid }, target: { type: 'AverageValue', averageValue: '300m' } } },
    head: head('resource.cpu', { type: 'AverageValue', averageValue: '300m' }),
  },
  {
    what: 'Resource memory, Utilization 70 % (trunc(4 × 256Mi × 0.7 / 4) in milli-bytes)',
    metric: { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } },
    // memory was never predicted before HEAD, so both shapes write HEAD's metric.
    v07: head('resource.memory', { type: 'AverageValue', averageValue: '187904819200m' }),
    head: head('resource.memory', { type: 'AverageValue', averageValue: '187904819200m' }),
  },
  {
    what: 'ContainerResource cpu of container app, Utilization 60 % (4 × 400m → 240m)',
    metric: { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } },
    v07: head('container-resource.cpu', { type: 'AverageValue', averageValue: '240m' }),
    head: head('container-resource.cpu', { type: 'AverageValue', averageValue: '240m' }),
  },
  {
    what: 'Pods http_requests, AverageValue 500m',
    metric: { type: 'Pods', pods: { metric: { name: 'http_requests' }, target: { type: 'AverageValue', averageValue: '500m' } } },
    annotations: { 'metric-query.autoscaling.crane.io/pods.http_requests': 'sum(rate(http_requests_total[5m]))' },
    v07: { type: 'Pods', pods: { metric: { name: 'crane_custom.pods_http_requests', selector: uid }, target: { type: 'AverageValue', averageValue: '500m' } } },
    head: head('pods.http_requests', { type: 'AverageValue', averageValue: '500m' }),
  },
  {
    what: 'External queue_messages_ready, AverageValue 30',
    metric: { type: 'External', external: { metric: { name: 'queue_messages_ready', selector: { matchLabels: { queue: 'a' } } }, target: { type: 'AverageValue', averageValue: '30' } } },
    annotations: { 'metric-query.autoscaling.crane.io/external.queue_messages_ready': 'sum(rabbitmq_queue_messages_ready)' },
    v07: { type: 'External', external: { metric: { name: 'crane_external_queue_messages_ready', selector: uid }, target: { type: 'AverageValue', averageValue: '30' } } },
    head: head('external.queue_messages_ready', { type: 'AverageValue', averageValue: '30' }),
  },
  {
    // HEAD would write AverageValue with no value, which the API server refuses (the whole HPA with it); we
    // keep the Value target, as the v0.7 shape does.
    what: 'External queue_lag, Value 100 (deliberate difference)',
    metric: { type: 'External', external: { metric: { name: 'queue_lag' }, target: { type: 'Value', value: '100' } } },
    annotations: { 'metric-query.autoscaling.crane.io/external.queue_lag': 'sum(lag)' },
    v07: { type: 'External', external: { metric: { name: 'crane_external_queue_lag', selector: uid }, target: { type: 'Value', value: '100' } } },
    head: head('external.queue_lag', { type: 'Value', value: '100' }),
  },
];

describe('--hpa-shape: the predicted metric of each kind under v0.7 and head (gocrane/crane pkg/controller/ehpa/hpa.go GetHPAMetrics)', () => {
  for (const row of ROWS) {
    for (const shape of ['v0.7', 'head'] as const) {
      it(`${row.what}: ${shape}`, () => {
        const e = ehpa({ metrics: [row.metric], prediction: prediction as never }, row.annotations ? { annotations: row.annotations } : {});
        const r = buildHpaMetrics(e, undefined, requests, shape);
        expect(r.problems).to.deep.equal([]);
        // The original stays first in both shapes (HEAD deep-copies spec.metrics unchanged).
        expect(r.metrics).to.deep.equal([row.metric, shape === 'head' ? row.head : row.v07]);
      });
    }
  }

  it('every metric at once: same order in both shapes, and in head every appended metric is External', () => {
    const annotations = Object.assign({}, ...ROWS.map((r) => r.annotations ?? {})) as Record<string, string>;
    // Rows 0 and 1 share resource.cpu: the second is a DuplicateIdentifier, so take one CPU row.
    const rows = ROWS.filter((_, i) => i !== 1);
    const e = ehpa({ metrics: rows.map((r) => r.metric), prediction: prediction as never, crons: [{ name: 'day', start: '0 9 * * *', end: '0 18 * * *', targetReplicas: 5 }] as never }, { annotations });
    const cron: V2MetricSpec = { type: 'External', external: { metric: { name: 'crane_autoscaling_cron', selector: { matchLabels: { ...target, resourceIdentifier: 'cron' } } }, target: { type: 'AverageValue', averageValue: '1' } } };
    const originals = rows.map((r) => r.metric);
    expect(buildHpaMetrics(e, undefined, requests, 'v0.7').metrics).to.deep.equal([...originals, ...rows.map((r) => r.v07), cron]);
    const h = buildHpaMetrics(e, undefined, requests, 'head').metrics;
    // The cron metric is HEAD's in both shapes (GetCronMetricSpecsForHPA).
    expect(h).to.deep.equal([...originals, ...rows.map((r) => r.head), cron]);
    expect(h.slice(originals.length).every((m) => m.type === 'External')).to.equal(true);
  });

  it('the default is v0.7, byte for byte', () => {
    const annotations = Object.assign({}, ...ROWS.map((r) => r.annotations ?? {})) as Record<string, string>;
    const e = ehpa({ metrics: ROWS.filter((_, i) => i !== 1).map((r) => r.metric), prediction: prediction as never }, { annotations });
    expect(JSON.stringify(buildHpaMetrics(e, undefined, requests))).to.equal(JSON.stringify(buildHpaMetrics(e, undefined, requests, 'v0.7')));
    expect(JSON.stringify(buildDesiredHpa({ ehpa: e, podRequests: requests }))).to.equal(JSON.stringify(buildDesiredHpa({ ehpa: e, podRequests: requests, shape: 'v0.7' })));
  });

  it('a conversion problem is the same in both shapes: same reason and message, the original kept alone', () => {
    const missing: PodRequestsLookup = () => ({ pods: 2, requestMilli: 500, missing: ['web-1'] });
    const e = ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction: prediction as never });
    const a = buildHpaMetrics(e, undefined, missing, 'v0.7');
    const b = buildHpaMetrics(e, undefined, missing, 'head');
    expect(b.problems).to.deep.equal(a.problems);
    expect(b.problem).to.deep.equal({ reason: 'MissingCPURequests', message: 'missing CPU request in pods: web-1' });
    expect(b.metrics).to.deep.equal([cpuUtilization50]);
  });

  it('the TSP: workload CPU is crane_pod_cpu_usage under v0.7 and HEAD\'s resource.cpu under head (what the head HPA and craned\'s exporter name); the other identifiers are HEAD\'s in both', () => {
    const annotations = Object.assign({}, ...ROWS.map((r) => r.annotations ?? {})) as Record<string, string>;
    const e = ehpa({ metrics: ROWS.filter((_, i) => i !== 1).map((r) => r.metric), prediction: prediction as never }, { annotations });
    const ids = (shape?: HpaShape) => buildDesiredTsp(e, shape)?.spec.predictionMetrics.map((m) => m.resourceIdentifier);
    const others = ['resource.memory', 'container-resource.cpu', 'pods.http_requests', 'external.queue_messages_ready', 'external.queue_lag'];
    expect(ids()).to.deep.equal(['crane_pod_cpu_usage', ...others]);
    expect(ids('v0.7')).to.deep.equal(ids());
    expect(ids('head')).to.deep.equal(['resource.cpu', ...others]);
    // Only the identifier differs: same query, same algorithm.
    const [a, b] = [buildDesiredTsp(e, 'v0.7')!, buildDesiredTsp(e, 'head')!];
    expect(b.spec.predictionMetrics.map((m) => ({ ...m, resourceIdentifier: '' }))).to.deep.equal(a.spec.predictionMetrics.map((m) => ({ ...m, resourceIdentifier: '' })));
  });

  it('prometheus-adapter-only installs: the series craned\'s exporter publishes for the head TSP carry exactly the head HPA\'s selector', async () => {
    const e = ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction: prediction as never });
    const nowS = Math.floor(SERIES_NOW / 1000);
    // The status the TSP controller writes under the identifier the builder chose.
    const desired = buildDesiredTsp(e, 'head')!;
    const tsp = { ...desired, status: { predictionMetrics: [{ resourceIdentifier: desired.spec.predictionMetrics[0]!.resourceIdentifier, ready: true, prediction: [{ labels: [], samples: [{ timestamp: nowS, value: '0.9' }, { timestamp: nowS + 60, value: '1.2' }] }] }] } } as TimeSeriesPrediction;
    const { series } = await tspSeries([tsp], SERIES_NOW, { maxPairs: 10 });
    const hpaSelector = buildHpaMetrics(e, undefined, requests, 'head').metrics[1]?.external?.metric.selector?.matchLabels;
    expect(series.map((x) => x.labels)).to.deep.equal([{ ...hpaSelector, algorithm: 'dsp' }]);
    expect(series[0]?.prediction).to.equal(1.2);
  });

  it('without prediction, both shapes write the originals and the cron metric only', () => {
    const e = ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], crons: [{ name: 'c', start: '0 9 * * *', end: '0 18 * * *', targetReplicas: 3 }] as never });
    expect(buildHpaMetrics(e, undefined, requests, 'head').metrics).to.deep.equal(buildHpaMetrics(e, undefined, requests, 'v0.7').metrics);
  });
});

// Switching the flag on a running cluster: the controller restarts with the new flag, re-applies every
// EHPA's desired HPA, and the existing HPA is rewritten in place (and back again).
const NS = 'default';
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const EHPAS = (ns: string) => resourcePath('autoscaling.crane.io/v1alpha1', 'effectivehorizontalpodautoscalers', ns);
const HPAS = (ns: string) => resourcePath('autoscaling/v2', 'horizontalpodautoscalers', ns);
const TSPS = (ns: string) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns);
const SUBS = (ns: string) => resourcePath('autoscaling.crane.io/v1alpha1', 'substitutes', ns);
const PODS = (ns: string) => resourcePath('v1', 'pods', ns);

const scale: ScaleAccess = {
  get: async (): Promise<Scale> => ({ metadata: { name: 'php-apache', namespace: NS }, spec: { replicas: 2 }, status: { replicas: 2, selector: 'app=php' } }),
  setReplicas: async () => {
    throw new Error('not expected');
  },
};

function reconcilerFor(store: InMemoryObjects, shape: HpaShape | undefined): EhpaReconciler {
  return new EhpaReconciler({
    client: store,
    ehpas: store.cache<EffectiveHorizontalPodAutoscaler>(EHPAS),
    hpas: store.cache<HorizontalPodAutoscaler>(HPAS),
    tsps: store.cache<TimeSeriesPrediction>(TSPS),
    substitutes: store.cache<Substitute>(SUBS),
    pods: store.cache<PodLike>(PODS),
    scale,
    events: { event: () => undefined },
    status: new StatusWriter(store),
    log: pino({ level: 'silent' }),
    now: () => NOW,
    resyncMs: 300_000,
    ...(shape ? { hpaShape: shape } : {}),
  });
}

describe('--hpa-shape switched on a running cluster', () => {
  it('a restart with the other shape rewrites the existing HPA (and the TSP\'s CPU identifier) in place, and switching back restores them', async () => {
    const store = new InMemoryObjects();
    store.seed(EHPAS(NS), ehpa({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '300m' } } }] as never, prediction: prediction as never }));
    const hpa = () => store.read<HorizontalPodAutoscaler>(`${HPAS(NS)}/ehpa-php-apache`);
    const tspIds = () => store.read<TimeSeriesPrediction>(`${TSPS(NS)}/ehpa-php-apache`)?.spec.predictionMetrics.map((m) => m.resourceIdentifier);
    const predicted = () => hpa()?.spec.metrics?.[1];
    const fallback = () => store.read<EffectiveHorizontalPodAutoscaler>(`${EHPAS(NS)}/php-apache`)?.status?.conditions?.find((c) => c.type === 'PredictionFallback');

    await reconcilerFor(store, undefined).reconcile(`${NS}/php-apache`);
    expect(predicted()?.pods?.metric.name).to.equal('crane_pod_cpu_usage');
    expect(tspIds()).to.deep.equal(['crane_pod_cpu_usage']);
    const uidBefore = hpa()?.metadata.uid;
    expect(fallback()?.message).to.match(/^crane_pod_cpu_usage /);

    await reconcilerFor(store, 'head').reconcile(`${NS}/php-apache`);
    expect(predicted()).to.deep.equal(head('resource.cpu', { type: 'AverageValue', averageValue: '300m' }));
    expect(hpa()?.spec.metrics).to.have.length(2);
    // Updated, not replaced: the HPA controller keeps its history (lastScaleTime, stabilization).
    expect(hpa()?.metadata.uid).to.equal(uidBefore);
    expect(tspIds()).to.deep.equal(['resource.cpu']);
    // The condition names the metric the HPA now reads.
    expect(fallback()?.message).to.match(/^crane_autoscaling_prediction /);

    await reconcilerFor(store, 'v0.7').reconcile(`${NS}/php-apache`);
    expect(predicted()?.pods?.metric.name).to.equal('crane_pod_cpu_usage');
    expect(tspIds()).to.deep.equal(['crane_pod_cpu_usage']);
    expect(hpa()?.metadata.uid).to.equal(uidBefore);
  });
});
