// Flags of the upstream recommender model that both `serve` (the VPA recommender loop) and the offline
// `recommend` command take, declared once so their names, defaults and bounds cannot drift apart
// (upstream recommender/config/config.go and logic/recommender.go).
import type { FlagSpec } from '../config/flags.ts';
import { DEFAULT_RECOMMENDATION_CONFIG } from './logic/index.ts';

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
