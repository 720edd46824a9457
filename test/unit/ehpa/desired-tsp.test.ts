import { expect } from 'chai';
import type { V2MetricSpec } from '@kubernetes/client-node';
import { buildDesiredTsp } from '../../../src/ehpa/desired-tsp.ts';
import { UID, cpuUtilization50, ehpa, prediction } from './fixtures.ts';

describe('buildDesiredTsp (crane-behaviour.md §B.4, v0.2–v0.7 metric shape)', () => {
  it('builds the TSP with Crane labels, owner and a ResourceQuery cpu metric', () => {
    const tsp = buildDesiredTsp(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction }));
    expect(tsp?.metadata.name).to.equal('ehpa-php-apache');
    expect(tsp?.metadata.labels).to.deep.equal({
      'app.kubernetes.io/name': 'ehpa-php-apache',
      'app.kubernetes.io/part-of': 'php-apache',
      'app.kubernetes.io/managed-by': 'effective-hpa-controller',
      'app.kubernetes.io/target-kind': 'Deployment',
      'app.kubernetes.io/target-namespace': 'default',
      'app.kubernetes.io/target-name': 'php-apache',
      'autoscaling.crane.io/effective-hpa-uid': UID,
    });
    expect(tsp?.metadata.ownerReferences?.[0]).to.include({ kind: 'EffectiveHorizontalPodAutoscaler', uid: UID, controller: true });
    expect(tsp?.spec).to.deep.equal({
      targetRef: { kind: 'Deployment', namespace: 'default', name: 'php-apache', apiVersion: 'apps/v1' },
      predictionWindowSeconds: 3600,
      predictionMetrics: [
        { resourceIdentifier: 'crane_pod_cpu_usage', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm: prediction.predictionAlgorithm },
      ],
    });
  });

  it('uses the metric-query annotation as an ExpressionQuery', () => {
    const q = 'sum(rate(container_cpu_usage_seconds_total{pod=~"web-.*"}[5m]))';
    const tsp = buildDesiredTsp(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction }, { annotations: { 'metric-query.autoscaling.crane.io/resource.cpu': q } }));
    expect(tsp?.spec.predictionMetrics[0]).to.include({ type: 'ExpressionQuery' });
    expect(tsp?.spec.predictionMetrics[0]?.expressionQuery).to.deep.equal({ expression: q });
  });

  it('is not wanted with prediction off, or without a predictable metric', () => {
    expect(buildDesiredTsp(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec] }))).to.equal(undefined);
    const pods = { type: 'Pods', pods: { metric: { name: 'http_requests' }, target: { type: 'AverageValue', averageValue: '10' } } } as V2MetricSpec;
    expect(buildDesiredTsp(ehpa({ metrics: [pods], prediction }))).to.equal(undefined);
    expect(buildDesiredTsp(ehpa({ crons: [{ name: 'a', start: '0 9 * * *', end: '0 10 * * *', targetReplicas: 2 }], prediction }))).to.equal(undefined);
  });

  it('copies the window and the algorithm, so a change of either updates the TSP spec', () => {
    const a = buildDesiredTsp(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction }));
    const b = buildDesiredTsp(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction: { predictionWindowSeconds: 600, predictionAlgorithm: { algorithmType: 'percentile' } } }));
    expect(b?.spec.predictionWindowSeconds).to.equal(600);
    expect(b?.spec.predictionMetrics[0]?.algorithm).to.deep.equal({ algorithmType: 'percentile' });
    expect(a?.spec).to.not.deep.equal(b?.spec);
  });
});
