// AggregateContainerState bookkeeping and VPA conditions (k8s.io/autoscaler vertical-pod-autoscaler v1.x
// pkg/recommender/model/aggregate_container_state.go AddSample/MergeContainerState/NeedsRecommendation/
// MarkNotAutoscaled/UpdateFromPolicy, and model/vpa.go UpdateConditions): the first/last sample times are
// a min and a max, the zero time means "none yet", and a condition keeps its transition time while its
// status stays the same.
import { expect } from 'chai';
import { AggregateContainerState } from '../../../../src/vpa/model/aggregate-container-state.ts';
import { AggregationsConfig, defaultAggregationsConfig } from '../../../../src/vpa/model/aggregations-config.ts';
import { getContainerResourcePolicy } from '../../../../src/vpa/model/vpa-types.ts';
import { VpaConditions } from '../../../../src/vpa/model/vpa-conditions.ts';
import { GO_ZERO_TIME, MICROS_PER_HOUR } from '../../../../src/gomath/go-time.ts';

const T0 = 1767323045_000_000;
const H = MICROS_PER_HOUR;

describe('AggregateContainerState sample times', () => {
  it('first and last sample start are the min and max over samples given out of order', () => {
    const s = new AggregateContainerState();
    expect(s.firstSampleStart).to.equal(GO_ZERO_TIME);
    s.addCPUSample(100, T0 + 2 * H);
    s.addCPUSample(100, T0);
    s.addCPUSample(100, T0 + H);
    expect(s.firstSampleStart).to.equal(T0);
    expect(s.lastSampleStart).to.equal(T0 + 2 * H);
    expect(s.totalSamplesCount).to.equal(3);
  });

  it('merging keeps the earliest non-zero first sample and the latest last sample, and adds the counts', () => {
    const a = new AggregateContainerState();
    a.addCPUSample(100, T0 + H);
    a.addCPUSample(100, T0 + 2 * H);
    const b = new AggregateContainerState();
    b.addCPUSample(100, T0);
    b.addCPUSample(100, T0 + 3 * H);
    a.mergeContainerState(b);
    expect([a.firstSampleStart, a.lastSampleStart, a.totalSamplesCount]).to.deep.equal([T0, T0 + 3 * H, 4]);

    // A later/earlier other does not move the bounds the wrong way.
    const c = new AggregateContainerState();
    c.addCPUSample(100, T0 + H);
    a.mergeContainerState(c);
    expect([a.firstSampleStart, a.lastSampleStart]).to.deep.equal([T0, T0 + 3 * H]);

    // An empty other (zero first sample) leaves this one's first sample alone.
    a.mergeContainerState(new AggregateContainerState());
    expect(a.firstSampleStart).to.equal(T0);

    // An empty this takes the other's first sample.
    const empty = new AggregateContainerState();
    empty.mergeContainerState(b);
    expect([empty.firstSampleStart, empty.lastSampleStart]).to.deep.equal([T0, T0 + 3 * H]);
  });
});

describe('AggregateContainerState policy', () => {
  it('needs a recommendation only under a VPA with a scaling mode other than Off', () => {
    const s = new AggregateContainerState();
    expect([s.isUnderVPA, s.removed]).to.deep.equal([false, false]); // NewAggregateContainerState: IsUnderVPA false
    expect(s.needsRecommendation()).to.equal(false); // not under a VPA
    s.isUnderVPA = true;
    expect(s.needsRecommendation()).to.equal(false); // no mode yet
    s.updateFromPolicy(undefined);
    expect(s.scalingMode).to.equal('Auto');
    expect(s.needsRecommendation()).to.equal(true);
    s.updateFromPolicy({ containerName: 'app', mode: 'Off' });
    expect(s.needsRecommendation()).to.equal(false);
    s.updateFromPolicy({ containerName: 'app', mode: 'Auto', controlledResources: ['memory', 'ephemeral-storage' as 'memory'] });
    expect(s.getControlledResources()).to.deep.equal(['memory']);
    s.markNotAutoscaled();
    expect(s.isUnderVPA).to.equal(false);
    expect(s.scalingMode).to.equal(undefined);
    expect(s.needsRecommendation()).to.equal(false);
    expect(s.getControlledResources()).to.deep.equal(['cpu', 'memory']);
  });

  it('with PerVPAConfig, takes the OOM bump-up ratio and minimum from the policy as quantities', () => {
    const s = new AggregateContainerState();
    s.updateFromPolicy({ containerName: 'app', oomBumpUpRatio: '1500m', oomMinBumpUp: '2Ki' }, { perVPAConfig: true });
    expect(s.oomBumpUpRatio).to.equal(1.5);
    expect(s.oomMinBumpUp).to.equal(2048);
    const off = new AggregateContainerState();
    off.updateFromPolicy({ containerName: 'app', oomBumpUpRatio: '1500m' });
    expect(off.oomBumpUpRatio).to.equal(1.2); // the gate is off: the default stays
  });

  it('the memory aggregation window is interval × count (8 days by default)', () => {
    expect(new AggregateContainerState(defaultAggregationsConfig()).memoryAggregationWindowLength()).to.equal(8 * 24 * H);
    expect(defaultAggregationsConfig().memoryAggregationWindowLength()).to.equal(8 * 24 * H);
    const custom = new AggregationsConfig({ memoryAggregationInterval: 2 * H, memoryAggregationIntervalCount: 3 });
    expect(custom.memoryAggregationWindowLength()).to.equal(6 * H);
  });
});

describe('getContainerResourcePolicy', () => {
  it('prefers the entry naming the container, else the "*" entry, else none', () => {
    const named = { containerName: 'app', mode: 'Auto' as const };
    const star = { containerName: '*', mode: 'Off' as const };
    const other = { containerName: 'other', mode: 'Auto' as const };
    expect(getContainerResourcePolicy('app', { containerPolicies: [other, named] })).to.equal(named);
    expect(getContainerResourcePolicy('app', { containerPolicies: [star, named] })).to.equal(named);
    expect(getContainerResourcePolicy('app', { containerPolicies: [star, other] })).to.equal(star);
    expect(getContainerResourcePolicy('app', { containerPolicies: [other] })).to.equal(undefined);
  });
});

describe('VpaConditions', () => {
  it('keeps lastTransitionTime while the status is unchanged and resets it when it flips', () => {
    const c = new VpaConditions();
    c.set('LowConfidence', true, 'r', 'm', 100);
    c.set('LowConfidence', true, 'r2', 'm2', 200);
    expect(c.get('LowConfidence')).to.deep.equal({ type: 'LowConfidence', status: 'True', reason: 'r2', message: 'm2', lastTransitionTime: 100 });
    c.set('LowConfidence', false, '', '', 300);
    expect(c.get('LowConfidence')!.lastTransitionTime).to.equal(300);
    c.delete('LowConfidence');
    expect(c.get('LowConfidence')).to.equal(undefined);
  });

  it('lists conditions sorted by type whatever the insertion order', () => {
    const c = new VpaConditions();
    for (const t of ['RecommendationProvided', 'ConfigDeprecated', 'NoPodsMatched', 'LowConfidence', 'ConfigUnsupported'] as const) c.set(t, true, '', '', 1);
    expect(c.asList().map((x) => x.type)).to.deep.equal(['ConfigDeprecated', 'ConfigUnsupported', 'LowConfidence', 'NoPodsMatched', 'RecommendationProvided']);
  });
});
