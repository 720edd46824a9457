// Flags of the upstream recommender model that both `serve` (the VPA recommender loop) and the offline
// `recommend` command take, declared once and turned into the model's settings once, so their names,
// defaults, bounds and meaning cannot drift apart (upstream recommender/config/config.go and
// logic/recommender.go).
import { UsageError, type FlagSpec, type FlagsOf } from '../config/flags.ts';
import { quantityFlag } from '../config/quantity-flag.ts';
import { DEFAULT_RECOMMENDATION_CONFIG, type QuantityList, type RecommendationConfig } from './logic/index.ts';
import type { AggregationsConfigInput } from './model/index.ts';

const d = DEFAULT_RECOMMENDATION_CONFIG;

export const VPA_MODEL_FLAGS = [
  { name: 'memory-aggregation-interval', type: 'duration', default: '24h', min: 1, help: 'length of one memory-peak window' },
  { name: 'memory-aggregation-interval-count', type: 'int', default: 8, min: 1, help: 'windows of memory history kept' },
  { name: 'oom-bump-up-ratio', type: 'float', default: 1.2, min: 0, help: 'memory bump-up ratio after an OOM' },
  { name: 'oom-min-bump-up-bytes', type: 'float', default: 104857600, min: 0, help: 'minimal memory bump-up in bytes after an OOM' },
  { name: 'recommendation-margin-fraction', type: 'float', default: d.safetyMarginFraction, min: 0, help: 'fraction of usage added as the safety margin' },
  { name: 'pod-recommendation-min-cpu-millicores', type: 'float', default: d.podMinCPUMillicores, min: 0, help: 'minimum CPU recommendation for a pod' },
  { name: 'pod-recommendation-min-memory-mb', type: 'float', default: d.podMinMemoryMb, min: 0, help: 'minimum memory recommendation for a pod' },
  { name: 'target-cpu-percentile', type: 'float', default: d.targetCPUPercentile, min: 0, max: 1, help: 'CPU usage percentile for the target' },
  { name: 'target-memory-percentile', type: 'float', default: d.targetMemoryPercentile, min: 0, max: 1, help: 'memory peak percentile for the target' },
  { name: 'container-recommendation-max-allowed-cpu', type: 'string', default: undefined, help: 'global maximum CPU per container (quantity)' },
  { name: 'container-recommendation-max-allowed-memory', type: 'string', default: undefined, help: 'global maximum memory per container (quantity)' },
  { name: 'cpu-integer-post-processor-enabled', type: 'bool', default: false, help: 'honour vpa-post-processor.kubernetes.io/{container}_integerCPU annotations' },
] as const satisfies readonly FlagSpec[];

/** A duration flag (milliseconds) in the model's unit, microseconds; refused unless a positive safe integer. */
export function microsFlag<F>(f: F, name: keyof F & string): number {
  const ms = f[name] as number;
  const us = Math.round(ms * 1000);
  if (!Number.isSafeInteger(us) || us <= 0) throw new UsageError(`invalid value for --${name}: must be a positive duration`);
  return us;
}

/** What the model flags set: parts of the aggregations and recommendation configs, the global caps. */
export interface ModelSettings {
  aggregations: Pick<AggregationsConfigInput, 'memoryAggregationInterval' | 'memoryAggregationIntervalCount' | 'oomBumpUpRatio' | 'oomMinBumpUp'>;
  recommendation: Pick<RecommendationConfig, 'safetyMarginFraction' | 'podMinCPUMillicores' | 'podMinMemoryMb' | 'targetCPUPercentile' | 'targetMemoryPercentile'>;
  /** Per-resource maximum for every container; empty when neither cap is set. */
  globalMaxAllowed: QuantityList;
  cpuIntegerPostProcessorEnabled: boolean;
}

/** Converts the model flags; throws UsageError on a bad value. */
export function modelSettingsFromFlags(f: FlagsOf<typeof VPA_MODEL_FLAGS>): ModelSettings {
  const globalMaxAllowed: QuantityList = new Map();
  const maxCpu = quantityFlag(f, 'container-recommendation-max-allowed-cpu');
  const maxMem = quantityFlag(f, 'container-recommendation-max-allowed-memory');
  if (maxCpu) globalMaxAllowed.set('cpu', maxCpu);
  if (maxMem) globalMaxAllowed.set('memory', maxMem);
  return {
    aggregations: {
      memoryAggregationInterval: microsFlag(f, 'memory-aggregation-interval'),
      memoryAggregationIntervalCount: f['memory-aggregation-interval-count'],
      oomBumpUpRatio: f['oom-bump-up-ratio'],
      oomMinBumpUp: f['oom-min-bump-up-bytes'],
    },
    recommendation: {
      safetyMarginFraction: f['recommendation-margin-fraction'],
      podMinCPUMillicores: f['pod-recommendation-min-cpu-millicores'],
      podMinMemoryMb: f['pod-recommendation-min-memory-mb'],
      targetCPUPercentile: f['target-cpu-percentile'],
      targetMemoryPercentile: f['target-memory-percentile'],
    },
    globalMaxAllowed,
    cpuIntegerPostProcessorEnabled: f['cpu-integer-post-processor-enabled'],
  };
}
