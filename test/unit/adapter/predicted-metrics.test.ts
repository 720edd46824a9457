// Every predicted metric served under each Crane generation's name (docs/crane-behaviour.md §0.1, §C.2,
// §C.3): v0.6–v0.7 Pods `crane_custom.pods_<name>` and External `crane_external_<name>` (EHPA uid selector),
// HEAD External `crane_autoscaling_prediction{targetKind,targetName,targetNamespace,resourceIdentifier}`;
// with the fallback semantics of crane_pod_cpu_usage (observed value of the same query, with the reason).
import { expect } from 'chai';
import { asUser, startTestAdapter, type Running } from '../../helpers/adapter-fixture.ts';
import type { AdapterSources } from '../../../src/adapter/providers/sources.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import { workloadMemoryQuery } from '../../../src/prediction/history/queries.ts';
import { ehpa, pod, UID } from './fixtures.ts';

const HPA = asUser('hpa');
const HTTP_Q = 'sum(rate(http_requests_total{namespace="default",pod=~"web-.*"}[5m]))';
const QUEUE_Q = 'sum(rabbitmq_queue_messages_ready{namespace="default",queue="orders"})';
const uidSel = `autoscaling.crane.io%2Feffective-hpa-uid%3D${UID}`;
const PODS_V07 = `/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/%2A/crane_custom.pods_http_requests?labelSelector=app%3Dweb&metricLabelSelector=${uidSel}`;
const EXT_V07 = `/apis/external.metrics.k8s.io/v1beta1/namespaces/default/crane_external_queue_messages_ready?labelSelector=${uidSel}`;
const head = (rid: string) =>
  `/apis/external.metrics.k8s.io/v1beta1/namespaces/default/crane_autoscaling_prediction?labelSelector=${encodeURIComponent(`targetKind=Deployment,targetName=web,targetNamespace=default,resourceIdentifier=${rid}`)}`;

function multiTsp(nowMs: number, series: Record<string, number[]>): TimeSeriesPrediction {
  const now = Math.floor(nowMs / 1000);
  return {
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: {
      name: 'ehpa-web', namespace: 'default',
      labels: { 'autoscaling.crane.io/effective-hpa-uid': UID, 'app.kubernetes.io/target-kind': 'Deployment', 'app.kubernetes.io/target-name': 'web', 'app.kubernetes.io/target-namespace': 'default' },
    },
    spec: { targetRef: { kind: 'Deployment', name: 'web', namespace: 'default' }, predictionWindowSeconds: 3600, predictionMetrics: Object.keys(series).map((resourceIdentifier) => ({ resourceIdentifier })) },
    status: {
      predictionMetrics: Object.entries(series).map(([resourceIdentifier, values]) => ({
        resourceIdentifier, ready: true,
        prediction: [{ labels: [], samples: values.map((v, i) => ({ timestamp: now + i * 600, value: v.toFixed(5) })) }],
      })),
    },
  };
}

function itemValues(r: { json: { items: { value: string; describedObject?: { name: string } }[] } }) {
  return r.json.items.map((i) => (i.describedObject ? [i.describedObject.name, i.value] : i.value));
}

for (const form of ['HEAD', 'v0.6–v0.7'] as const) {
  describe(`predicted memory, Pods and External metrics (annotations in the ${form} form)`, function () {
    this.timeout(30_000);
    let a: Running;
    let queries: { ns: string; promql: string }[];
    beforeEach(async () => {
      a = await startTestAdapter();
      a.authorizer.allowedUsers.add('hpa');
      const annotations: Record<string, string> = form === 'HEAD'
        ? { 'metric-query.autoscaling.crane.io/pods.http_requests': HTTP_Q, 'metric-query.autoscaling.crane.io/external.queue_messages_ready': QUEUE_Q }
        : { 'metric-query.autoscaling.crane.io/http_requests': HTTP_Q, 'metric-query.autoscaling.crane.io/queue_messages_ready': QUEUE_Q };
      const e = ehpa({
        metrics: [
          { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '256Mi' } } },
          { type: 'Pods', pods: { metric: { name: 'http_requests' }, target: { type: 'AverageValue', averageValue: '10' } } },
          { type: 'External', external: { metric: { name: 'queue_messages_ready' }, target: { type: 'AverageValue', averageValue: '30' } } },
        ],
      });
      e.metadata.annotations = annotations;
      a.sources.ehpas.push(e);
      // Forecasts: memory 1 GiB total, 90 requests/s, 120 messages (largest in the window).
      a.sources.tsps.push(multiTsp(a.clock.now, { 'resource.memory': [2 ** 30, 2 ** 29], 'pods.http_requests': [60, 90, 75], 'external.queue_messages_ready': [120, 100] }));
      a.sources.pods.push(pod('web-1', a.clock.now), pod('web-2', a.clock.now), pod('web-3', a.clock.now), pod('web-new', a.clock.now, { readyForMs: 10_000 }));
      queries = [];
      (a.sources as AdapterSources).observedQueryTotal = (ns, promql) => {
        queries.push({ ns, promql });
        return promql.includes('http_requests_total') ? 45 : promql.includes('rabbitmq') ? 60 : 3 * 2 ** 28;
      };
    });
    afterEach(async () => a.close());

    it('serves the forecast under the v0.7 names: per available pod for Pods, the total for External', async () => {
      const pods = await a.get(PODS_V07, { headers: HPA });
      expect(pods.status).to.equal(200);
      // 90 requests/s over the 3 available pods (web-new is Ready for only 10 s).
      expect(itemValues(pods)).to.deep.equal([['web-1', '30'], ['web-2', '30'], ['web-3', '30']]);
      const ext = await a.get(EXT_V07, { headers: HPA });
      expect(ext.status).to.equal(200);
      expect(itemValues(ext)).to.deep.equal(['120']);
      expect(a.fallbacks).to.deep.equal([]);
    });

    it('serves the same forecasts under HEAD\'s crane_autoscaling_prediction, memory included', async () => {
      // Forecasts are float32 readings trimmed to 7 digits (prediction-provider.ts): 2^30 bytes reads 1073742k.
      expect(itemValues(await a.get(head('resource.memory'), { headers: HPA }))).to.deep.equal(['1073742k']);
      expect(itemValues(await a.get(head('pods.http_requests'), { headers: HPA }))).to.deep.equal(['90']);
      expect(itemValues(await a.get(head('external.queue_messages_ready'), { headers: HPA }))).to.deep.equal(['120']);
    });

    it('with the forecast removed, every name answers the observed value of the same query and reports why', async () => {
      a.sources.tsps = [];
      const pods = await a.get(PODS_V07, { headers: HPA });
      expect(pods.status).to.equal(200);
      expect(itemValues(pods)).to.deep.equal([['web-1', '15'], ['web-2', '15'], ['web-3', '15']]);
      expect(itemValues(await a.get(EXT_V07, { headers: HPA }))).to.deep.equal(['60']);
      // Memory observed = the working set of the workload, Crane's built-in memory query.
      expect(itemValues(await a.get(head('resource.memory'), { headers: HPA }))).to.deep.equal(['805306368']);
      expect(queries.map((q) => q.ns)).to.deep.equal(['default', 'default', 'default']);
      expect(queries[0]?.promql).to.contain('http_requests_total');
      expect(queries[1]?.promql).to.contain('rabbitmq_queue_messages_ready');
      expect(queries[2]?.promql).to.equal(workloadMemoryQuery('default', 'Deployment', 'web'));
      expect(a.fallbacks.map((f) => [f.metric, f.reason, f.outcome])).to.deep.equal([
        ['crane_custom.pods_ pods.http_requests', 'PredictionMissing', 'observed'],
        ['crane_external_ external.queue_messages_ready', 'PredictionMissing', 'observed'],
        ['crane_autoscaling_prediction resource.memory', 'PredictionMissing', 'observed'],
      ]);
      expect(await a.registry.metrics()).to.match(/ehpa_adapter_prediction_fallbacks_total\{metric="crane_custom.pods_",reason="PredictionMissing",outcome="observed"\} 1/);
    });
  });
}

describe('predicted metrics when neither forecast nor observation can be used', function () {
  this.timeout(30_000);
  let a: Running;
  afterEach(async () => a.close());
  const withEhpa = (r: Running) => {
    const e = ehpa({ metrics: [{ type: 'Pods', pods: { metric: { name: 'http_requests' }, target: { type: 'AverageValue', averageValue: '10' } } }] });
    e.metadata.annotations = { 'metric-query.autoscaling.crane.io/pods.http_requests': HTTP_Q };
    r.sources.ehpas.push(e);
    r.sources.pods.push(pod('web-1', r.clock.now));
    r.authorizer.allowedUsers.add('hpa');
  };

  it('--prediction-fallback=unavailable: 503 with the reason, as for crane_pod_cpu_usage', async () => {
    a = await startTestAdapter({ predictionFallback: 'error' });
    withEhpa(a);
    const r = await a.get(PODS_V07, { headers: HPA });
    expect(r.status).to.equal(503);
    expect(r.json.message).to.equal('no TimeSeriesPrediction for EffectiveHorizontalPodAutoscaler default/web');
    expect(a.fallbacks.map((f) => f.outcome)).to.deep.equal(['error']);
  });

  it('no observed data: 503 naming both problems; an unknown uid is 404; a missing uid selector is 400', async () => {
    a = await startTestAdapter();
    withEhpa(a);
    (a.sources as AdapterSources).observedQueryTotal = () => undefined;
    const r = await a.get(PODS_V07, { headers: HPA });
    expect(r.status).to.equal(503);
    expect(r.json.message).to.equal('no TimeSeriesPrediction for EffectiveHorizontalPodAutoscaler default/web; no observed value of pods.http_requests to fall back to');
    expect((await a.get(PODS_V07.replace(UID, 'other-uid'), { headers: HPA })).status).to.equal(404);
    expect((await a.get('/apis/external.metrics.k8s.io/v1beta1/namespaces/default/crane_external_queue', { headers: HPA })).status).to.equal(400);
  });

  it('an observed query over the cost bounds (a [30d:1s] subquery) is 503 naming the bound and the flag, and never reaches Prometheus', async () => {
    const heavy = 'max_over_time(sum(rate(http_requests_total[1m]))[30d:1s])';
    const setup = (r: Running, queries: string[]) => {
      withEhpa(r);
      r.sources.ehpas[0]!.metadata.annotations = { 'metric-query.autoscaling.crane.io/pods.http_requests': heavy };
      (r.sources as AdapterSources).observedQueryTotal = (_ns, promql) => (queries.push(promql), 7);
    };
    const queries: string[] = [];
    a = await startTestAdapter();
    setup(a, queries);
    for (let i = 0; i < 3; i++) {
      const r = await a.get(PODS_V07, { headers: HPA });
      expect(r.status).to.equal(503);
      expect(r.json.message).to.match(/observed pods\.http_requests unavailable: metric pods\.http_requests: subquery range \[30d\] is longer than the 1h user PromQL may read at once \(--user-promql-max-range\)/);
    }
    expect(queries).to.deep.equal([]);
    await a.close();
    // The admin's bounds, not the defaults, decide: raised, the same query runs (confined).
    a = await startTestAdapter({ promqlBounds: { maxRangeMs: 31 * 86_400_000, minSubqueryStepMs: 1000 } });
    setup(a, queries);
    expect((await a.get(PODS_V07, { headers: HPA })).status).to.equal(200);
    expect(queries).to.deep.equal(['max_over_time(sum(rate(http_requests_total{namespace="default"}[1m]))[30d:1s])']);
  });

  it('HEAD name for an identifier no EHPA predicts keeps Crane\'s answer (404 without a TSP)', async () => {
    a = await startTestAdapter();
    withEhpa(a);
    const r = await a.get(head('external.unknown'), { headers: HPA });
    expect(r.status).to.equal(404);
  });
});
