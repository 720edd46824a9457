// Crane's percentile algorithm (pkg/prediction/percentile, docs/crane-behaviour.md §E): every history sample goes into one
// histogram with weight max(minSampleWeight, value); the forecast is the constant
// percentile(p) * (1 + margin) / targetUtilization over the whole horizon.
import { Histogram } from '../../histogram/histogram.ts';
import { DEFAULT_HISTOGRAM, histogramOptionsOf, type HistogramConfig } from './histogram-config.ts';

export interface PercentileConfig {
  percentile: number;
  marginFraction: number;
  targetUtilization: number;
  minSampleWeight: number;
  histogram: HistogramConfig;
}

/** Crane's internal default (docs/crane-behaviour.md §E.1). */
export const DEFAULT_PERCENTILE_CONFIG: PercentileConfig = {
  percentile: 0.99,
  marginFraction: 0,
  targetUtilization: 1.0,
  minSampleWeight: 1e-5,
  histogram: DEFAULT_HISTOGRAM,
};

export const DEFAULT_PERCENTILE_HISTORY_SECONDS = 7 * 86_400;

export function percentileEstimate(values: ArrayLike<number>, config: PercentileConfig = DEFAULT_PERCENTILE_CONFIG): number {
  const h = new Histogram(histogramOptionsOf(config.histogram));
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (!Number.isFinite(v)) continue;
    h.addSample(v, Math.max(config.minSampleWeight, v));
  }
  return (h.percentile(config.percentile) * (1 + config.marginFraction)) / config.targetUtilization;
}
