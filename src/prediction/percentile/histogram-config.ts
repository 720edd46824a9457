// The histogram an algorithm block describes (docs/crane-behaviour.md §E.1) and the one histogram
// implementation that realises it. Crane's percentile predictor borrows the VPA recommender's histogram
// (k8s.io/autoscaler vertical-pod-autoscaler pkg/recommender/util), so it uses ours too (src/histogram,
// the same code the VPA recommender runs): linear or exponential buckets, Percentile returns the end of the
// bucket where the cumulative weight reaches p, bucket maths with Go's Log and Pow.
import { ExponentialHistogramOptions, LinearHistogramOptions, type HistogramOptions } from '../../histogram/options.ts';

/** A histogram layout as configuration (plain data, comparable and serialisable). */
export type HistogramConfig =
  | { kind: 'linear'; maxValue: number; bucketSize: number; epsilon: number }
  | { kind: 'exponential'; maxValue: number; firstBucketSize: number; ratio: number; epsilon: number };

/** Crane's internal default: linear 0.1 buckets up to 100 (docs/crane-behaviour.md §E.1). */
export const DEFAULT_HISTOGRAM: HistogramConfig = { kind: 'linear', maxValue: 100, bucketSize: 0.1, epsilon: 1e-10 };

/** The bucket layout for a configuration (throws, like upstream's constructors, on non-positive sizes). */
export function histogramOptionsOf(c: HistogramConfig): HistogramOptions {
  return c.kind === 'linear'
    ? new LinearHistogramOptions(c.maxValue, c.bucketSize, c.epsilon)
    : new ExponentialHistogramOptions(c.maxValue, c.firstBucketSize, c.ratio, c.epsilon);
}
