// Usage history of all containers sharing one aggregation key (upstream
// recommender/model/aggregate_container_state.go): a decaying CPU-usage histogram (one sample per CPU
// measurement, weight 0.1), a decaying histogram of per-interval memory peaks, and the sample counters
// that drive the confidence of a recommendation.
import { DecayingHistogram, type HistogramCheckpoint } from '../../histogram/histogram.ts';
import { AggregationsConfig, MIN_SAMPLE_WEIGHT, SUPPORTED_CHECKPOINT_VERSION, defaultAggregationsConfig } from './aggregations-config.ts';
import { GO_ZERO_TIME, MICROS_PER_SECOND, isZeroTime, type Instant, type Micros } from '../../gomath/go-time.ts';
import { bytesFromMemoryAmount, coresFromCPUAmount, type ResourceAmount, type ResourceName } from './resource-amount.ts';
import type { ContainerResourcePolicy, ContainerScalingMode, UpdateMode } from './vpa-types.ts';
import { parseQuantity } from '../../quantity/index.ts';

export const DEFAULT_CONTROLLED_RESOURCES: readonly ResourceName[] = ['cpu', 'memory'];

/** The status of a VerticalPodAutoscalerCheckpoint, with instants as microseconds. */
export interface AggregateCheckpoint {
  lastUpdateTime: Instant;
  version: string;
  firstSampleStart: Instant;
  lastSampleStart: Instant;
  totalSamplesCount: number;
  cpuHistogram: HistogramCheckpoint;
  memoryHistogram: HistogramCheckpoint;
}

/** Feature gates that change model behaviour (upstream features.PerVPAConfig, alpha, off by default). */
export interface ModelFeatureGates {
  perVPAConfig?: boolean;
}

export class AggregateContainerState {
  readonly aggregateCPUUsage: DecayingHistogram;
  readonly aggregateMemoryPeaks: DecayingHistogram;
  firstSampleStart: Instant = GO_ZERO_TIME;
  lastSampleStart: Instant = GO_ZERO_TIME;
  totalSamplesCount = 0;
  /** Upstream reads the wall clock here; injected instead (the recommender passes its `now`). */
  creationTime: Instant;
  /** The previous uncapped target (upstream keeps it for quality metrics). */
  lastRecommendation: Partial<Record<ResourceName, string>> | undefined;
  isUnderVPA = false;
  updateMode: UpdateMode | undefined;
  scalingMode: ContainerScalingMode | undefined;
  controlledResources: readonly ResourceName[] | undefined;
  oomBumpUpRatio: number;
  oomMinBumpUp: number;
  memoryAggregationInterval: Micros;
  memoryAggregationIntervalCount: number;
  /** Set by the cluster when garbage collection drops this state, so container links re-resolve. */
  removed = false;

  constructor(
    readonly config: AggregationsConfig = defaultAggregationsConfig(),
    creationTime: Instant = GO_ZERO_TIME,
  ) {
    this.aggregateCPUUsage = new DecayingHistogram(config.cpuHistogramOptions, config.cpuHistogramDecayHalfLife);
    this.aggregateMemoryPeaks = new DecayingHistogram(config.memoryHistogramOptions, config.memoryHistogramDecayHalfLife);
    this.creationTime = creationTime;
    this.oomBumpUpRatio = config.oomBumpUpRatio;
    this.oomMinBumpUp = config.oomMinBumpUp;
    this.memoryAggregationInterval = config.memoryAggregationInterval;
    this.memoryAggregationIntervalCount = config.memoryAggregationIntervalCount;
  }

  /** A CPU sample in millicores at `time`. Only CPU samples count towards the confidence. */
  addCPUSample(millicores: ResourceAmount, time: Instant): void {
    this.aggregateCPUUsage.addSample(coresFromCPUAmount(millicores), MIN_SAMPLE_WEIGHT, time);
    if (time > this.lastSampleStart) this.lastSampleStart = time;
    if (isZeroTime(this.firstSampleStart) || time < this.firstSampleStart) this.firstSampleStart = time;
    this.totalSamplesCount++;
  }

  /** A memory peak (bytes) of the window ending at `windowEnd`. */
  addMemoryPeak(bytes: ResourceAmount, windowEnd: Instant): void {
    this.aggregateMemoryPeaks.addSample(bytesFromMemoryAmount(bytes), 1.0, windowEnd);
  }

  subtractMemoryPeak(bytes: ResourceAmount, windowEnd: Instant): void {
    this.aggregateMemoryPeaks.subtractSample(bytesFromMemoryAmount(bytes), 1.0, windowEnd);
  }

  /** Merges `other` into this (may shift `other`'s histogram references, like upstream). */
  mergeContainerState(other: AggregateContainerState): void {
    this.aggregateCPUUsage.merge(other.aggregateCPUUsage);
    this.aggregateMemoryPeaks.merge(other.aggregateMemoryPeaks);
    if (isZeroTime(this.firstSampleStart) || (!isZeroTime(other.firstSampleStart) && other.firstSampleStart < this.firstSampleStart)) {
      this.firstSampleStart = other.firstSampleStart;
    }
    if (other.lastSampleStart > this.lastSampleStart) this.lastSampleStart = other.lastSampleStart;
    this.totalSamplesCount += other.totalSamplesCount;
  }

  getControlledResources(): readonly ResourceName[] {
    return this.controlledResources ?? DEFAULT_CONTROLLED_RESOURCES;
  }

  needsRecommendation(): boolean {
    return this.isUnderVPA && this.scalingMode !== undefined && this.scalingMode !== 'Off';
  }

  markNotAutoscaled(): void {
    this.isUnderVPA = false;
    this.lastRecommendation = undefined;
    this.updateMode = undefined;
    this.scalingMode = undefined;
    this.controlledResources = undefined;
  }

  /** Applies a container policy: scaling mode, controlled resources, and (PerVPAConfig) the alpha overrides. */
  updateFromPolicy(policy: ContainerResourcePolicy | null | undefined, gates: ModelFeatureGates = {}): void {
    this.scalingMode = policy?.mode ?? 'Auto';
    this.controlledResources = DEFAULT_CONTROLLED_RESOURCES;
    if (policy?.controlledResources) {
      this.controlledResources = policy.controlledResources.filter((r): r is ResourceName => r === 'cpu' || r === 'memory');
    }
    if (!policy || !gates.perVPAConfig) return;
    if (policy.oomBumpUpRatio !== undefined) this.oomBumpUpRatio = parseQuantity(policy.oomBumpUpRatio).milliValue() / 1000.0;
    if (policy.oomMinBumpUp !== undefined) this.oomMinBumpUp = parseQuantity(policy.oomMinBumpUp).milliValue() / 1000.0;
    if (policy.memoryAggregationIntervalSeconds !== undefined) {
      this.memoryAggregationInterval = MICROS_PER_SECOND * policy.memoryAggregationIntervalSeconds;
    }
    if (policy.memoryAggregationIntervalCount !== undefined) this.memoryAggregationIntervalCount = policy.memoryAggregationIntervalCount;
  }

  saveToCheckpoint(now: Instant): AggregateCheckpoint {
    return {
      lastUpdateTime: now,
      version: SUPPORTED_CHECKPOINT_VERSION,
      firstSampleStart: this.firstSampleStart,
      lastSampleStart: this.lastSampleStart,
      totalSamplesCount: this.totalSamplesCount,
      memoryHistogram: this.aggregateMemoryPeaks.saveToCheckpoint(),
      cpuHistogram: this.aggregateCPUUsage.saveToCheckpoint(),
    };
  }

  loadFromCheckpoint(cp: AggregateCheckpoint): void {
    if (cp.version !== SUPPORTED_CHECKPOINT_VERSION) throw new Error(`unsupported checkpoint version ${cp.version}`);
    this.totalSamplesCount = cp.totalSamplesCount;
    this.firstSampleStart = cp.firstSampleStart;
    this.lastSampleStart = cp.lastSampleStart;
    this.aggregateMemoryPeaks.loadFromCheckpoint(cp.memoryHistogram);
    this.aggregateCPUUsage.loadFromCheckpoint(cp.cpuHistogram);
  }

  memoryAggregationWindowLength(): Micros {
    return this.memoryAggregationInterval * this.memoryAggregationIntervalCount;
  }

  isEmpty(): boolean {
    return this.totalSamplesCount === 0;
  }

  /** Expired when no CPU sample for a whole memory window (interval × count), or never sampled since creation. */
  isExpired(now: Instant): boolean {
    const since = this.isEmpty() ? this.creationTime : this.lastSampleStart;
    return now - since >= this.memoryAggregationWindowLength();
  }
}
