// From per-container aggregates to target / lower bound / upper bound per container (upstream
// recommender/logic/recommender.go), with defaults equal to upstream's recommender flags.
import type { AggregateContainerState } from '../model/aggregate-container-state.ts';
import { MICROS_PER_HOUR, type Micros } from '../../gomath/go-time.ts';
import { cpuAmountFromCores, memoryAmountFromBytes, scaleResource, type ResourceName, type Resources } from '../model/resource-amount.ts';
import {
  percentileCPUEstimator,
  percentileMemoryEstimator,
  withConfidenceMultiplier,
  withMargin,
  withMinResource,
  type Estimator,
} from './estimators.ts';

export interface RecommendationConfig {
  safetyMarginFraction: number;
  podMinCPUMillicores: number;
  podMinMemoryMb: number;
  targetCPUPercentile: number;
  lowerBoundCPUPercentile: number;
  upperBoundCPUPercentile: number;
  confidenceIntervalCPU: Micros;
  targetMemoryPercentile: number;
  lowerBoundMemoryPercentile: number;
  upperBoundMemoryPercentile: number;
  confidenceIntervalMemory: Micros;
}

/** Upstream's flag defaults (recommender/config/config.go). */
export const DEFAULT_RECOMMENDATION_CONFIG: Readonly<RecommendationConfig> = {
  safetyMarginFraction: 0.15,
  podMinCPUMillicores: 25,
  podMinMemoryMb: 250,
  targetCPUPercentile: 0.9,
  lowerBoundCPUPercentile: 0.5,
  upperBoundCPUPercentile: 0.95,
  confidenceIntervalCPU: 24 * MICROS_PER_HOUR,
  targetMemoryPercentile: 0.9,
  lowerBoundMemoryPercentile: 0.5,
  upperBoundMemoryPercentile: 0.95,
  confidenceIntervalMemory: 24 * MICROS_PER_HOUR,
};

export interface RecommendedContainerResourceAmounts {
  target: Resources;
  lowerBound: Resources;
  upperBound: Resources;
}

/** Container name -> recommendation. */
export type RecommendedPodResourceAmounts = Map<string, RecommendedContainerResourceAmounts>;

/** Keeps only the controlled resources, in the order they are listed. */
export function filterControlledResources(estimation: Resources, controlled: readonly ResourceName[]): Resources {
  const out: Resources = {};
  for (const r of controlled) {
    const v = estimation[r];
    if (v !== undefined) out[r] = v;
  }
  return out;
}

/** The six estimator chains, before the pod minimum is applied. */
export interface PodEstimators {
  targetCPU: Estimator;
  targetMemory: Estimator;
  lowerBoundCPU: Estimator;
  lowerBoundMemory: Estimator;
  upperBoundCPU: Estimator;
  upperBoundMemory: Estimator;
}

export class PodResourceRecommender {
  private readonly targetCPU: Estimator;
  private readonly targetMemory: Estimator;
  private readonly lowerBoundCPU: Estimator;
  private readonly lowerBoundMemory: Estimator;
  private readonly upperBoundCPU: Estimator;
  private readonly upperBoundMemory: Estimator;

  /** Upstream's CreatePodResourceRecommender chains, or the given estimators (the pod minimum still applies). */
  constructor(
    readonly config: RecommendationConfig = DEFAULT_RECOMMENDATION_CONFIG,
    estimators?: PodEstimators,
  ) {
    const c = config;
    if (estimators) {
      this.targetCPU = estimators.targetCPU;
      this.targetMemory = estimators.targetMemory;
      this.lowerBoundCPU = estimators.lowerBoundCPU;
      this.lowerBoundMemory = estimators.lowerBoundMemory;
      this.upperBoundCPU = estimators.upperBoundCPU;
      this.upperBoundMemory = estimators.upperBoundMemory;
      return;
    }
    const m = c.safetyMarginFraction;
    this.targetCPU = withMargin(m, percentileCPUEstimator(c.targetCPUPercentile));
    this.lowerBoundCPU = withConfidenceMultiplier(0.001, -2.0, withMargin(m, percentileCPUEstimator(c.lowerBoundCPUPercentile)), c.confidenceIntervalCPU);
    this.upperBoundCPU = withConfidenceMultiplier(1.0, 1.0, withMargin(m, percentileCPUEstimator(c.upperBoundCPUPercentile)), c.confidenceIntervalCPU);
    this.targetMemory = withMargin(m, percentileMemoryEstimator(c.targetMemoryPercentile));
    this.lowerBoundMemory = withConfidenceMultiplier(0.001, -2.0, withMargin(m, percentileMemoryEstimator(c.lowerBoundMemoryPercentile)), c.confidenceIntervalMemory);
    this.upperBoundMemory = withConfidenceMultiplier(1.0, 1.0, withMargin(m, percentileMemoryEstimator(c.upperBoundMemoryPercentile)), c.confidenceIntervalMemory);
  }

  /**
   * Recommends every container in the map; the pod minimum is split evenly across the map's containers
   * (those in the VPA's view, not the pod's container count).
   */
  getRecommendedPodResources(states: ReadonlyMap<string, AggregateContainerState>): RecommendedPodResourceAmounts {
    const out: RecommendedPodResourceAmounts = new Map();
    if (states.size === 0) return out;
    const fraction = 1.0 / states.size;
    const minCPU = scaleResource(cpuAmountFromCores(this.config.podMinCPUMillicores * 0.001), fraction);
    const minMemory = scaleResource(memoryAmountFromBytes(this.config.podMinMemoryMb * 1024 * 1024), fraction);
    const tc = withMinResource(minCPU, this.targetCPU);
    const tm = withMinResource(minMemory, this.targetMemory);
    const lc = withMinResource(minCPU, this.lowerBoundCPU);
    const lm = withMinResource(minMemory, this.lowerBoundMemory);
    const uc = withMinResource(minCPU, this.upperBoundCPU);
    const um = withMinResource(minMemory, this.upperBoundMemory);
    for (const [name, s] of states) {
      const controlled = s.getControlledResources();
      out.set(name, {
        target: filterControlledResources({ cpu: tc(s), memory: tm(s) }, controlled),
        lowerBound: filterControlledResources({ cpu: lc(s), memory: lm(s) }, controlled),
        upperBound: filterControlledResources({ cpu: uc(s), memory: um(s) }, controlled),
      });
    }
    return out;
  }
}
