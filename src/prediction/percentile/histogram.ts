// The non-decaying weighted histogram Crane's percentile predictor borrows from the VPA recommender
// (k8s.io/autoscaler vertical-pod-autoscaler pkg/recommender/util, docs/crane-behaviour.md §E.2): linear or exponential
// buckets, Percentile returns the end of the bucket where the cumulative weight reaches p. Exponential bucket
// starts use Go's Pow arithmetic so estimates equal Crane's to the bit.
import { goPow } from '../../gomath/go-math.ts';

export type HistogramOptions =
  | { kind: 'linear'; maxValue: number; bucketSize: number; epsilon: number }
  | { kind: 'exponential'; maxValue: number; firstBucketSize: number; ratio: number; epsilon: number };

export const DEFAULT_HISTOGRAM: HistogramOptions = { kind: 'linear', maxValue: 100, bucketSize: 0.1, epsilon: 1e-10 };

function numBuckets(o: HistogramOptions): number {
  if (o.kind === 'linear') return Math.ceil(o.maxValue / o.bucketSize) + 1;
  return Math.trunc(Math.ceil(Math.log((o.maxValue * (o.ratio - 1)) / o.firstBucketSize + 1) / Math.log(o.ratio))) + 1;
}

export function bucketStart(o: HistogramOptions, bucket: number): number {
  if (o.kind === 'linear') return bucket * o.bucketSize;
  if (bucket === 0) return 0;
  return (o.firstBucketSize * (goPow(o.ratio, bucket) - 1)) / (o.ratio - 1);
}

function findBucket(o: HistogramOptions, n: number, value: number): number {
  let b: number;
  if (o.kind === 'linear') b = Math.trunc(value / o.bucketSize);
  else if (value < o.firstBucketSize) b = 0;
  else b = Math.trunc(Math.log((value * (o.ratio - 1)) / o.firstBucketSize + 1) / Math.log(o.ratio));
  if (b < 0) return 0;
  return b >= n ? n - 1 : b;
}

export class WeightedHistogram {
  private readonly weights: Float64Array;
  private total = 0;
  private minBucket: number;
  private maxBucket = 0;

  constructor(readonly options: HistogramOptions = DEFAULT_HISTOGRAM) {
    this.weights = new Float64Array(numBuckets(options));
    this.minBucket = this.weights.length - 1;
  }

  addSample(value: number, weight: number): void {
    if (!(weight >= 0)) throw new RangeError('sample weight must be non-negative');
    const b = findBucket(this.options, this.weights.length, value);
    this.weights[b] = (this.weights[b] as number) + weight;
    this.total += weight;
    if (b < this.minBucket && (this.weights[b] as number) >= this.options.epsilon) this.minBucket = b;
    if (b > this.maxBucket && (this.weights[b] as number) >= this.options.epsilon) this.maxBucket = b;
  }

  isEmpty(): boolean {
    return (this.weights[this.minBucket] as number) < this.options.epsilon;
  }

  percentile(p: number): number {
    if (this.isEmpty()) return 0;
    const threshold = p * this.total;
    let sum = 0;
    let bucket = this.minBucket;
    for (; bucket < this.maxBucket; bucket++) {
      sum += this.weights[bucket] as number;
      if (sum >= threshold) break;
    }
    return bucket < this.weights.length - 1 ? bucketStart(this.options, bucket + 1) : bucketStart(this.options, bucket);
  }
}
