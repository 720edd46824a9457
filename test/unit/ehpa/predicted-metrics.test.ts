// Every metric type Crane predicts (docs/crane-behaviour.md §B.3, §B.4; gocrane/crane pkg/utils/ehpa.go
// GetPredictionMetricIdentifier and GetExpressionQueryAnnotation, pkg/utils/expression_prom_default.go):
// one TSP entry per predicted metric, one predicted HPA metric beside each original, and a condition for
// the metrics that cannot be predicted.
import { expect } from 'chai';
import type { V2MetricSpec } from '@kubernetes/client-node';
import { buildDesiredTsp } from '../../../src/ehpa/desired-tsp.ts';
import { buildHpaMetrics, needsPodRequests, type PodRequestsLookup } from '../../../src/ehpa/desired-hpa.ts';
import { predictedMetrics } from '../../../src/ehpa/predicted-metrics.ts';
import { buildStatus, METRICS_PREDICTED } from '../../../src/ehpa/status.ts';
import { BOUNDS } from '../../../src/api/bounds.ts';
import { UID, cpuUtilization50, ehpa, prediction } from './fixtures.ts';

const memUtil70 = { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } } as V2MetricSpec;
const memAvg = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } } } as V2MetricSpec;
const ctrCpu60 = { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } } as V2MetricSpec;
const ctrMemAvg = { type: 'ContainerResource', containerResource: { name: 'memory', container: 'app', target: { type: 'AverageValue', averageValue: '1Gi' } } } as V2MetricSpec;
const httpRequests = { type: 'Pods', pods: { metric: { name: 'http_requests' }, target: { type: 'AverageValue', averageValue: '500m' } } } as V2MetricSpec;
const queue = { type: 'External', external: { metric: { name: 'queue_messages_ready', selector: { matchLabels: { queue: 'a' } } }, target: { type: 'AverageValue', averageValue: '30' } } } as V2MetricSpec;
const queueValue = { type: 'External', external: { metric: { name: 'queue_lag' }, target: { type: 'Value', value: '100' } } } as V2MetricSpec;
const HTTP_Q = 'sum(rate(http_requests_total{namespace="default"}[5m]))';
const QUEUE_Q = 'sum(rabbitmq_queue_messages_ready{namespace="default"})';
const target = { targetKind: 'Deployment', targetName: 'php-apache', targetNamespace: 'default' };

// 4 pods: cpu 500m each (container app 400m), memory 256Mi each.
const requests: PodRequestsLookup = (resource, container) =>
  resource === 'cpu' ? { pods: 4, requestMilli: container ? 1600 : 2000, missing: [] } : { pods: 4, requestMilli: 4 * 256 * 1024 * 1024 * 1000, missing: [] };

describe('predicted metrics: identifiers and queries of every metric type Crane predicts', () => {
  it('takes HEAD annotation keys first, then the v0.6–v0.7 bare-name form', () => {
    const head = ehpa({ metrics: [httpRequests, queue], prediction }, {
      annotations: { 'metric-query.autoscaling.crane.io/pods.http_requests': HTTP_Q, 'metric-query.autoscaling.crane.io/external.queue_messages_ready': QUEUE_Q },
    });
    const legacy = ehpa({ metrics: [httpRequests, queue], prediction }, {
      annotations: { 'metric-query.autoscaling.crane.io/http_requests': HTTP_Q, 'metric-query.autoscaling.crane.io/queue_messages_ready': QUEUE_Q },
    });
    for (const e of [head, legacy]) {
      const { predicted, unpredicted } = predictedMetrics(e);
      expect(unpredicted).to.deep.equal([]);
      expect(predicted.map((p) => [p.resourceIdentifier, p.query])).to.deep.equal([
        ['pods.http_requests', { type: 'ExpressionQuery', expression: HTTP_Q }],
        ['external.queue_messages_ready', { type: 'ExpressionQuery', expression: QUEUE_Q }],
      ]);
    }
    // Both forms present: the HEAD key wins.
    const both = ehpa({ metrics: [httpRequests], prediction }, {
      annotations: { 'metric-query.autoscaling.crane.io/pods.http_requests': HTTP_Q, 'metric-query.autoscaling.crane.io/http_requests': 'sum(other)' },
    });
    expect(predictedMetrics(both).predicted[0]?.annotation).to.equal('metric-query.autoscaling.crane.io/pods.http_requests');
  });

  it('builds one TSP with one entry per predicted metric: built-in cpu/memory, summed ContainerResource, annotation Pods/External', () => {
    const e = ehpa({ metrics: [cpuUtilization50 as V2MetricSpec, memUtil70, ctrCpu60, ctrMemAvg, httpRequests, queue], prediction }, {
      annotations: { 'metric-query.autoscaling.crane.io/pods.http_requests': HTTP_Q, 'metric-query.autoscaling.crane.io/queue_messages_ready': QUEUE_Q },
    });
    const tsp = buildDesiredTsp(e);
    const algorithm = prediction.predictionAlgorithm;
    expect(tsp?.spec.predictionMetrics).to.deep.equal([
      { resourceIdentifier: 'crane_pod_cpu_usage', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm },
      { resourceIdentifier: 'resource.memory', type: 'ResourceQuery', resourceQuery: 'memory', algorithm },
      {
        resourceIdentifier: 'container-resource.cpu', type: 'ExpressionQuery', algorithm,
        expressionQuery: { expression: 'sum(irate(container_cpu_usage_seconds_total{namespace="default",pod=~"^php-apache-[a-z0-9]+-[a-z0-9]{5}$",container="app"}[3m]))' },
      },
      {
        resourceIdentifier: 'container-resource.memory', type: 'ExpressionQuery', algorithm,
        expressionQuery: { expression: 'sum(container_memory_working_set_bytes{namespace="default",pod=~"^php-apache-[a-z0-9]+-[a-z0-9]{5}$",container="app"})' },
      },
      { resourceIdentifier: 'pods.http_requests', type: 'ExpressionQuery', expressionQuery: { expression: HTTP_Q }, algorithm },
      { resourceIdentifier: 'external.queue_messages_ready', type: 'ExpressionQuery', expressionQuery: { expression: QUEUE_Q }, algorithm },
    ]);
  });

  it('a memory metric alone is enough for a TSP; the resource.memory annotation overrides the working-set query', () => {
    expect(buildDesiredTsp(ehpa({ metrics: [memAvg], prediction }))?.spec.predictionMetrics.map((m) => m.resourceQuery)).to.deep.equal(['memory']);
    const q = 'sum(container_memory_rss{namespace="default",pod=~"php-apache-.*"})';
    const t = buildDesiredTsp(ehpa({ metrics: [memAvg], prediction }, { annotations: { 'metric-query.autoscaling.crane.io/resource.memory': q } }));
    expect(t?.spec.predictionMetrics[0]).to.deep.include({ resourceIdentifier: 'resource.memory', type: 'ExpressionQuery', expressionQuery: { expression: q } });
  });

  it('Pods and External metrics without a query are not predicted, and say which annotation would fix it', () => {
    const { predicted, unpredicted } = predictedMetrics(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec, httpRequests, queue], prediction }));
    expect(predicted.map((p) => p.resourceIdentifier)).to.deep.equal(['crane_pod_cpu_usage']);
    expect(unpredicted.map((u) => u.reason)).to.deep.equal(['MetricQueryMissing', 'MetricQueryMissing']);
    expect(unpredicted[0]?.message).to.equal(
      'Pods http_requests is not predicted: no query, set annotation metric-query.autoscaling.crane.io/pods.http_requests or metric-query.autoscaling.crane.io/http_requests',
    );
    expect(unpredicted[1]?.message).to.contain('External queue_messages_ready');
  });

  it('a second metric on the same identifier, and metrics over the TSP bound, are named, not dropped silently', () => {
    const other = { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'sidecar', target: { type: 'AverageValue', averageValue: '100m' } } } as V2MetricSpec;
    expect(predictedMetrics(ehpa({ metrics: [ctrCpu60, other], prediction })).unpredicted).to.deep.equal([
      { index: 1, type: 'ContainerResource', name: 'cpu', container: 'sidecar', reason: 'DuplicateIdentifier', message: 'ContainerResource cpu (container sidecar): resourceIdentifier container-resource.cpu is already predicted for an earlier metric' },
    ]);
    const many: V2MetricSpec[] = [];
    const annotations: Record<string, string> = {};
    for (let i = 0; i <= BOUNDS.predictionMetrics; i++) {
      many.push({ type: 'Pods', pods: { metric: { name: `m${i}` }, target: { type: 'AverageValue', averageValue: '1' } } });
      annotations[`metric-query.autoscaling.crane.io/pods.m${i}`] = `sum(m${i})`;
    }
    const r = predictedMetrics(ehpa({ metrics: many, prediction }, { annotations }));
    expect(r.predicted).to.have.length(BOUNDS.predictionMetrics);
    expect(r.unpredicted.map((u) => u.reason)).to.deep.equal(['TooManyPredictionMetrics']);
  });
});

describe('buildHpaMetrics: the predicted metric beside each original, under each Crane generation\'s name', () => {
  const annotations = { 'metric-query.autoscaling.crane.io/pods.http_requests': HTTP_Q, 'metric-query.autoscaling.crane.io/queue_messages_ready': QUEUE_Q, 'metric-query.autoscaling.crane.io/queue_lag': 'sum(lag)' };
  const all = [cpuUtilization50 as V2MetricSpec, memUtil70, ctrCpu60, ctrMemAvg, httpRequests, queue, queueValue];

  it('keeps the originals first and appends, in spec order: crane_pod_cpu_usage, HEAD crane_autoscaling_prediction for memory and ContainerResource, v0.7 crane_custom.pods_/crane_external_', () => {
    const r = buildHpaMetrics(ehpa({ metrics: all, prediction }, { annotations }), undefined, requests);
    expect(r.problems).to.deep.equal([]);
    expect(r.metrics.slice(0, all.length)).to.deep.equal(all);
    const uid = { matchLabels: { 'autoscaling.crane.io/effective-hpa-uid': UID } };
    expect(r.metrics.slice(all.length)).to.deep.equal([
      // 4 × 500m at 50 % → 250m per pod.
      { type: 'Pods', pods: { metric: { name: 'crane_pod_cpu_usage', selector: uid }, target: { type: 'AverageValue', averageValue: '250m' } } },
      // 4 × 256Mi at 70 % → trunc(268435456000 × 0.7) milli-bytes = 187904819.2 bytes → 187904819200m.
      { type: 'External', external: { metric: { name: 'crane_autoscaling_prediction', selector: { matchLabels: { ...target, resourceIdentifier: 'resource.memory' } } }, target: { type: 'AverageValue', averageValue: '187904819200m' } } },
      // container app: 4 × 400m at 60 % → 240m.
      { type: 'External', external: { metric: { name: 'crane_autoscaling_prediction', selector: { matchLabels: { ...target, resourceIdentifier: 'container-resource.cpu' } } }, target: { type: 'AverageValue', averageValue: '240m' } } },
      { type: 'External', external: { metric: { name: 'crane_autoscaling_prediction', selector: { matchLabels: { ...target, resourceIdentifier: 'container-resource.memory' } } }, target: { type: 'AverageValue', averageValue: '1Gi' } } },
      { type: 'Pods', pods: { metric: { name: 'crane_custom.pods_http_requests', selector: uid }, target: { type: 'AverageValue', averageValue: '500m' } } },
      { type: 'External', external: { metric: { name: 'crane_external_queue_messages_ready', selector: uid }, target: { type: 'AverageValue', averageValue: '30' } } },
      // An External Value target is kept as Value: the forecast is of the same total.
      { type: 'External', external: { metric: { name: 'crane_external_queue_lag', selector: uid }, target: { type: 'Value', value: '100' } } },
    ]);
  });

  it('needs pod requests only for a predicted Utilization target', () => {
    expect(needsPodRequests(ehpa({ metrics: [memUtil70], prediction }))).to.equal(true);
    expect(needsPodRequests(ehpa({ metrics: [memAvg, httpRequests], prediction }))).to.equal(false);
    expect(needsPodRequests(ehpa({ metrics: [memUtil70] }))).to.equal(false);
  });

  it('a memory request missing from one pod drops only the memory prediction, names the pod, and keeps CPU', () => {
    const lookup: PodRequestsLookup = (resource) => (resource === 'cpu' ? { pods: 4, requestMilli: 2000, missing: [] } : { pods: 4, requestMilli: 1, missing: ['web-2'] });
    const r = buildHpaMetrics(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec, memUtil70], prediction }), undefined, lookup);
    expect(r.problem).to.deep.equal({ reason: 'MissingRequests', message: 'Resource memory: missing memory request in pods: web-2' });
    expect(r.metrics.map((m) => m.pods?.metric.name ?? m.external?.metric.name ?? m.resource?.name)).to.deep.equal(['cpu', 'memory', 'crane_pod_cpu_usage']);
  });

  it('a Pods metric without a query keeps its original only and is reported in the MetricsPredicted condition', () => {
    const e = ehpa({ metrics: [cpuUtilization50 as V2MetricSpec, httpRequests], prediction });
    const r = buildHpaMetrics(e, { pods: 4, requestMilli: 2000, missing: [] });
    expect(r.metrics.map((m) => m.pods?.metric.name ?? m.resource?.name)).to.deep.equal(['cpu', 'http_requests', 'crane_pod_cpu_usage']);
    const status = buildStatus({ ehpa: e, nowMs: Date.parse('2026-11-24T12:00:00Z'), unpredicted: r.unpredicted });
    const c = status.conditions?.find((x) => x.type === METRICS_PREDICTED);
    expect(c).to.include({ status: 'False', reason: 'MetricQueryMissing' });
    expect(c?.message).to.contain('Pods http_requests is not predicted: no query, set annotation metric-query.autoscaling.crane.io/pods.http_requests');
    const ok = buildStatus({ ehpa: e, nowMs: 0, unpredicted: [] }).conditions?.find((x) => x.type === METRICS_PREDICTED);
    expect(ok).to.include({ status: 'True', reason: 'AllMetricsPredicted' });
    expect(buildStatus({ ehpa: e, nowMs: 0 }).conditions?.some((x) => x.type === METRICS_PREDICTED)).to.equal(false);
  });
});
