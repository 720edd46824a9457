// The histogram an algorithm block describes (docs/crane-behaviour.md §E.1) and the one histogram
// implementation that realises it. Crane's percentile predictor borrows the VPA recommender's histogram
// (k8s.io/autoscaler vertical-pod-autoscaler pkg/recommender/util), so it uses ours too (src/histogram,
// the same code the VPA recommender runs): linear or exponential buckets, Percentile returns the end of the
// bucket where the cumulative weight reaches p, bucket maths with Go's Log and Pow.
import { BOUNDS } from '../../api/bounds.ts';
import { goLog } from '../../gomath/go-math.ts';
import { ExponentialHistogramOptions, LinearHistogramOptions, type HistogramOptions } from '../../histogram/options.ts';

/** A histogram layout as configuration (plain data, comparable and serialisable). */
export type HistogramConfig =
  | { kind: 'linear'; maxValue: number; bucketSize: number; epsilon: number }
  | { kind: 'exponential'; maxValue: number; firstBucketSize: number; ratio: number; epsilon: number };

/** Crane's internal default: linear 0.1 buckets up to 100 (docs/crane-behaviour.md §E.1). */
export const DEFAULT_HISTOGRAM: HistogramConfig = { kind: 'linear', maxValue: 100, bucketSize: 0.1, epsilon: 1e-10 };

/**
 * How many buckets the layout allocates, by the same formulas as the options' constructors but without
 * allocating anything: a tenant writes these numbers, so the count is checked before any array exists.
 * Infinity when the formula has no finite answer (a NaN or infinite size, a ratio of 1 + 1e-17).
 */
export function histogramBucketCount(c: HistogramConfig): number {
  const n =
    c.kind === 'linear'
      ? Math.ceil(c.maxValue / c.bucketSize) + 1
      : Math.ceil(goLog((c.maxValue * (c.ratio - 1)) / c.firstBucketSize + 1) / goLog(c.ratio)) + 1;
  return Number.isFinite(n) ? n : Infinity;
}

/**
 * The bucket layout for a configuration (throws, like upstream's constructors, on non-positive sizes, and
 * on more than BOUNDS.histogramBuckets buckets: spec-bounds.ts refuses such a block first, with the fields
 * named; this is the last line before the allocation).
 */
export function histogramOptionsOf(c: HistogramConfig): HistogramOptions {
  const buckets = histogramBucketCount(c);
  if (!(buckets <= BOUNDS.histogramBuckets)) throw new RangeError(`the histogram would have ${buckets} buckets, more than ${BOUNDS.histogramBuckets}`);
  return c.kind === 'linear'
    ? new LinearHistogramOptions(c.maxValue, c.bucketSize, c.epsilon)
    : new ExponentialHistogramOptions(c.maxValue, c.firstBucketSize, c.ratio, c.epsilon);
}
