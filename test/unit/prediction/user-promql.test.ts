// A TSP's own PromQL (and the EHPA metric-query annotation, which becomes one) under --user-promql
// (docs/security.md §3): confined by default, refused when off, as written when unrestricted.
import { expect } from 'chai';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import { metricQuery, UnsupportedQueryError } from '../../../src/prediction/history/queries.ts';
import { parseUserPromqlFlag } from '../../../src/prometheus/promql-confine.ts';

const tsp = (namespace: string, expression: string): TimeSeriesPrediction => ({
  apiVersion: 'prediction.crane.io/v1alpha1',
  kind: 'TimeSeriesPrediction',
  metadata: { name: 't', namespace },
  spec: { targetRef: { kind: 'Deployment', name: 'web' }, predictionWindowSeconds: 3600, predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ExpressionQuery', expressionQuery: { expression } }] },
});
const q = (t: TimeSeriesPrediction, flag?: string) => metricQuery(t, t.spec.predictionMetrics[0]!, ...(flag ? [parseUserPromqlFlag(flag)] : []));

describe('metricQuery: user PromQL policy', () => {
  it('confines an expression to the TSP namespace by default', () => {
    expect(q(tsp('team-a', 'sum(rate(container_cpu_usage_seconds_total{pod=~"web-.*"}[3m]))'))).to.equal(
      'sum(rate(container_cpu_usage_seconds_total{pod=~"web-.*",namespace="team-a"}[3m]))',
    );
  });
  it("refuses another namespace's series with a reason naming it (review H2)", () => {
    expect(() => q(tsp('mallory', 'sum(container_memory_working_set_bytes{namespace="victim"})'))).to.throw(UnsupportedQueryError, /metric cpu: .*namespace/);
    expect(() => q(tsp('mallory', 'sum(x{namespace=~"vic.*"})'))).to.throw(UnsupportedQueryError);
  });
  it('off refuses, unrestricted passes as written, unrestricted=<list> only for those namespaces', () => {
    expect(() => q(tsp('team-a', 'up'), 'off')).to.throw(UnsupportedQueryError, /--user-promql=off/);
    expect(q(tsp('team-a', 'up{namespace="other"}'), 'unrestricted')).to.equal('up{namespace="other"}');
    expect(q(tsp('infra', 'up'), 'unrestricted=infra,monitoring')).to.equal('up');
    expect(q(tsp('team-a', 'up'), 'unrestricted=infra,monitoring')).to.equal('up{namespace="team-a"}');
  });
  it('leaves generated queries alone: they already carry the namespace', () => {
    const t = tsp('team-a', 'x');
    t.spec.predictionMetrics[0] = { resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'cpu' };
    expect(q(t, 'off')).to.contain('namespace="team-a"');
  });
});
