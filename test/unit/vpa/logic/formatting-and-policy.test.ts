// Edges of the VPA recommendation's last steps that the conformance vectors do not reach: Go's "%.2f"
// rounding (fmt rounds the exact binary value, ties to even), HumanizeMemoryQuantity's units, the
// omitempty fields of the status JSON, the integerCPU annotation's exact shape, capping at equality, and
// the int64 cap of proportional limits (k8s.io/autoscaler vertical-pod-autoscaler v1.x
// pkg/recommender/routines/cpu_integer_post_processor.go, pkg/utils/vpa/capping.go,
// pkg/utils/vpa/limit_and_request_scaling.go, pkg/recommender/model/types.go).
import { expect } from 'chai';
import { Quantity } from '../../../../src/quantity/index.ts';
import {
  DEFAULT_RECOMMENDATION_CONFIG,
  PodResourceRecommender,
  applyVPAPolicy,
  extractContainerName,
  getProportionalLimit,
  goFormatFixed2,
  humanizeMemoryQuantity,
  integerCPUPostProcess,
  recommendationToJSON,
  resourcesAsResourceList,
  type ContainerRecommendation,
  type QuantityList,
} from '../../../../src/vpa/logic/index.ts';
import { AggregateContainerState } from '../../../../src/vpa/model/aggregate-container-state.ts';
import { cpuAmountFromCores, memoryAmountFromBytes, resourceAmountFromFloat } from '../../../../src/vpa/model/resource-amount.ts';

const list = (o: Record<string, string>): QuantityList => new Map(Object.entries(o).map(([k, v]) => [k, Quantity.parse(v)]));
const str = (l: QuantityList) => Object.fromEntries([...l].map(([k, q]) => [k, q.toString()]));
const rec = (name: string, cpu: string): ContainerRecommendation => ({
  containerName: name,
  target: list({ cpu }),
  lowerBound: list({ cpu }),
  upperBound: list({ cpu }),
  uncappedTarget: list({ cpu }),
});

describe('Go "%.2f" and HumanizeMemoryQuantity', () => {
  it('rounds exact binary ties to even, as Go does, and other values to nearest', () => {
    // 0.125, 0.375, 1.125 and 2.625 are exact in binary, so each is a true tie at the third decimal.
    expect(goFormatFixed2(0.125)).to.equal('0.12');
    expect(goFormatFixed2(0.375)).to.equal('0.38');
    expect(goFormatFixed2(1.125)).to.equal('1.12');
    expect(goFormatFixed2(2.625)).to.equal('2.62');
    expect(goFormatFixed2(-0.125)).to.equal('-0.12');
    expect(goFormatFixed2(-0.375)).to.equal('-0.38');
    // 0.1 is not exact; 1.5 has no third decimal; 0.126 is not a tie.
    expect(goFormatFixed2(0.1)).to.equal('0.10');
    expect(goFormatFixed2(1.5)).to.equal('1.50');
    expect(goFormatFixed2(0.126)).to.equal('0.13');
  });

  it('uses the largest binary unit from Ti down to Ki, and plain bytes below 1 Ki', () => {
    expect(humanizeMemoryQuantity(1000)).to.equal('1000');
    expect(humanizeMemoryQuantity(1024)).to.equal('1.00Ki');
    expect(humanizeMemoryQuantity(1152)).to.equal('1.12Ki'); // 1.125 Ki, a tie, to even
    expect(humanizeMemoryQuantity(3 * 1024 * 1024 / 2)).to.equal('1.50Mi');
    expect(humanizeMemoryQuantity(5 * 1024 ** 3)).to.equal('5.00Gi');
    expect(humanizeMemoryQuantity(2 * 1024 ** 4)).to.equal('2.00Ti');
  });
});

describe('ResourcesAsResourceList rounding options', () => {
  it('rounds CPU up to a multiple of roundCPUMillicores and memory to roundMemoryBytes, but never a zero', () => {
    const f = { humanizeMemory: false, roundCPUMillicores: 100, roundMemoryBytes: 1024 };
    expect(str(resourcesAsResourceList({ cpu: 101, memory: 1025 }, f))).to.deep.equal({ cpu: '200m', memory: '2Ki' });
    expect(str(resourcesAsResourceList({ cpu: 0, memory: 0 }, f))).to.deep.equal({ cpu: '0', memory: '0' });
    const one = { humanizeMemory: false, roundCPUMillicores: 1, roundMemoryBytes: 1 };
    expect(str(resourcesAsResourceList({ cpu: 101, memory: 1025 }, one))).to.deep.equal({ cpu: '101m', memory: '1025' });
  });
});

describe('recommendation status JSON', () => {
  it('leaves out empty bounds (omitempty) and keeps non-empty ones with sorted keys', () => {
    const r: ContainerRecommendation = {
      containerName: 'app',
      target: list({ memory: '1Gi', cpu: '100m' }),
      lowerBound: new Map(),
      upperBound: list({ cpu: '1' }),
      uncappedTarget: new Map(),
    };
    const j = recommendationToJSON([r]);
    expect(j).to.deep.equal({ containerRecommendations: [{ containerName: 'app', target: { cpu: '100m', memory: '1Gi' }, upperBound: { cpu: '1' } }] });
    expect(Object.keys(j.containerRecommendations![0]!.target)).to.deep.equal(['cpu', 'memory']);
    const full = recommendationToJSON([{ ...r, lowerBound: list({ cpu: '50m' }), uncappedTarget: list({ cpu: '2' }) }]);
    expect(full.containerRecommendations![0]).to.have.keys('containerName', 'target', 'lowerBound', 'upperBound', 'uncappedTarget');
  });
});

describe('integerCPU post-processor annotation', () => {
  const P = 'vpa-post-processor.kubernetes.io/';
  it('extracts the container name only from prefix{name}_integerCPU', () => {
    expect(extractContainerName(`${P}app_integerCPU`, P, '_integerCPU')).to.equal('app');
    expect(extractContainerName(`xpa-post-processor.kubernetes.io/app_integerCPU`, P, '_integerCPU')).to.equal('');
    expect(extractContainerName(`${P}app_integerCPUs`, P, '_integerCPU')).to.equal('');
  });
  it('rounds CPU up to whole cores only for the annotated container and only for the value "true"', () => {
    const recs = [rec('app', '1100m'), rec('side', '1100m')];
    const out = integerCPUPostProcess({ [`${P}app_integerCPU`]: 'true', [`${P}side_integerCPU`]: 'True' }, recs);
    expect(str(out[0]!.target)).to.deep.equal({ cpu: '2' });
    expect(str(out[0]!.uncappedTarget)).to.deep.equal({ cpu: '2' });
    expect(str(out[1]!.target)).to.deep.equal({ cpu: '1100m' });
    expect(str(recs[0]!.target)).to.deep.equal({ cpu: '1100m' }); // the input is not modified
  });
});

describe('capping at the bounds', () => {
  it('raises a value below minAllowed to it and lowers one above maxAllowed, leaving values inside alone', () => {
    const policy = { containerPolicies: [{ containerName: 'app', minAllowed: { cpu: '1' }, maxAllowed: { cpu: '2' } }] };
    const cap = (cpu: string) => str(applyVPAPolicy([rec('app', cpu)], policy, undefined)![0]!.target);
    expect(cap('999m')).to.deep.equal({ cpu: '1' });
    expect(cap('1500m')).to.deep.equal({ cpu: '1500m' });
    expect(cap('2001m')).to.deep.equal({ cpu: '2' });
  });
  it('ignores a negative maxAllowed, as a zero one (upstream would publish the negative request)', () => {
    for (const max of ['-1e308', '-1', '-8Ei']) {
      const policy = { containerPolicies: [{ containerName: 'app', maxAllowed: { cpu: max } }] };
      expect(str(applyVPAPolicy([rec('app', '250m')], policy, undefined)![0]!.target), max).to.deep.equal({ cpu: '250m' });
    }
  });
});

describe('proportional limits at the int64 edge', () => {
  it('caps a CPU limit whose milli-value overflows int64 and says so', () => {
    // 9e15 cores = 9e18 m; × 2 (recommended 2 / request 1) = 1.8e19 m > MaxInt64 (9223372036854775807).
    const r = getProportionalLimit(list({ cpu: '9000000000000000' }), list({ cpu: '1' }), list({ cpu: '2' }), new Map());
    expect(str(r.limits!)).to.deep.equal({ cpu: '9223372036854775807m' });
    expect(r.annotations).to.deep.equal([
      'cpu: failed to keep limit to request ratio; capping limit to int64',
      'memory: limit NOT set since originalLimit is nil or 0',
    ]);
  });
  it('caps a memory limit whose byte value overflows int64 and says so', () => {
    // 4Ei = 2^62 bytes; × 4 / 1 = 2^64 > MaxInt64.
    const r = getProportionalLimit(list({ memory: '4Ei' }), list({ memory: '1' }), list({ memory: '4' }), new Map());
    expect(str(r.limits!)).to.deep.equal({ memory: '9223372036854775807' });
    expect(r.annotations).to.deep.equal([
      'cpu: limit NOT set since originalLimit is nil or 0',
      'memory: failed to keep limit to request ratio; capping limit to int64',
    ]);
  });
  it('keeps the ratio for memory with floor division and reports a zero recommendation', () => {
    const r = getProportionalLimit(list({ cpu: '1', memory: '300' }), list({ cpu: '500m', memory: '200' }), list({ memory: '101' }), new Map());
    expect(str(r.limits!)).to.deep.equal({ memory: '151' }); // 300 × 101 / 200 = 151.5, floored
    expect(r.annotations).to.deep.equal(['cpu: limit NOT set since recommendedRequest is nil or 0']);
  });
  it('with request equal to limit the limit is the recommendation itself, in its own format, without a note', () => {
    // Upstream returns a copy of recommendedRequest: a DecimalSI limit does not reformat a BinarySI value.
    const r = getProportionalLimit(list({ memory: '1G' }), list({ memory: '1G' }), list({ memory: '300Mi' }), new Map());
    expect(str(r.limits!)).to.deep.equal({ memory: '300Mi' });
    expect(r.annotations).to.deep.equal(['cpu: limit NOT set since originalLimit is nil or 0']);
  });
  it('a limit of exactly MaxInt64 is not capped and carries no note', () => {
    const cpu = getProportionalLimit(list({ cpu: '9223372036854775807m' }), list({ cpu: '1' }), list({ cpu: '1' }), new Map());
    expect(str(cpu.limits!)).to.deep.equal({ cpu: '9223372036854775807m' });
    expect(cpu.annotations).to.deep.equal(['memory: limit NOT set since originalLimit is nil or 0']);
    const mem = getProportionalLimit(list({ memory: '9223372036854775807' }), list({ memory: '1' }), list({ memory: '1' }), new Map());
    expect(str(mem.limits!)).to.deep.equal({ memory: '9223372036854775807' });
    expect(mem.annotations).to.deep.equal(['cpu: limit NOT set since originalLimit is nil or 0']);
  });
  it('with a zero request the limit is the recommendation itself', () => {
    const r = getProportionalLimit(list({ cpu: '3' }), list({ cpu: '0' }), list({ cpu: '250m' }), new Map());
    expect(str(r.limits!)).to.deep.equal({ cpu: '250m' });
    expect(r.annotations).to.deep.equal(['memory: limit NOT set since originalLimit is nil or 0']);
  });
});

describe('ResourceAmount from a float (model/types.go resourceAmountFromFloat)', () => {
  it('clamps negatives to 0, caps at MaxResourceAmount, truncates, and maps NaN as amd64 does', () => {
    expect(cpuAmountFromCores(-0.005)).to.equal(0);
    expect(memoryAmountFromBytes(-1)).to.equal(0);
    expect(memoryAmountFromBytes(2e14)).to.equal(1e14);
    expect(cpuAmountFromCores(0.0019)).to.equal(1);
    // Go converts NaN to int64 as 0x8000000000000000 on amd64 (CVTTSD2SQ's "integer indefinite").
    expect(resourceAmountFromFloat(NaN)).to.equal(-9223372036854775808);
  });
});

describe('PodResourceRecommender with given estimators', () => {
  it('uses the given estimator chains instead of the default ones, still raised to the pod minimum', () => {
    const at = (v: number) => () => v;
    const r = new PodResourceRecommender(DEFAULT_RECOMMENDATION_CONFIG, {
      targetCPU: at(500), targetMemory: at(300e6), lowerBoundCPU: at(400), lowerBoundMemory: at(200e6), upperBoundCPU: at(1), upperBoundMemory: at(900e6),
    });
    const s = new AggregateContainerState();
    const out = r.getRecommendedPodResources(new Map([['app', s]]));
    // The pod minimum is 25 m and 250 MiB (upstream --pod-recommendation-min-cpu-millicores/-min-memory-mb).
    expect(out.get('app')).to.deep.equal({
      target: { cpu: 500, memory: 300e6 },
      lowerBound: { cpu: 400, memory: 250 * 1024 * 1024 },
      upperBound: { cpu: 25, memory: 900e6 },
    });
  });
});
