// Edge cases of the backing HPA an EHPA wants (docs/crane-behaviour.md §B.2, §B.3): which metric is the
// Resource cpu metric, how a conversion problem names its metric, the autoscaling/v2 behavior defaults, and
// the uid-less selector. Upstream: gocrane/crane pkg/controller/ehpa/hpa.go (NewHPAObject, GetHPAMetrics),
// kubernetes pkg/apis/autoscaling/v2/defaults.go (SetDefaults_HorizontalPodAutoscalerBehavior).
import { expect } from 'chai';
import type { V2HPAScalingRules, V2MetricSpec } from '@kubernetes/client-node';
import {
  buildDesiredHpa,
  buildHpaMetrics,
  defaultBehavior,
  hasPredictableCpuMetric,
  predictedCpuMetric,
  type PodRequests,
  type PodRequestsLookup,
} from '../../../src/ehpa/desired-hpa.ts';
import { UID, cpuUtilization50, ehpa, prediction } from './fixtures.ts';

const cpuUtil = cpuUtilization50 as V2MetricSpec;
const memAvg = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } } } as V2MetricSpec;
const memUtil70 = { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } } as V2MetricSpec;
const ctrCpu60 = { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } } as V2MetricSpec;
const fourPods500m: PodRequests = { pods: 4, requestMilli: 2000, missing: [] };
const uidSelector = (uid: string) => ({ matchLabels: { 'autoscaling.crane.io/effective-hpa-uid': uid } });

describe('hasPredictableCpuMetric: prediction on and a Resource cpu metric (crane-behaviour.md §B.3, §0.1 crane_pod_cpu_usage)', () => {
  // Crane classifies a metric by `switch metric.Type` (pkg/utils/ehpa.go GetPredictionMetricIdentifier),
  // never by which source block happens to be filled in.
  const podsWithStrayCpuBlock = {
    type: 'Pods',
    pods: { metric: { name: 'http_requests' }, target: { type: 'AverageValue', averageValue: '10' } },
    resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '500m' } },
  } as V2MetricSpec;
  const cases: [string, Parameters<typeof ehpa>[0], boolean][] = [
    ['prediction on, cpu metric', { metrics: [cpuUtil], prediction }, true],
    ['prediction on, cpu after another metric (any metric, not every)', { metrics: [memAvg, cpuUtil], prediction }, true],
    ['prediction on, memory only', { metrics: [memAvg], prediction }, false],
    ['prediction on, ContainerResource cpu only (HEAD identifier, not crane_pod_cpu_usage)', { metrics: [ctrCpu60], prediction }, false],
    ['prediction on, a Pods metric carrying a stray resource block', { metrics: [podsWithStrayCpuBlock], prediction }, false],
    ['prediction off (IsEHPAPredictionEnabled false), cpu metric', { metrics: [cpuUtil] }, false],
    ['prediction incomplete (no algorithm), cpu metric', { metrics: [cpuUtil], prediction: { predictionWindowSeconds: 3600 } }, false],
  ];
  for (const [name, spec, want] of cases) {
    it(`${name}: ${want}`, () => {
      expect(hasPredictableCpuMetric(ehpa(spec))).to.equal(want);
    });
  }
});

describe('the crane_pod_cpu_usage metric is built from the Resource cpu metric, wherever it stands (§B.3)', () => {
  it('converts the cpu metric, not the memory metric listed before it', () => {
    // 4 pods × 500m at 50 % → 250m (crane-behaviour.md §B.3 example); the memory AverageValue stays with memory.
    const r = buildHpaMetrics(ehpa({ metrics: [memAvg, cpuUtil], prediction }), fourPods500m);
    const cpu = r.metrics.find((m) => m.type === 'Pods' && m.pods?.metric.name === 'crane_pod_cpu_usage');
    expect(cpu?.pods?.target).to.deep.equal({ type: 'AverageValue', averageValue: '250m' });
    expect(predictedCpuMetric(ehpa({ metrics: [memAvg, cpuUtil], prediction }), fourPods500m).metric?.pods?.target.averageValue).to.equal('250m');
  });

  it('gives nothing when the EHPA has no Resource cpu metric', () => {
    expect(predictedCpuMetric(ehpa({ metrics: [memAvg], prediction }), fourPods500m)).to.deep.equal({});
    expect(predictedCpuMetric(ehpa({ metrics: [ctrCpu60], prediction }), fourPods500m)).to.deep.equal({});
  });
});

describe('conversion problems name the metric (docs/operations.md "EHPA conditions": MissingCPURequests, MissingRequests, NoPodsForConversion, ZeroConvertedTarget)', () => {
  // One lookup answering the same summary for every resource and container.
  const lookupOf = (r: PodRequests | undefined): PodRequestsLookup => () => r;
  const problemOf = (metric: V2MetricSpec, r: PodRequests | undefined) => {
    const out = buildHpaMetrics(ehpa({ metrics: [metric], prediction }), undefined, lookupOf(r));
    // A problem never drops the original: it stays as the fallback (crane-behaviour.md §B.3 step 1).
    expect(out.metrics).to.deep.equal([metric]);
    return out.problem;
  };

  it('missing requests: Resource cpu keeps its CPU wording, every other metric starts with its label', () => {
    expect(problemOf(cpuUtil, { pods: 2, requestMilli: 500, missing: ['web-1'] })).to.deep.equal({ reason: 'MissingCPURequests', message: 'missing CPU request in pods: web-1' });
    const ctr = problemOf(ctrCpu60, { pods: 2, requestMilli: 500, missing: ['web-1'] });
    expect(ctr?.reason).to.equal('MissingCPURequests');
    expect(ctr?.message).to.equal('ContainerResource cpu (container app): missing cpu request in pods: web-1');
    const mem = problemOf(memUtil70, { pods: 2, requestMilli: 500, missing: ['web-1'] });
    expect(mem).to.deep.equal({ reason: 'MissingRequests', message: 'Resource memory: missing memory request in pods: web-1' });
  });

  it('names at most three pods, comma-separated, and marks the rest with "..."', () => {
    const cases: [string[], string][] = [
      [['a', 'b', 'c'], 'a, b, c'],
      [['a', 'b', 'c', 'd'], 'a, b, c, ...'],
      [['a', 'b', 'c', 'd', 'e', 'f'], 'a, b, c, ...'],
    ];
    for (const [missing, list] of cases) {
      expect(problemOf(cpuUtil, { pods: 6, requestMilli: 500, missing })?.message, missing.join()).to.equal(`missing CPU request in pods: ${list}`);
      expect(problemOf(memUtil70, { pods: 6, requestMilli: 500, missing })?.message, missing.join()).to.equal(`Resource memory: missing memory request in pods: ${list}`);
    }
  });

  it('a target rounding down to 0m: Resource cpu keeps its CPU wording, every other metric starts with its label', () => {
    // trunc(1m × 50 % / 10 pods) = 0 (Crane's int64() truncation, hpa.go GetHPAMetrics).
    const tiny = { pods: 10, requestMilli: 1, missing: [] };
    expect(problemOf(cpuUtil, tiny)).to.deep.equal({ reason: 'ZeroConvertedTarget', message: 'converted CPU target rounds down to 0m' });
    expect(problemOf(ctrCpu60, tiny)).to.deep.equal({ reason: 'ZeroConvertedTarget', message: 'ContainerResource cpu (container app): converted target rounds down to 0m' });
    expect(problemOf(memUtil70, tiny)).to.deep.equal({ reason: 'ZeroConvertedTarget', message: 'Resource memory: converted target rounds down to 0m' });
  });

  it('no pods to read requests from names the metric and the resource', () => {
    for (const r of [undefined, { pods: 0, requestMilli: 0, missing: [] }]) {
      const p = problemOf(memUtil70, r);
      expect(p?.reason).to.equal('NoPodsForConversion');
      expect(p?.message).to.match(/^Resource memory: /);
      expect(p?.message).to.contain('memory requests');
    }
    const ctr = problemOf(ctrCpu60, undefined);
    expect(ctr?.reason).to.equal('NoPodsForConversion');
    expect(ctr?.message).to.match(/^ContainerResource cpu \(container app\): /);
  });

  it('buildDesiredHpa hands the problem on with the HPA (the reconciler turns it into Ready=False)', () => {
    const r = buildDesiredHpa({ ehpa: ehpa({ metrics: [cpuUtil], prediction }), podCpuRequests: { pods: 0, requestMilli: 0, missing: [] } });
    expect(r.problem?.reason).to.equal('NoPodsForConversion');
    expect(r.problems.map((p) => p.reason)).to.deep.equal(['NoPodsForConversion']);
    expect(r.hpa.spec.metrics).to.deep.equal([cpuUtil]);
    expect(buildDesiredHpa({ ehpa: ehpa({ metrics: [cpuUtil], prediction }), podCpuRequests: fourPods500m })).to.not.have.property('problem');
  });
});

describe('the EHPA uid in selectors and labels is string(ehpa.UID): empty when the object has none', () => {
  // Crane writes string(ehpa.UID) (hpa.go NewHPAObject labels, the uid selector of v0.2–v0.7's metrics).
  it('crane_pod_cpu_usage, crane_custom.pods_ and the HPA labels carry "" for a uid-less EHPA', () => {
    const httpRequests = { type: 'Pods', pods: { metric: { name: 'http_requests' }, target: { type: 'AverageValue', averageValue: '500m' } } } as V2MetricSpec;
    const e = ehpa({ metrics: [cpuUtil, httpRequests], prediction }, { uid: undefined, annotations: { 'metric-query.autoscaling.crane.io/pods.http_requests': 'sum(http_requests)' } });
    const { hpa } = buildDesiredHpa({ ehpa: e, podCpuRequests: fourPods500m });
    expect(hpa.spec.metrics?.slice(2).map((m) => m.pods?.metric.selector)).to.deep.equal([uidSelector(''), uidSelector('')]);
    expect(hpa.metadata.labels?.['autoscaling.crane.io/effective-hpa-uid']).to.equal('');
    expect(hpa.metadata.ownerReferences?.[0]?.uid).to.equal('');
    // With a uid, the same selectors carry it.
    const withUid = buildDesiredHpa({ ehpa: { ...e, metadata: { ...e.metadata, uid: UID } }, podCpuRequests: fourPods500m }).hpa;
    expect(withUid.spec.metrics?.slice(2).map((m) => m.pods?.metric.selector)).to.deep.equal([uidSelector(UID), uidSelector(UID)]);
  });
});

describe('behavior: copied when set, absent when not (hpa.go NewHPAObject; k8s autoscaling/v2 defaults)', () => {
  const scaleUpDefaults = {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
  };
  const scaleDownDefaults = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

  it('an EHPA without behavior gives an HPA without the field (Crane sets Behavior = nil)', () => {
    const { hpa } = buildDesiredHpa({ ehpa: ehpa({ metrics: [cpuUtil] }) });
    expect(hpa.spec).to.not.have.property('behavior');
  });

  it("an EHPA's behavior reaches the HPA with the API server's defaults filled in", () => {
    const { hpa } = buildDesiredHpa({ ehpa: ehpa({ metrics: [cpuUtil], behavior: { scaleDown: { stabilizationWindowSeconds: 300 } } }) });
    expect(hpa.spec.behavior).to.deep.equal({ scaleUp: scaleUpDefaults, scaleDown: { stabilizationWindowSeconds: 300, ...scaleDownDefaults } });
  });

  it('an absent rule is the whole default rule (defaultHPAScaleUpRules / defaultHPAScaleDownRules)', () => {
    expect(defaultBehavior({})).to.deep.equal({ scaleUp: scaleUpDefaults, scaleDown: scaleDownDefaults });
  });

  it('given fields are kept (copyHPAScalingRules copies every non-nil field)', () => {
    const given: V2HPAScalingRules = { stabilizationWindowSeconds: 60, selectPolicy: 'Min', policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] };
    expect(defaultBehavior({ scaleUp: given, scaleDown: given })).to.deep.equal({ scaleUp: given, scaleDown: given });
    // An empty list is not nil in Go: it is kept too.
    expect(defaultBehavior({ scaleUp: { policies: [] } })?.scaleUp?.policies).to.deep.equal([]);
  });

  it('null fields (JSON null decodes to a nil pointer or slice) take the defaults; scaleDown has no default window', () => {
    const nulls = { stabilizationWindowSeconds: null, selectPolicy: null, policies: null } as unknown as V2HPAScalingRules;
    const b = defaultBehavior({ scaleUp: { ...nulls }, scaleDown: { ...nulls } });
    expect(b?.scaleUp).to.deep.equal(scaleUpDefaults);
    expect(b?.scaleDown).to.deep.equal(scaleDownDefaults);
    expect(b?.scaleDown).to.not.have.property('stabilizationWindowSeconds');
  });
});
