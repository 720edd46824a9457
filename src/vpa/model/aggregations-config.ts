// Histogram layouts and aggregation settings shared by every container state (upstream
// recommender/model/aggregations_config.go). Defaults equal upstream's flags.
import { ExponentialHistogramOptions, type HistogramOptions } from '../../histogram/options.ts';
import { MICROS_PER_HOUR, type Micros } from '../../gomath/go-time.ts';

/** Weight of one CPU sample (upstream minSampleWeight). */
export const MIN_SAMPLE_WEIGHT = 0.1;
/** 0.001 * minSampleWeight, a Go untyped constant: exactly the double nearest 1e-4 (not 0.001*0.1). */
export const HISTOGRAM_EPSILON = 1e-4;
export const DEFAULT_HISTOGRAM_BUCKET_SIZE_GROWTH = 0.05;
export const DEFAULT_MEMORY_AGGREGATION_INTERVAL: Micros = 24 * MICROS_PER_HOUR;
export const DEFAULT_MEMORY_AGGREGATION_INTERVAL_COUNT = 8;
export const DEFAULT_MEMORY_HISTOGRAM_DECAY_HALF_LIFE: Micros = 24 * MICROS_PER_HOUR;
export const DEFAULT_CPU_HISTOGRAM_DECAY_HALF_LIFE: Micros = 24 * MICROS_PER_HOUR;
export const DEFAULT_OOM_BUMP_UP_RATIO = 1.2;
export const DEFAULT_OOM_MIN_BUMP_UP = 104857600; // 100 * 1024 * 1024 bytes
/** Checkpoint format version; any change to the histogram options requires bumping it upstream. */
export const SUPPORTED_CHECKPOINT_VERSION = 'v3';

export interface AggregationsConfigInput {
  memoryAggregationInterval?: Micros;
  memoryAggregationIntervalCount?: number;
  memoryHistogramDecayHalfLife?: Micros;
  cpuHistogramDecayHalfLife?: Micros;
  oomBumpUpRatio?: number;
  oomMinBumpUp?: number;
  histogramBucketSizeGrowth?: number;
}

export class AggregationsConfig {
  readonly memoryAggregationInterval: Micros;
  readonly memoryAggregationIntervalCount: number;
  readonly memoryHistogramDecayHalfLife: Micros;
  readonly cpuHistogramDecayHalfLife: Micros;
  readonly oomBumpUpRatio: number;
  readonly oomMinBumpUp: number;
  readonly cpuHistogramOptions: HistogramOptions;
  readonly memoryHistogramOptions: HistogramOptions;

  constructor(input: AggregationsConfigInput = {}) {
    this.memoryAggregationInterval = input.memoryAggregationInterval ?? DEFAULT_MEMORY_AGGREGATION_INTERVAL;
    this.memoryAggregationIntervalCount = input.memoryAggregationIntervalCount ?? DEFAULT_MEMORY_AGGREGATION_INTERVAL_COUNT;
    this.memoryHistogramDecayHalfLife = input.memoryHistogramDecayHalfLife ?? DEFAULT_MEMORY_HISTOGRAM_DECAY_HALF_LIFE;
    this.cpuHistogramDecayHalfLife = input.cpuHistogramDecayHalfLife ?? DEFAULT_CPU_HISTOGRAM_DECAY_HALF_LIFE;
    this.oomBumpUpRatio = input.oomBumpUpRatio ?? DEFAULT_OOM_BUMP_UP_RATIO;
    this.oomMinBumpUp = input.oomMinBumpUp ?? DEFAULT_OOM_MIN_BUMP_UP;
    const ratio = 1 + (input.histogramBucketSizeGrowth ?? DEFAULT_HISTOGRAM_BUCKET_SIZE_GROWTH);
    this.cpuHistogramOptions = new ExponentialHistogramOptions(1000.0, 0.01, ratio, HISTOGRAM_EPSILON);
    this.memoryHistogramOptions = new ExponentialHistogramOptions(1e12, 1e7, ratio, HISTOGRAM_EPSILON);
  }

  /** Length of the memory history kept (interval × count); used for expiry. */
  memoryAggregationWindowLength(): Micros {
    return this.memoryAggregationInterval * this.memoryAggregationIntervalCount;
  }
}

let defaultConfig: AggregationsConfig | undefined;

/** Shared default configuration (histogram options are compared by identity when merging). */
export function defaultAggregationsConfig(): AggregationsConfig {
  defaultConfig ??= new AggregationsConfig();
  return defaultConfig;
}
