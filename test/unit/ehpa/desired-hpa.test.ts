import { expect } from 'chai';
import type { V2MetricSpec } from '@kubernetes/client-node';
import { buildDesiredHpa, buildHpaMetrics, defaultBehavior } from '../../../src/ehpa/desired-hpa.ts';
import { UID, cpuUtilization50, ehpa, prediction } from './fixtures.ts';

const fourPods500m = { pods: 4, requestMilli: 2000, missing: [] };

describe('buildDesiredHpa', () => {
  it('names, labels and owns the backing HPA like Crane (crane-behaviour.md §B.2)', () => {
    const { hpa } = buildDesiredHpa({ ehpa: ehpa({ metrics: [cpuUtilization50 as V2MetricSpec] }) });
    expect(hpa.metadata.name).to.equal('ehpa-php-apache');
    expect(hpa.metadata.namespace).to.equal('default');
    expect(hpa.metadata.labels).to.deep.equal({
      'app.kubernetes.io/name': 'ehpa-php-apache',
      'app.kubernetes.io/part-of': 'php-apache',
      'app.kubernetes.io/managed-by': 'effective-hpa-controller',
      'autoscaling.crane.io/effective-hpa-uid': UID,
    });
    expect(hpa.metadata.ownerReferences).to.deep.equal([
      { apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler', name: 'php-apache', uid: UID, controller: true, blockOwnerDeletion: true },
    ]);
    expect(hpa.spec.scaleTargetRef).to.deep.equal({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'php-apache' });
    expect(hpa.spec.minReplicas).to.equal(1);
    expect(hpa.spec.maxReplicas).to.equal(10);
  });

  it('defaults minReplicas to 1 when the EHPA omits it', () => {
    const e = ehpa({ metrics: [cpuUtilization50 as V2MetricSpec] });
    delete e.spec.minReplicas;
    expect(buildDesiredHpa({ ehpa: e }).hpa.spec.minReplicas).to.equal(1);
  });

  it('points a Preview HPA at the Substitute so it stops scaling the target (crane-behaviour.md §B.5)', () => {
    const { hpa } = buildDesiredHpa({ ehpa: ehpa({ scaleStrategy: 'Preview', metrics: [cpuUtilization50 as V2MetricSpec] }) });
    expect(hpa.spec.scaleTargetRef).to.deep.equal({ apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'Substitute', name: 'ehpa-php-apache' });
  });

  it('propagates labels and annotations without letting them override ours', () => {
    const { hpa } = buildDesiredHpa({
      ehpa: ehpa({ metrics: [cpuUtilization50 as V2MetricSpec] }),
      propagate: { labels: { team: 'a', 'app.kubernetes.io/name': 'x' }, annotations: { note: 'y' } },
    });
    expect(hpa.metadata.labels?.team).to.equal('a');
    expect(hpa.metadata.labels?.['app.kubernetes.io/name']).to.equal('ehpa-php-apache');
    expect(hpa.metadata.annotations).to.deep.equal({ note: 'y' });
  });

  it('fills behavior defaults as the autoscaling/v2 API server does', () => {
    const b = defaultBehavior({ scaleDown: { stabilizationWindowSeconds: 60 } });
    expect(b?.scaleDown).to.deep.equal({ stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });
    expect(b?.scaleUp?.policies).to.have.length(2);
    expect(b?.scaleUp?.stabilizationWindowSeconds).to.equal(0);
    expect(defaultBehavior(undefined)).to.equal(undefined);
  });
});

describe('buildHpaMetrics: metric conversion (crane-behaviour.md §B.3, legacy crane_pod_cpu_usage)', () => {
  it('converts cpu Utilization into crane_pod_cpu_usage with averageValue from requests, keeping the original first', () => {
    // docs/crane-behaviour.md §B.3 example: 4 pods with 500m each at 50% gives 250m.
    const { metrics, problem } = buildHpaMetrics(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction }), fourPods500m);
    expect(problem).to.equal(undefined);
    expect(metrics).to.deep.equal([
      cpuUtilization50,
      {
        type: 'Pods',
        pods: {
          metric: { name: 'crane_pod_cpu_usage', selector: { matchLabels: { 'autoscaling.crane.io/effective-hpa-uid': UID } } },
          target: { type: 'AverageValue', averageValue: '250m' },
        },
      },
    ]);
  });

  it('recomputes the target when requests change (e.g. a VPA resized the pods)', () => {
    const e = ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction });
    const a = buildHpaMetrics(e, { pods: 2, requestMilli: 1000, missing: [] }).metrics[1];
    const b = buildHpaMetrics(e, { pods: 2, requestMilli: 3000, missing: [] }).metrics[1];
    expect(a?.pods?.target.averageValue).to.equal('250m');
    expect(b?.pods?.target.averageValue).to.equal('750m');
  });

  it('truncates the per-pod millicores like Crane int64()', () => {
    const m = buildHpaMetrics(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction }), { pods: 3, requestMilli: 1000, missing: [] });
    expect(m.metrics[1]?.pods?.target.averageValue).to.equal('166m');
  });

  it('uses a cpu AverageValue target as is', () => {
    const cpuAvg = { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '500m' } } };
    const { metrics } = buildHpaMetrics(ehpa({ metrics: [cpuAvg as V2MetricSpec], prediction }), undefined);
    expect(metrics).to.have.length(2);
    expect(metrics[1]?.pods?.target).to.deep.equal({ type: 'AverageValue', averageValue: '500m' });
  });

  it('predicts no metric without prediction, and keeps Object metrics as they are (no Crane generation predicts them)', () => {
    const others = [
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } } },
      { type: 'Object', object: { describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main' }, metric: { name: 'rps' }, target: { type: 'Value', value: '2k' } } },
    ] as V2MetricSpec[];
    expect(buildHpaMetrics(ehpa({ metrics: others }), fourPods500m).metrics).to.deep.equal(others);
    const r = buildHpaMetrics(ehpa({ metrics: [others[1] as V2MetricSpec], prediction }), fourPods500m);
    expect(r.metrics).to.deep.equal([others[1]]);
    expect(r.unpredicted).to.deep.equal([]);
  });

  it('adds no prediction metric when prediction is off or incomplete', () => {
    for (const p of [undefined, { predictionWindowSeconds: 3600 }, { predictionAlgorithm: { algorithmType: 'dsp' } }]) {
      const { metrics } = buildHpaMetrics(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction: p }), fourPods500m);
      expect(metrics, JSON.stringify(p)).to.deep.equal([cpuUtilization50]);
    }
  });

  it('reports missing CPU requests and keeps the original metric as the fallback', () => {
    const { metrics, problem } = buildHpaMetrics(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction }), { pods: 2, requestMilli: 500, missing: ['web-1'] });
    expect(problem?.reason).to.equal('MissingCPURequests');
    expect(problem?.message).to.contain('web-1');
    expect(metrics).to.deep.equal([cpuUtilization50]);
  });

  it('reports no pods and a zero target', () => {
    const e = ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction });
    expect(buildHpaMetrics(e, { pods: 0, requestMilli: 0, missing: [] }).problem?.reason).to.equal('NoPodsForConversion');
    expect(buildHpaMetrics(e, undefined).problem?.reason).to.equal('NoPodsForConversion');
    expect(buildHpaMetrics(e, { pods: 10, requestMilli: 1, missing: [] }).problem?.reason).to.equal('ZeroConvertedTarget');
  });

  it('turns any number of crons into one External cron metric with target 1 (crane-behaviour.md §B.3 step 3)', () => {
    const crons = [
      { name: 'a', start: '0 9 * * *', end: '0 18 * * *', targetReplicas: 5 },
      { name: 'b', start: '0 20 * * *', end: '0 22 * * *', targetReplicas: 8 },
    ];
    const { metrics } = buildHpaMetrics(ehpa({ crons }), undefined);
    expect(metrics).to.deep.equal([
      {
        type: 'External',
        external: {
          metric: {
            name: 'crane_autoscaling_cron',
            selector: { matchLabels: { targetKind: 'Deployment', targetName: 'php-apache', targetNamespace: 'default', resourceIdentifier: 'cron' } },
          },
          target: { type: 'AverageValue', averageValue: '1' },
        },
      },
    ]);
  });

  it('orders original, prediction, cron', () => {
    const { metrics } = buildHpaMetrics(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction, crons: [{ name: 'a', start: '0 9 * * *', end: '0 18 * * *', targetReplicas: 5 }] }), fourPods500m);
    expect(metrics.map((m) => m.type)).to.deep.equal(['Resource', 'Pods', 'External']);
  });

  it('mirrors the API server default of 80% CPU when nothing else is configured', () => {
    expect(buildHpaMetrics(ehpa({}), undefined).metrics).to.deep.equal([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ]);
  });
});

describe('converted targets are canonical DecimalSI, as the API server stores them', () => {
  const target = (requestMilli: number) => buildHpaMetrics(ehpa({ metrics: [cpuUtilization50 as V2MetricSpec], prediction }), { pods: 1, requestMilli, missing: [] }).metrics[1]?.pods?.target.averageValue;
  it('milli-units below a whole unit, whole units plain, thousands with a suffix', () => {
    expect(target(500)).to.equal('250m');
    expect(target(4000)).to.equal('2');
    expect(target(3000)).to.equal('1500m');
    // 1,000 cores: "1k", the apiserver's own text, so the stored HPA reads back as what was sent.
    expect(target(2_000_000)).to.equal('1k');
  });
});
