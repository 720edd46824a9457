// Resource estimators (upstream recommender/logic/estimator.go). Each turns an aggregate's history into
// one amount; they wrap one another: percentile -> margin -> confidence multiplier -> pod minimum.
import type { AggregateContainerState } from '../model/aggregate-container-state.ts';
import { goPow } from '../../gomath/go-math.ts';
import { durationMinutes, subNanosFloat, type Micros } from '../../gomath/go-time.ts';
import {
  cpuAmountFromCores,
  memoryAmountFromBytes,
  resourceAmountMax,
  scaleResource,
  type ResourceAmount,
} from '../model/resource-amount.ts';

/** Estimates one resource (CPU millicores or memory bytes) from an aggregate. */
export type Estimator = (s: AggregateContainerState) => ResourceAmount;

/** CPU: the given percentile of the CPU-usage histogram, truncated to millicores. */
export function percentileCPUEstimator(percentile: number): Estimator {
  return (s) => cpuAmountFromCores(s.aggregateCPUUsage.percentile(percentile));
}

/** Memory: the given percentile of the per-interval memory peaks, truncated to bytes. */
export function percentileMemoryEstimator(percentile: number): Estimator {
  return (s) => memoryAmountFromBytes(s.aggregateMemoryPeaks.percentile(percentile));
}

/** base + trunc(base × marginFraction) (not trunc(base × (1 + margin))). */
export function withMargin(marginFraction: number, base: Estimator): Estimator {
  return (s) => {
    const b = base(s);
    return b + scaleResource(b, marginFraction);
  };
}

/**
 * How much history there is, in units of `confidenceInterval` (a day by default): the smaller of the
 * span between the first and last CPU sample and the sample count at one sample per minute.
 */
export function getConfidence(s: AggregateContainerState, confidenceInterval: Micros): number {
  const lifespan = subNanosFloat(s.lastSampleStart, s.firstSampleStart) / (confidenceInterval * 1000);
  const samples = s.totalSamplesCount / durationMinutes(confidenceInterval);
  return Math.min(lifespan, samples);
}

/** base × (1 + multiplier/confidence)^exponent: widens bounds while history is short. */
export function withConfidenceMultiplier(multiplier: number, exponent: number, base: Estimator, confidenceInterval: Micros): Estimator {
  return (s) => {
    const confidence = getConfidence(s, confidenceInterval);
    return scaleResource(base(s), goPow(1 + multiplier / confidence, exponent));
  };
}

/** max(base, minimum). */
export function withMinResource(minimum: ResourceAmount, base: Estimator): Estimator {
  return (s) => resourceAmountMax(base(s), minimum);
}
