// --hpa-shape=head brings Crane HEAD's default queries for Pods and External metrics without a metric-query
// annotation (docs/crane-behaviour.md §B.4, §C.9); v0.7 keeps asking for the annotation, byte for byte.
import { expect } from 'chai';
import type { V2MetricSpec } from '@kubernetes/client-node';
import { buildHpaMetrics } from '../../../src/ehpa/desired-hpa.ts';
import { buildDesiredTsp } from '../../../src/ehpa/desired-tsp.ts';
import { predictedMetrics } from '../../../src/ehpa/predicted-metrics.ts';
import { tspSeries } from '../../../src/adapter/tsp-series.ts';
import { metricQuery } from '../../../src/prediction/history/queries.ts';
import { NAMESPACED_PROMQL, parseUserPromqlFlag } from '../../../src/prometheus/promql-confine.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import { cpuUtilization50, ehpa, prediction } from './fixtures.ts';

const pods: V2MetricSpec = {
  type: 'Pods',
  pods: {
    metric: { name: 'http_requests', selector: { matchLabels: { verb: 'GET' }, matchExpressions: [{ key: 'code', operator: 'In', values: ['200', '201'] }] } },
    target: { type: 'AverageValue', averageValue: '10' },
  },
};
const external: V2MetricSpec = {
  type: 'External',
  external: { metric: { name: 'queue_messages_ready', selector: { matchLabels: { queue: 'orders' } } }, target: { type: 'AverageValue', averageValue: '30' } },
};
const bare: V2MetricSpec = { type: 'External', external: { metric: { name: 'queue_lag' }, target: { type: 'Value', value: '100' } } };

const withMetrics = (metrics: V2MetricSpec[], annotations?: Record<string, string>) =>
  ehpa({ metrics, prediction: prediction as never }, { namespace: 'team-a', ...(annotations ? { annotations } : {}) });

describe('--hpa-shape=head: HEAD\'s default query for Pods/External metrics without an annotation', () => {
  it('head: the TSP predicts each one on the default query, under HEAD\'s pods.<name>/external.<name>', () => {
    const tsp = buildDesiredTsp(withMetrics([cpuUtilization50 as V2MetricSpec, pods, external, bare]), 'head');
    expect(tsp?.spec.predictionMetrics.map((m) => [m.resourceIdentifier, m.type, m.expressionQuery?.expression ?? m.resourceQuery])).to.deep.equal([
      ['resource.cpu', 'ResourceQuery', 'cpu'],
      ['pods.http_requests', 'ExpressionQuery', 'sum(http_requests{namespace="team-a",verb="GET",code=~"200|201"})'],
      ['external.queue_messages_ready', 'ExpressionQuery', 'sum(queue_messages_ready{namespace="team-a",queue="orders"})'],
      ['external.queue_lag', 'ExpressionQuery', 'sum(queue_lag{namespace="team-a"})'],
    ]);
    expect(tsp?.spec.predictionMetrics.every((m) => m.algorithm?.algorithmType === 'dsp')).to.equal(true);
  });

  it('v0.7: unchanged, byte for byte: no default, the annotation is asked for', () => {
    const e = withMetrics([cpuUtilization50 as V2MetricSpec, pods, external]);
    expect(JSON.stringify(buildDesiredTsp(e, 'v0.7'))).to.equal(JSON.stringify(buildDesiredTsp(e)));
    expect(buildDesiredTsp(e, 'v0.7')?.spec.predictionMetrics.map((m) => m.resourceIdentifier)).to.deep.equal(['crane_pod_cpu_usage']);
    expect(buildDesiredTsp(withMetrics([pods, external]), 'v0.7')).to.equal(undefined);
    expect(predictedMetrics(e).unpredicted.map((u) => u.reason)).to.deep.equal(['MetricQueryMissing', 'MetricQueryMissing']);
    expect(JSON.stringify(buildHpaMetrics(e, undefined, undefined, 'v0.7'))).to.equal(JSON.stringify(buildHpaMetrics(e, undefined, undefined)));
  });

  it('an annotation still wins over the default under head', () => {
    const e = withMetrics([pods], { 'metric-query.autoscaling.crane.io/pods.http_requests': 'sum(rate(http_requests_total[5m]))' });
    expect(buildDesiredTsp(e, 'head')?.spec.predictionMetrics[0]?.expressionQuery?.expression).to.equal('sum(rate(http_requests_total[5m]))');
  });

  it('the head HPA gets one prediction per defaulted metric, all predicted (no condition)', () => {
    const r = buildHpaMetrics(withMetrics([pods, external]), undefined, undefined, 'head');
    expect(r.unpredicted).to.deep.equal([]);
    expect(r.metrics.slice(2).map((m) => m.external?.metric.selector?.matchLabels?.resourceIdentifier)).to.deep.equal(['pods.http_requests', 'external.queue_messages_ready']);
  });

  it('the TSP controller runs the default query as written under namespaced and unrestricted, and refuses it under off like any user query', () => {
    const tsp = buildDesiredTsp(withMetrics([external]), 'head')!;
    const entry = tsp.spec.predictionMetrics[0]!;
    expect(metricQuery(tsp, entry, NAMESPACED_PROMQL)).to.equal('sum(queue_messages_ready{namespace="team-a",queue="orders"})');
    expect(metricQuery(tsp, entry, parseUserPromqlFlag('unrestricted'))).to.equal('sum(queue_messages_ready{namespace="team-a",queue="orders"})');
    expect(() => metricQuery(tsp, entry, parseUserPromqlFlag('off'))).to.throw(/external\.queue_messages_ready: user PromQL is disabled/);
  });

  it('a selector reaching for another namespace, or a hostile name, is not predicted, and the condition names the metric', () => {
    const otherNs: V2MetricSpec = { type: 'External', external: { metric: { name: 'secrets_total', selector: { matchLabels: { namespace: 'kube-system' } } }, target: { type: 'Value', value: '1' } } };
    const hostile: V2MetricSpec = { type: 'Pods', pods: { metric: { name: 'x"}or vector(1)' }, target: { type: 'AverageValue', averageValue: '1' } } };
    const e = withMetrics([otherNs, hostile, external]);
    const { predicted, unpredicted } = predictedMetrics(e, 'head');
    expect(predicted.map((p) => p.resourceIdentifier)).to.deep.equal(['external.queue_messages_ready']);
    expect(unpredicted.map((u) => u.reason)).to.deep.equal(['DefaultQueryRefused', 'DefaultQueryRefused']);
    expect(unpredicted[0]?.message).to.match(/^External secrets_total is not predicted: selector on "namespace" does not select the EHPA's own namespace "team-a"/);
    expect(unpredicted[0]?.message).to.match(/set annotation metric-query\.autoscaling\.crane\.io\/external\.secrets_total/);
    expect(unpredicted[1]?.message).to.match(/is not a Prometheus metric name/);
    // Neither reaches the TSP nor the HPA.
    expect(buildDesiredTsp(e, 'head')?.spec.predictionMetrics.map((m) => m.resourceIdentifier)).to.deep.equal(['external.queue_messages_ready']);
    expect(buildHpaMetrics(e, undefined, undefined, 'head').metrics).to.have.length(4);
  });

  it('prometheus-adapter-only installs: the exported series of a defaulted External metric carry the head HPA\'s selector', async () => {
    const now = Date.UTC(2026, 10, 28, 12, 0, 0);
    const nowS = Math.floor(now / 1000);
    const e = withMetrics([external]);
    const desired = buildDesiredTsp(e, 'head')!;
    const rid = desired.spec.predictionMetrics[0]!.resourceIdentifier;
    const tsp = { ...desired, status: { predictionMetrics: [{ resourceIdentifier: rid, ready: true, prediction: [{ labels: [], samples: [{ timestamp: nowS, value: '20' }, { timestamp: nowS + 60, value: '42' }] }] }] } } as TimeSeriesPrediction;
    const { series } = await tspSeries([tsp], now, { maxPairs: 10 });
    const hpaSelector = buildHpaMetrics(e, undefined, undefined, 'head').metrics[1]?.external?.metric.selector?.matchLabels;
    expect(hpaSelector).to.include({ resourceIdentifier: 'external.queue_messages_ready', targetNamespace: 'team-a' });
    expect(series.map((x) => x.labels)).to.deep.equal([{ ...hpaSelector, algorithm: 'dsp' }]);
  });
});
