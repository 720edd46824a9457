// Edge cases of which metrics are predicted and where their query comes from (docs/crane-behaviour.md §B.3,
// §B.4; docs/components.md "Controllers"), and of the uid in the objects an EHPA owns.
// Upstream: gocrane/crane pkg/utils/ehpa.go (GetPredictionMetricIdentifier, GetExpressionQueryAnnotation:
// the annotation key minus the prefix and its first character equals the metric identifier).
import { expect } from 'chai';
import type { V2MetricSpec } from '@kubernetes/client-node';
import { annotationKeys, predictedMetrics, type PredictedMetricType } from '../../../src/ehpa/predicted-metrics.ts';
import { buildHpaMetrics } from '../../../src/ehpa/desired-hpa.ts';
import { buildDesiredTsp } from '../../../src/ehpa/desired-tsp.ts';
import { controllerOwnerReference, ownedLabels } from '../../../src/ehpa/naming.ts';
import { BOUNDS } from '../../../src/api/bounds.ts';
import { cpuUtilization50, ehpa, prediction } from './fixtures.ts';

const cpuUtil = cpuUtilization50 as V2MetricSpec;
const ctrCpu60 = { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } } as V2MetricSpec;
const Q = 'sum(rate(container_cpu_usage_seconds_total{namespace="default",pod=~"php-apache-.*"}[5m]))';

describe('annotationKeys: the metric-query.autoscaling.crane.io/<key> forms each metric answers to', () => {
  // Resource cpu: our TSP identifier crane_pod_cpu_usage (v0.2–v0.7), then HEAD's resource.cpu. Others: HEAD's
  // <type>.<name>; Pods and External also v0.6–v0.7's bare <name> (docs/components.md, docs/operations.md
  // MetricsPredicted). Resource and ContainerResource never had a bare-name form.
  const cases: [PredictedMetricType, string, string[]][] = [
    ['Resource', 'cpu', ['crane_pod_cpu_usage', 'resource.cpu']],
    ['Resource', 'memory', ['resource.memory']],
    ['ContainerResource', 'cpu', ['container-resource.cpu']],
    ['ContainerResource', 'memory', ['container-resource.memory']],
    ['Pods', 'cpu', ['pods.cpu', 'cpu']],
    ['Pods', 'http_requests', ['pods.http_requests', 'http_requests']],
    ['External', 'queue_messages_ready', ['external.queue_messages_ready', 'queue_messages_ready']],
  ];
  for (const [type, name, keys] of cases) {
    it(`${type} ${name}: ${keys.join(', ')}`, () => {
      expect(annotationKeys(type, name)).to.deep.equal(keys);
    });
  }

  it('a Resource cpu metric takes its query from the crane_pod_cpu_usage key (its resourceIdentifier)', () => {
    const e = ehpa({ metrics: [cpuUtil], prediction }, { annotations: { 'metric-query.autoscaling.crane.io/crane_pod_cpu_usage': Q } });
    const [p] = predictedMetrics(e).predicted;
    expect(p?.resourceIdentifier).to.equal('crane_pod_cpu_usage');
    expect(p?.query).to.deep.equal({ type: 'ExpressionQuery', expression: Q });
    expect(p?.annotation).to.equal('metric-query.autoscaling.crane.io/crane_pod_cpu_usage');
  });

  it("a ContainerResource cpu metric ignores the crane_pod_cpu_usage key: it is not that metric's identifier", () => {
    const e = ehpa({ metrics: [ctrCpu60], prediction }, { annotations: { 'metric-query.autoscaling.crane.io/crane_pod_cpu_usage': Q } });
    const [p] = predictedMetrics(e).predicted;
    expect(p?.resourceIdentifier).to.equal('container-resource.cpu');
    expect(p).to.not.have.property('annotation');
    // The built-in query, summed over the workload's pods (docs/components.md, test/unit/ehpa/predicted-metrics.test.ts).
    expect(p?.query).to.deep.equal({
      type: 'ExpressionQuery',
      expression: 'sum(irate(container_cpu_usage_seconds_total{namespace="default",pod=~"^php-apache-[a-z0-9]+-[a-z0-9]{5}$",container="app"}[3m]))',
    });
  });
});

describe('metrics without a name are not predicted, and do not throw', () => {
  // The HPA API requires a metric name; an EHPA stored without one still keeps its original metric
  // (crane-behaviour.md §B.3 step 1) and must not stop the reconcile.
  const namelessPods = { type: 'Pods', pods: { target: { type: 'AverageValue', averageValue: '10' } } } as unknown as V2MetricSpec;
  const namelessExternal = { type: 'External', external: { target: { type: 'Value', value: '10' } } } as unknown as V2MetricSpec;
  for (const m of [namelessPods, namelessExternal]) {
    it(`${m.type} without metric`, () => {
      const e = ehpa({ metrics: [m], prediction });
      let r: ReturnType<typeof predictedMetrics> | undefined;
      expect(() => (r = predictedMetrics(e))).to.not.throw();
      expect(r?.predicted).to.deep.equal([]);
      expect(buildHpaMetrics(e, undefined).metrics).to.deep.equal([m]);
    });
  }
});

describe('TooManyPredictionMetrics names the metric and the bound (docs/security.md §2: spec.predictionMetrics 16)', () => {
  it(`the ${BOUNDS.predictionMetrics + 1}th predictable metric is reported by name`, () => {
    const metrics: V2MetricSpec[] = [];
    const annotations: Record<string, string> = {};
    for (let i = 0; i <= BOUNDS.predictionMetrics; i++) {
      metrics.push({ type: 'Pods', pods: { metric: { name: `m${i}` }, target: { type: 'AverageValue', averageValue: '1' } } });
      annotations[`metric-query.autoscaling.crane.io/pods.m${i}`] = `sum(m${i})`;
    }
    const { unpredicted } = predictedMetrics(ehpa({ metrics, prediction }, { annotations }));
    expect(unpredicted).to.have.length(1);
    expect(unpredicted[0]).to.include({ index: BOUNDS.predictionMetrics, type: 'Pods', name: `m${BOUNDS.predictionMetrics}`, reason: 'TooManyPredictionMetrics' });
    expect(unpredicted[0]?.message).to.match(new RegExp(`^Pods m${BOUNDS.predictionMetrics} is not predicted: `));
    expect(unpredicted[0]?.message).to.contain(`at most ${BOUNDS.predictionMetrics} metrics`);
  });
});

describe('owned objects of a uid-less EHPA carry string(ehpa.UID) = "" (hpa.go NewHPAObject, predict.go, SetControllerReference)', () => {
  const e = ehpa({ metrics: [cpuUtil], prediction }, { uid: undefined });
  it('labels and the controller ownerReference', () => {
    expect(ownedLabels(e)['autoscaling.crane.io/effective-hpa-uid']).to.equal('');
    expect(controllerOwnerReference(e).uid).to.equal('');
  });
  it('the TSP uid label', () => {
    expect(buildDesiredTsp(e)?.metadata.labels?.['autoscaling.crane.io/effective-hpa-uid']).to.equal('');
  });
});
