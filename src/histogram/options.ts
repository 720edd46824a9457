// Bucket layouts for the recommender's histograms (upstream recommender/util/histogram_options.go).
// Exponential buckets: bucket 0 is [0, first), bucket n has width first*ratio^n. Bucket lookup always
// uses the log formula (with Go's Log), never a search over the bucket starts: the two are not exact
// inverses at the boundaries.
import { goLog, goPow } from '../gomath/go-math.ts';

export interface HistogramOptions {
  readonly numBuckets: number;
  readonly epsilon: number;
  findBucket(value: number): number;
  /** Start of a bucket; throws when out of range like upstream's panic. */
  getBucketStart(bucket: number): number;
}

const TWO63 = 9223372036854775808;

/** Go's int(x) on amd64 for the bucket formulas: truncation, MinInt64 when out of range or NaN. */
function goInt(x: number): number {
  if (Number.isNaN(x) || x >= TWO63 || x < -TWO63) return Number.MIN_SAFE_INTEGER;
  return Math.trunc(x);
}

export class LinearHistogramOptions implements HistogramOptions {
  readonly numBuckets: number;
  constructor(
    readonly maxValue: number,
    readonly bucketSize: number,
    readonly epsilon: number,
  ) {
    if (!(maxValue > 0) || !(bucketSize > 0) || !(epsilon > 0)) {
      throw new Error('maxValue and bucketSize must both be positive');
    }
    this.numBuckets = goInt(Math.ceil(maxValue / bucketSize)) + 1;
  }
  findBucket(value: number): number {
    const b = goInt(value / this.bucketSize);
    if (b < 0) return 0;
    if (b >= this.numBuckets) return this.numBuckets - 1;
    return b;
  }
  getBucketStart(bucket: number): number {
    checkRange(bucket, this.numBuckets);
    return bucket * this.bucketSize;
  }
}

export class ExponentialHistogramOptions implements HistogramOptions {
  readonly numBuckets: number;
  private readonly logRatio: number;
  private readonly ratioMinusOne: number;
  private readonly starts: Float64Array;
  constructor(
    readonly maxValue: number,
    readonly firstBucketSize: number,
    readonly ratio: number,
    readonly epsilon: number,
  ) {
    if (!(maxValue > 0) || !(firstBucketSize > 0) || !(ratio > 1) || !(epsilon > 0)) {
      throw new Error('maxValue, firstBucketSize and epsilon must be > 0.0, ratio must be > 1.0');
    }
    this.logRatio = goLog(ratio);
    this.ratioMinusOne = ratio - 1;
    this.numBuckets = goInt(Math.ceil(goLog((maxValue * (ratio - 1)) / firstBucketSize + 1) / this.logRatio)) + 1;
    this.starts = new Float64Array(this.numBuckets);
    for (let b = 1; b < this.numBuckets; b++) {
      this.starts[b] = (firstBucketSize * (goPow(ratio, b) - 1)) / (ratio - 1);
    }
  }
  findBucket(value: number): number {
    if (value < this.firstBucketSize) return 0;
    const b = goInt(goLog((value * this.ratioMinusOne) / this.firstBucketSize + 1) / this.logRatio);
    if (b >= this.numBuckets) return this.numBuckets - 1;
    return b;
  }
  getBucketStart(bucket: number): number {
    checkRange(bucket, this.numBuckets);
    return this.starts[bucket] as number;
  }
}

function checkRange(bucket: number, numBuckets: number): void {
  if (!Number.isInteger(bucket) || bucket < 0 || bucket >= numBuckets) {
    throw new RangeError(`index ${bucket} out of range [0..${numBuckets - 1}]`);
  }
}
