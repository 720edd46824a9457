// ContainerState sample acceptance and the memory-peak window (k8s.io/autoscaler vertical-pod-autoscaler
// v1.x pkg/recommender/model/container.go addCPUSample/addMemorySample/RecordOOM, and
// ContainerUsageSample.isValid: a sample is valid when its usage is >= 0, so zero is a sample).
import { expect } from 'chai';
import { AggregateContainerState } from '../../../../src/vpa/model/aggregate-container-state.ts';
import { ContainerState } from '../../../../src/vpa/model/container-state.ts';
import { MICROS_PER_HOUR } from '../../../../src/gomath/go-time.ts';

const T0 = 1767323045_000_000;
const H = MICROS_PER_HOUR;

function container(): { c: ContainerState; agg: AggregateContainerState } {
  const agg = new AggregateContainerState();
  return { c: new ContainerState({ aggregate: () => agg }), agg };
}

describe('ContainerState samples', () => {
  it('accepts a zero CPU sample (usage >= 0 is valid) and rejects a negative or non-increasing time', () => {
    const { c, agg } = container();
    expect(c.addCPUSample(0, T0)).to.equal(true);
    expect(agg.totalSamplesCount).to.equal(1);
    expect(c.addCPUSample(-1, T0 + 1)).to.equal(false);
    expect(c.addCPUSample(5, T0)).to.equal(false);
    expect(agg.totalSamplesCount).to.equal(1);
  });

  it('accepts a zero memory sample and one at the same time as the last, but not an older one', () => {
    const { c } = container();
    expect(c.addMemorySample(0, T0)).to.equal(true);
    expect(c.addMemorySample(100, T0)).to.equal(true);
    expect(c.addMemorySample(50, T0 - 1)).to.equal(false);
    expect(c.addMemorySample(-1, T0 + 1)).to.equal(false);
  });

  it('keeps the first peak of a window when it was zero, as upstream does (oldMax != 0 guard)', () => {
    const { c } = container();
    c.addMemorySample(0, T0); // opens the window [T0, T0 + 24h) with a zero peak
    c.addMemorySample(100, T0 + H); // inside the window, but the old peak is 0: not replaced
    expect(c.getMaxMemoryPeak()).to.equal(0);
    const { c: d } = container();
    d.addMemorySample(10, T0);
    d.addMemorySample(100, T0 + H); // a larger peak inside the window replaces it
    expect(d.getMaxMemoryPeak()).to.equal(100);
    d.addMemorySample(60, T0 + 2 * H); // a smaller one does not
    expect(d.getMaxMemoryPeak()).to.equal(100);
  });

  it('takes an OOM exactly one interval older than the last memory sample, and refuses an older one', () => {
    const { c } = container();
    c.addMemorySample(1000, T0 + 24 * H);
    expect(() => c.recordOOM(T0, 0)).to.not.throw();
    const { c: d } = container();
    d.addMemorySample(1000, T0 + 24 * H);
    expect(() => d.recordOOM(T0 - 1, 0)).to.throw('OOM event will be discarded - it is too old');
  });
});
