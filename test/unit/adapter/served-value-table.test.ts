// One TSP fixture, every path that serves or reports its value: the number (or the reason there is none) must
// be the same through crane_pod_cpu_usage, crane_custom.pods_*, crane_external_*, crane_autoscaling_prediction,
// the exporter's gauge for prometheus-adapter and the EHPA's PredictionFallback condition. All of them decide
// through metric-values/forecast-value.ts; this table is what keeps a second copy from drifting.
import { expect } from 'chai';
import { asUser, startTestAdapter, type Running } from '../../helpers/adapter-fixture.ts';
import type { AdapterSources } from '../../../src/adapter/providers/sources.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import { predictionSamples } from '../../../src/adapter/crane-exporter.ts';
import { buildStatus } from '../../../src/ehpa/status.ts';
import { ehpaForecastValue, stepsAside } from '../../../src/metric-values/forecast-value.ts';
import { ehpa, pod, UID } from './fixtures.ts';

const HPA = asUser('hpa');
const uidSel = `autoscaling.crane.io%2Feffective-hpa-uid%3D${UID}`;
const POD_CPU = `/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/%2A/crane_pod_cpu_usage?labelSelector=app%3Dweb&metricLabelSelector=${uidSel}`;
const PODS_V07 = `/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/%2A/crane_custom.pods_http_requests?labelSelector=app%3Dweb&metricLabelSelector=${uidSel}`;
const EXT_V07 = `/apis/external.metrics.k8s.io/v1beta1/namespaces/default/crane_external_queue_messages_ready?labelSelector=${uidSel}`;
const head = (rid: string) =>
  `/apis/external.metrics.k8s.io/v1beta1/namespaces/default/crane_autoscaling_prediction?labelSelector=${encodeURIComponent(`targetKind=Deployment,targetName=web,targetNamespace=default,resourceIdentifier=${rid}`)}`;

const RIDS = ['crane_pod_cpu_usage', 'pods.http_requests', 'external.queue_messages_ready'] as const;
/** What the observed fallback reads for each metric (the fixture's Prometheus). */
const OBSERVED = { 'crane_pod_cpu_usage': 0.3, 'pods.http_requests': 45, 'external.queue_messages_ready': 60 };

type Row = { name: string; tsps: (nowMs: number) => TimeSeriesPrediction[] };

function tspOf(nowMs: number, over: { ready?: boolean; offsetSec?: number; drop?: string; stepAside?: string } = {}): TimeSeriesPrediction {
  const now = Math.floor(nowMs / 1000) + (over.offsetSec ?? 0);
  const series: Record<string, number[]> = { 'crane_pod_cpu_usage': [1.2, 1.8, 1.5], 'pods.http_requests': [60, 90, 75], 'external.queue_messages_ready': [120, 100] };
  const rids = Object.keys(series).filter((r) => r !== over.drop);
  return {
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: {
      name: 'ehpa-web', namespace: 'default',
      labels: { 'autoscaling.crane.io/effective-hpa-uid': UID, 'app.kubernetes.io/target-kind': 'Deployment', 'app.kubernetes.io/target-name': 'web', 'app.kubernetes.io/target-namespace': 'default' },
    },
    spec: { targetRef: { kind: 'Deployment', name: 'web', namespace: 'default' }, predictionWindowSeconds: 3600, predictionMetrics: rids.map((resourceIdentifier) => ({ resourceIdentifier })) },
    status: {
      predictionMetrics: rids.map((resourceIdentifier) => ({
        resourceIdentifier, ready: over.ready ?? true,
        ...(over.stepAside && resourceIdentifier !== 'external.queue_messages_ready' ? { stepAside: over.stepAside } : {}),
        prediction: [{ labels: [], samples: (series[resourceIdentifier] as number[]).map((v, i) => ({ timestamp: now + i * 600, value: v.toFixed(5) })) }],
      })),
    },
  };
}

const ROWS: Row[] = [
  { name: 'a ready forecast', tsps: (n) => [tspOf(n)] },
  { name: 'a forecast not ready', tsps: (n) => [tspOf(n, { ready: false })] },
  { name: 'a forecast that ended two hours ago', tsps: (n) => [tspOf(n, { offsetSec: -7200 })] },
  { name: 'a TSP without the pods series', tsps: (n) => [tspOf(n, { drop: 'pods.http_requests' })] },
  { name: 'no TSP at all', tsps: () => [] },
  { name: 'forecasts that step aside (all but the external one)', tsps: (n) => [tspOf(n, { stepAside: 'a plain HPA at the same cost is short fewer minutes' })] },
];

const total = (items: { value: string }[]) => items.reduce((s, i) => s + Number.parseInt(i.value, 10) / (i.value.endsWith('m') ? 1000 : 1), 0);

describe('a forecast that steps aside reads 0, even with --prediction-fallback=unavailable: the HPA scales on its other metrics', function () {
  this.timeout(30_000);
  it('crane_pod_cpu_usage and crane_autoscaling_prediction answer 0 for every pod, with the reason, and read no Prometheus', async () => {
    const a = await startTestAdapter({ predictionFallback: 'error' });
    try {
      a.authorizer.allowedUsers.add('hpa');
      a.sources.ehpas.push(ehpa());
      a.sources.pods.push(pod('web-1', a.clock.now), pod('web-2', a.clock.now));
      for (const p of ['web-1', 'web-2']) a.sources.observed.set(`default/${p}`, 150);
      let queries = 0;
      (a.sources as AdapterSources).observedQueryTotal = () => (queries++, 0.3);
      a.sources.tsps.push(tspOf(a.clock.now, { stepAside: 'it does not pay' }));
      const cpu = await a.get(POD_CPU, { headers: HPA });
      expect(cpu.status, cpu.text).to.equal(200);
      expect(cpu.json.items.map((i: { value: string }) => i.value)).to.deep.equal(['0', '0']);
      const h = await a.get(head('crane_pod_cpu_usage'), { headers: HPA });
      expect(h.status, h.text).to.equal(200);
      expect(h.json.items[0].value).to.equal('0');
      expect(queries).to.equal(0);
      expect(a.fallbacks.map((f) => [f.reason, f.outcome])).to.deep.equal([['PredictionSteppedAside', 'stepped-aside'], ['PredictionSteppedAside', 'stepped-aside']]);
      expect(a.fallbacks[0]?.message).to.equal('TimeSeriesPrediction default/ehpa-web: the forecast of crane_pod_cpu_usage steps aside: it does not pay');
      // Not stepping aside, the same adapter answers 503 for an unusable forecast, as Crane does.
      a.sources.tsps.splice(0, 1, tspOf(a.clock.now, { ready: false }));
      expect((await a.get(POD_CPU, { headers: HPA })).status).to.equal(503);
    } finally {
      await a.close();
    }
  });
});

describe('one decision for the served value: every served name, the exporter and the EHPA condition agree', function () {
  this.timeout(30_000);
  let a: Running;
  beforeEach(async () => {
    a = await startTestAdapter();
    a.authorizer.allowedUsers.add('hpa');
    const e = ehpa({
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        { type: 'Pods', pods: { metric: { name: 'http_requests' }, target: { type: 'AverageValue', averageValue: '10' } } },
        { type: 'External', external: { metric: { name: 'queue_messages_ready' }, target: { type: 'AverageValue', averageValue: '30' } } },
      ],
    });
    e.metadata.annotations = {
      'metric-query.autoscaling.crane.io/pods.http_requests': 'sum(rate(http_requests_total{namespace="default"}[5m]))',
      'metric-query.autoscaling.crane.io/external.queue_messages_ready': 'sum(rabbitmq_queue_messages_ready{namespace="default"})',
    };
    a.sources.ehpas.push(e);
    a.sources.pods.push(pod('web-1', a.clock.now), pod('web-2', a.clock.now), pod('web-3', a.clock.now));
    for (const p of ['web-1', 'web-2', 'web-3']) a.sources.observed.set(`default/${p}`, (OBSERVED.crane_pod_cpu_usage * 1000) / 3);
    (a.sources as AdapterSources).observedQueryTotal = (_ns, promql) => (promql.includes('http_requests') ? OBSERVED['pods.http_requests'] : promql.includes('rabbitmq') ? OBSERVED['external.queue_messages_ready'] : promql.includes('container_cpu_usage_seconds_total') ? OBSERVED.crane_pod_cpu_usage : undefined);
  });
  afterEach(async () => a.close());

  for (const row of ROWS) {
    it(row.name, async () => {
      const tsps = row.tsps(a.clock.now);
      a.sources.tsps.push(...tsps);
      const e = a.sources.ehpas[0]!;
      const decided = Object.fromEntries(RIDS.map((rid) => [rid, ehpaForecastValue(tsps, e, rid, a.clock.now)]));
      const expected = (rid: (typeof RIDS)[number]) => {
        const d = decided[rid]!;
        return d.ok ? d.largest : stepsAside(d.reason) ? 0 : OBSERVED[rid];
      };
      // The v0.7 names: per available pod (summed back to the workload) and the external total.
      const cpu = await a.get(POD_CPU, { headers: HPA });
      expect(cpu.status, cpu.text).to.equal(200);
      expect(total(cpu.json.items)).to.be.closeTo(expected('crane_pod_cpu_usage'), 0.002);
      const pods = await a.get(PODS_V07, { headers: HPA });
      expect(pods.status, pods.text).to.equal(200);
      expect(total(pods.json.items)).to.be.closeTo(expected('pods.http_requests'), 0.002);
      const ext = await a.get(EXT_V07, { headers: HPA });
      expect(ext.status, ext.text).to.equal(200);
      expect(total(ext.json.items)).to.be.closeTo(expected('external.queue_messages_ready'), 0.002);
      // HEAD's one name, for each identifier (and the HEAD alias of workload CPU).
      for (const [rid, asked] of [...RIDS.map((r) => [r, r] as const), ['crane_pod_cpu_usage', 'resource.cpu'] as const]) {
        const h = await a.get(head(asked), { headers: HPA });
        expect(h.status, `${asked}: ${h.text}`).to.equal(200);
        expect(total(h.json.items), asked).to.be.closeTo(expected(rid), 0.002);
      }
      // Every fallback the adapter reported carries the decided reason, and only unusable forecasts fell back.
      for (const f of a.fallbacks) {
        const rid = RIDS.find((r) => f.metric.endsWith(r) || (r === 'crane_pod_cpu_usage' && f.metric === 'crane_pod_cpu_usage')) ?? 'crane_pod_cpu_usage';
        const d = decided[rid]!;
        expect(d.ok, `${f.metric} fell back while the forecast was usable`).to.equal(false);
        if (!d.ok) expect(f.reason, f.metric).to.equal(d.reason);
      }
      // The exporter publishes the usable forecasts at the same numbers, 0 for those that stepped aside, and
      // nothing for the rest.
      const exported = await predictionSamples(a.sources, a.clock.now);
      for (const rid of RIDS) {
        const d = decided[rid]!;
        const sample = exported.find((s) => s.labels.resourceIdentifier === rid);
        if (d.ok) expect(sample?.value, rid).to.be.closeTo(d.largest, 0.002);
        else if (stepsAside(d.reason)) expect(sample?.value, rid).to.equal(0);
        else expect(sample, rid).to.equal(undefined);
      }
      // The EHPA condition the controller writes from the same decision, and the adapter's reason.
      const status = buildStatus({ ehpa: e, nowMs: a.clock.now, cpuForecast: ehpaForecastValue(tsps.slice(0, 1), e, 'crane_pod_cpu_usage', a.clock.now) });
      const fallback = status.conditions?.find((c) => c.type === 'PredictionFallback');
      const cpuDecision = decided.crane_pod_cpu_usage!;
      expect(fallback?.reason).to.equal(cpuDecision.ok ? 'ForecastServed' : cpuDecision.reason);
      const cpuFallback = a.fallbacks.find((f) => f.metric === 'crane_pod_cpu_usage');
      expect(cpuFallback?.reason ?? 'ForecastServed').to.equal(fallback?.reason);
    });
  }
});
