// TSP ResourceQuery cpu/memory on a Node target (Crane's examples/tsp-node-resource-*.yaml): Crane's
// node-exporter templates (gocrane/crane pkg/utils/expression_prom_default.go NodeCpuUsageExprTemplate,
// NodeMemUsageExprTemplate, irate over 3m), allowed only where the --user-promql policy leaves the TSP's
// namespace unrestricted, because a node's usage belongs to every tenant on it.
import { expect } from 'chai';
import type { TimeSeriesPrediction } from '../../../../src/api/prediction.ts';
import { metricQuery, UnsupportedQueryError } from '../../../../src/prediction/history/queries.ts';
import { parseUserPromqlFlag } from '../../../../src/prometheus/promql-confine.ts';

const nodeTsp = (namespace: string, node: string, resourceQuery: string): TimeSeriesPrediction => ({
  apiVersion: 'prediction.crane.io/v1alpha1',
  kind: 'TimeSeriesPrediction',
  metadata: { name: 'node-resource', namespace },
  spec: {
    targetRef: { kind: 'Node', name: node },
    predictionWindowSeconds: 600,
    predictionMetrics: [{ resourceIdentifier: `node-${resourceQuery}`, type: 'ResourceQuery', resourceQuery }],
  },
});
const q = (t: TimeSeriesPrediction, flag?: string) => metricQuery(t, t.spec.predictionMetrics[0]!, ...(flag ? [parseUserPromqlFlag(flag)] : []));

describe('metricQuery: ResourceQuery on a Node target', () => {
  it("cpu: Crane's node-exporter query (cores busy = CPUs - idle rate), with the node name regex-escaped", () => {
    expect(q(nodeTsp('ops', 'ip-10-0-0-1.ec2.internal', 'cpu'), 'unrestricted')).to.equal(
      'sum(count(node_cpu_seconds_total{mode="idle",instance=~"(ip-10-0-0-1\\\\.ec2\\\\.internal)(:\\\\d+)?"}) by (mode, cpu))' +
        ' - sum(irate(node_cpu_seconds_total{mode="idle",instance=~"(ip-10-0-0-1\\\\.ec2\\\\.internal)(:\\\\d+)?"}[3m]))',
    );
  });
  it("memory: Crane's MemTotal - MemAvailable", () => {
    expect(q(nodeTsp('ops', 'node-1', 'memory'), 'unrestricted')).to.equal(
      'sum(node_memory_MemTotal_bytes{instance=~"(node-1)(:\\\\d+)?"} - node_memory_MemAvailable_bytes{instance=~"(node-1)(:\\\\d+)?"})',
    );
  });
  it('a namespace tenant (the default policy, off, or a namespace not on the unrestricted list) may not read a node', () => {
    for (const flag of [undefined, 'namespaced', 'off', 'unrestricted=infra']) {
      expect(() => q(nodeTsp('team-a', 'node-1', 'cpu'), flag), String(flag)).to.throw(UnsupportedQueryError, /metric node-cpu: a Node target reads cluster-wide series, which namespace "team-a" may not/);
    }
    // The message is all the tenant sees: it names the policy in force and the admin's remedy.
    expect(() => q(nodeTsp('team-a', 'node-1', 'cpu'), 'unrestricted=infra')).to.throw(/under --user-promql=unrestricted=infra; a cluster admin allows node predictions here by listing the namespace in serve's --user-promql=unrestricted=<ns>/);
    expect(() => q(nodeTsp('team-a', 'node-1', 'cpu'), undefined)).to.throw(/under --user-promql=namespaced;/);
    expect(q(nodeTsp('infra', 'node-1', 'cpu'), 'unrestricted=infra')).to.contain('node_cpu_seconds_total');
  });
  it('an unknown resourceQuery on a node is refused with its name', () => {
    expect(() => q(nodeTsp('ops', 'node-1', 'gpu'), 'unrestricted')).to.throw(UnsupportedQueryError, /unknown resourceQuery "gpu"/);
  });
});
