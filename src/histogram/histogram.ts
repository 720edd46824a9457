// Weighted histograms with a percentile query (upstream recommender/util/histogram.go) and the
// decaying variant whose weights grow exponentially with sample time (decaying_histogram.go).
// Behaviour to keep: sub-epsilon weight does not widen [minBucket, maxBucket]; Percentile returns the
// END of the chosen bucket (the start for the last, unbounded one); checkpoints scale the heaviest
// bucket to 10000 and drop what rounds to 0.
import { goExp2, ldexp, roundHalfUp } from '../gomath/go-math.ts';
import type { HistogramOptions } from './options.ts';
import { GO_ZERO_TIME, roundTime, subNanosFloat, type Instant, type Micros } from '../gomath/go-time.ts';

/** Upstream's MaxCheckpointWeight. */
export const MAX_CHECKPOINT_WEIGHT = 10000;

/** The histogram part of a VerticalPodAutoscalerCheckpoint (bucket index -> uint32 weight). */
export interface HistogramCheckpoint {
  totalWeight: number;
  bucketWeights: Map<number, number>;
  /** Only for decaying histograms; GO_ZERO_TIME when unset (null in JSON). */
  referenceTimestamp?: Instant;
}

export class Histogram {
  /** Bucket weights (a plain double array: cheaper to allocate than a typed array's off-heap store). */
  readonly bucketWeight: number[];
  totalWeight = 0;
  minBucket: number;
  maxBucket = 0;

  constructor(readonly options: HistogramOptions) {
    this.bucketWeight = zeroDoubles(options.numBuckets);
    this.minBucket = options.numBuckets - 1;
  }

  addSample(value: number, weight: number, _time?: Instant): void {
    this.addWeighted(value, weight);
  }

  subtractSample(value: number, weight: number, _time?: Instant): void {
    this.subtractWeighted(value, weight);
  }

  protected addWeighted(value: number, weight: number): void {
    if (weight < 0) throw new Error('sample weight must be non-negative');
    const o = this.options;
    const b = o.findBucket(value);
    const w = (this.bucketWeight[b] as number) + weight;
    this.bucketWeight[b] = w;
    this.totalWeight += weight;
    if (b < this.minBucket && w >= o.epsilon) this.minBucket = b;
    if (b > this.maxBucket && w >= o.epsilon) this.maxBucket = b;
  }

  protected subtractWeighted(value: number, weight: number): void {
    if (weight < 0) throw new Error('sample weight must be non-negative');
    const eps = this.options.epsilon;
    const b = this.options.findBucket(value);
    this.totalWeight = safeSubtract(this.totalWeight, weight, eps);
    this.bucketWeight[b] = safeSubtract(this.bucketWeight[b] as number, weight, eps);
    this.updateMinAndMaxBucket();
  }

  /** Adds another histogram with the same options into this one. */
  merge(other: Histogram): void {
    if (other.options !== this.options) throw new Error("can't merge histograms with different options");
    const mine = this.bucketWeight;
    const theirs = other.bucketWeight;
    for (let b = other.minBucket; b <= other.maxBucket; b++) mine[b] = (mine[b] as number) + (theirs[b] as number);
    this.totalWeight += other.totalWeight;
    if (other.minBucket < this.minBucket) this.minBucket = other.minBucket;
    if (other.maxBucket > this.maxBucket) this.maxBucket = other.maxBucket;
  }

  percentile(p: number): number {
    if (this.isEmpty()) return 0;
    const w = this.bucketWeight;
    const threshold = p * this.totalWeight;
    let partial = 0;
    let b = this.minBucket;
    for (; b < this.maxBucket; b++) {
      partial += w[b] as number;
      if (partial >= threshold) break;
    }
    const o = this.options;
    return b < o.numBuckets - 1 ? o.getBucketStart(b + 1) : o.getBucketStart(b);
  }

  isEmpty(): boolean {
    return (this.bucketWeight[this.minBucket] as number) < this.options.epsilon;
  }

  /** Upstream's test-only Equals: same bounds and every weight within 1e-15. */
  equals(other: Histogram): boolean {
    if (other.options !== this.options || other.minBucket !== this.minBucket || other.maxBucket !== this.maxBucket) {
      return false;
    }
    for (let b = this.minBucket; b <= this.maxBucket; b++) {
      const d = (this.bucketWeight[b] as number) - (other.bucketWeight[b] as number);
      if (d > 1e-15 || d < -1e-15) return false;
    }
    return true;
  }

  protected scale(factor: number): void {
    if (factor < 0) throw new Error('scale factor must be non-negative');
    const w = this.bucketWeight;
    for (let b = this.minBucket; b <= this.maxBucket; b++) w[b] = (w[b] as number) * factor;
    this.totalWeight *= factor;
    this.updateMinAndMaxBucket();
  }

  protected updateMinAndMaxBucket(): void {
    const eps = this.options.epsilon;
    const last = this.options.numBuckets - 1;
    const w = this.bucketWeight;
    while ((w[this.minBucket] as number) < eps && this.minBucket < last) this.minBucket++;
    while ((w[this.maxBucket] as number) < eps && this.maxBucket > 0) this.maxBucket--;
  }

  saveToCheckpoint(): HistogramCheckpoint {
    const bucketWeights = new Map<number, number>();
    const w = this.bucketWeight;
    let maxWeight = 0;
    for (let b = this.minBucket; b <= this.maxBucket; b++) if ((w[b] as number) > maxWeight) maxWeight = w[b] as number;
    const ratio = MAX_CHECKPOINT_WEIGHT / maxWeight;
    for (let b = this.minBucket; b <= this.maxBucket; b++) {
      // uint32(round(x)): x <= 10000 here, so the conversion never wraps.
      const nw = roundHalfUp((w[b] as number) * ratio);
      if (nw > 0) bucketWeights.set(b, nw);
    }
    return { totalWeight: this.totalWeight, bucketWeights };
  }

  /** Adds a checkpoint's content; validates everything before changing anything. */
  loadFromCheckpoint(cp: HistogramCheckpoint | null | undefined): void {
    if (!cp) throw new Error('cannot load from empty checkpoint');
    if (cp.totalWeight < 0) throw new Error(`cannot load checkpoint with negative weight ${cp.totalWeight}`);
    const n = this.options.numBuckets;
    let sum = 0;
    for (const [bucket, weight] of cp.bucketWeights) {
      sum += weight;
      if (bucket >= n) throw new Error(`checkpoint has bucket ${bucket} that is exceeding histogram buckets ${n}`);
      if (bucket < 0) throw new Error(`checkpoint has a negative bucket ${bucket}`);
    }
    if (sum === 0) return;
    const ratio = cp.totalWeight / sum;
    const w = this.bucketWeight;
    for (const [bucket, weight] of cp.bucketWeights) {
      if (bucket < this.minBucket) this.minBucket = bucket;
      if (bucket > this.maxBucket) this.maxBucket = bucket;
      w[bucket] = (w[bucket] as number) + weight * ratio;
    }
    this.totalWeight += cp.totalWeight;
    this.updateMinAndMaxBucket();
  }
}

/** An array of n zeros stored unboxed as doubles (filled with a fraction first to fix the elements kind). */
function zeroDoubles(n: number): number[] {
  return new Array<number>(n).fill(0.5).fill(0);
}

function safeSubtract(value: number, sub: number, epsilon: number): number {
  const v = value - sub;
  return v < epsilon ? 0 : v;
}

/** Upstream's maxDecayExponent: past this many half-lives the reference timestamp is moved forward. */
const MAX_DECAY_EXPONENT = 100;

/**
 * A histogram whose sample weights are multiplied by 2^((t - reference) / halfLife), so older samples
 * count exponentially less; the reference jumps forward (rescaling by an exact power of two) when samples
 * get too far ahead of it. The reference starts at Go's zero time, so the first sample always shifts it.
 */
export class DecayingHistogram extends Histogram {
  referenceTimestamp: Instant = GO_ZERO_TIME;
  private readonly halfLifeNs: number;
  private readonly maxDecayMicros: number;

  constructor(
    options: HistogramOptions,
    readonly halfLife: Micros,
  ) {
    super(options);
    if (!(halfLife > 0) || !Number.isInteger(halfLife)) throw new Error('half-life must be a positive whole number of microseconds');
    this.halfLifeNs = halfLife * 1000;
    this.maxDecayMicros = halfLife * MAX_DECAY_EXPONENT;
  }

  override addSample(value: number, weight: number, time: Instant): void {
    this.addWeighted(value, weight * this.decayFactor(time));
  }

  override subtractSample(value: number, weight: number, time: Instant): void {
    this.subtractWeighted(value, weight * this.decayFactor(time));
  }

  /** Merges `other` into this; like upstream, the one with the older reference (possibly `other`) is shifted. */
  override merge(other: Histogram): void {
    if (!(other instanceof DecayingHistogram) || other.halfLife !== this.halfLife) {
      throw new Error("can't merge decaying histograms with different half life periods");
    }
    if (this.referenceTimestamp < other.referenceTimestamp) this.shiftReferenceTimestamp(other.referenceTimestamp);
    else if (other.referenceTimestamp < this.referenceTimestamp) other.shiftReferenceTimestamp(this.referenceTimestamp);
    super.merge(other);
  }

  override equals(other: Histogram): boolean {
    return (
      other instanceof DecayingHistogram &&
      other.halfLife === this.halfLife &&
      other.referenceTimestamp === this.referenceTimestamp &&
      super.equals(other)
    );
  }

  override saveToCheckpoint(): HistogramCheckpoint {
    const cp = super.saveToCheckpoint();
    cp.referenceTimestamp = this.referenceTimestamp;
    return cp;
  }

  override loadFromCheckpoint(cp: HistogramCheckpoint | null | undefined): void {
    super.loadFromCheckpoint(cp);
    this.referenceTimestamp = cp?.referenceTimestamp ?? GO_ZERO_TIME;
  }

  private shiftReferenceTimestamp(newRef: Instant): void {
    const rounded = roundTime(newRef, this.halfLife);
    const exponent = roundHalfUp(subNanosFloat(this.referenceTimestamp, rounded) / this.halfLifeNs);
    this.scale(ldexp(1, exponent));
    this.referenceTimestamp = rounded;
  }

  private decayFactor(t: Instant): number {
    if (t > this.referenceTimestamp + this.maxDecayMicros) this.shiftReferenceTimestamp(t);
    return goExp2(subNanosFloat(t, this.referenceTimestamp) / this.halfLifeNs);
  }
}
