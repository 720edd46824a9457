import { expect } from 'chai';
import { Histogram } from '../../../../src/histogram/histogram.ts';
import { DEFAULT_HISTOGRAM, histogramBucketCount, histogramOptionsOf, type HistogramConfig } from '../../../../src/prediction/percentile/histogram-config.ts';

const WeightedHistogram = class extends Histogram {
  constructor(c: HistogramConfig = DEFAULT_HISTOGRAM) {
    super(histogramOptionsOf(c));
  }
};
const bucketStart = (c: HistogramConfig, b: number) => histogramOptionsOf(c).getBucketStart(b);
import { percentileEstimate, DEFAULT_PERCENTILE_CONFIG } from '../../../../src/prediction/percentile/percentile-forecast.ts';

describe('prediction/percentile', () => {
  it('counts a layout\'s buckets as the constructors would, without allocating them', () => {
    const layouts: HistogramConfig[] = [
      DEFAULT_HISTOGRAM,
      { kind: 'linear', maxValue: 1000, bucketSize: 0.5, epsilon: 1e-10 },
      { kind: 'exponential', maxValue: 100000, firstBucketSize: 0.01, ratio: 1.05, epsilon: 1e-10 },
      { kind: 'exponential', maxValue: 1e6, firstBucketSize: 40, ratio: 1.5, epsilon: 1e-10 },
    ];
    for (const c of layouts) expect(histogramBucketCount(c), JSON.stringify(c)).to.equal(histogramOptionsOf(c).numBuckets);
    expect(histogramBucketCount({ kind: 'linear', maxValue: Infinity, bucketSize: 1, epsilon: 1e-10 })).to.equal(Infinity);
    expect(histogramBucketCount({ kind: 'exponential', maxValue: 1, firstBucketSize: 1, ratio: 1 + 1e-17, epsilon: 1e-10 })).to.equal(Infinity);
  });
  it('refuses a layout of more than the bound before allocating it (1e8 buckets took serve out of memory)', () => {
    expect(() => histogramOptionsOf({ kind: 'linear', maxValue: 1e8, bucketSize: 1, epsilon: 1e-10 })).to.throw(RangeError, /100000001 buckets, more than 1000000/);
    expect(() => percentileEstimate([1, 2, 3], { ...DEFAULT_PERCENTILE_CONFIG, histogram: { kind: 'linear', maxValue: 1e8, bucketSize: 1, epsilon: 1e-10 } })).to.throw(RangeError);
  });
  it('an empty histogram gives 0', () => {
    expect(new WeightedHistogram().percentile(0.99)).to.equal(0);
  });
  it('returns the end of the bucket where the cumulative weight reaches p (linear, 0.1 buckets)', () => {
    const h = new WeightedHistogram({ kind: 'linear', maxValue: 10, bucketSize: 1, epsilon: 1e-10 });
    h.addSample(0.5, 1);
    h.addSample(2.5, 1);
    h.addSample(7.2, 2);
    expect(h.percentile(0.25)).to.equal(1);
    expect(h.percentile(0.5)).to.equal(3);
    expect(h.percentile(0.99)).to.equal(8);
  });
  it('the last bucket returns its start; values above max land in it', () => {
    const h = new WeightedHistogram({ kind: 'linear', maxValue: 10, bucketSize: 1, epsilon: 1e-10 });
    h.addSample(1e6, 1);
    expect(h.percentile(0.5)).to.equal(10);
  });
  it('exponential buckets start at first * (r^i - 1) / (r - 1)', () => {
    const o = { kind: 'exponential', maxValue: 1000, firstBucketSize: 0.01, ratio: 1.05, epsilon: 1e-10 } as const;
    expect(bucketStart(o, 0)).to.equal(0);
    expect(bucketStart(o, 1)).to.be.closeTo(0.01, 1e-15);
    expect(bucketStart(o, 2)).to.be.closeTo(0.01 + 0.0105, 1e-15);
    const h = new WeightedHistogram(o);
    h.addSample(5, 1);
    const p = h.percentile(0.5);
    expect(p).to.be.above(5);
    expect(p).to.be.below(5 * 1.06);
  });
  it('weights samples by their value, so large values count more (Crane: max(minSampleWeight, value))', () => {
    // 90 samples of 1 and 10 of 50: by count P50 would be 1, by value-weight the mass is at 50.
    const values = [...new Array(90).fill(1), ...new Array(10).fill(50)];
    expect(percentileEstimate(values, { ...DEFAULT_PERCENTILE_CONFIG, percentile: 0.5 })).to.be.closeTo(50.1, 1e-9);
    expect(percentileEstimate(values, { ...DEFAULT_PERCENTILE_CONFIG, percentile: 0.5, marginFraction: 0.2, targetUtilization: 0.5 })).to.be.closeTo(50.1 * 1.2 / 0.5, 1e-9);
  });
});
