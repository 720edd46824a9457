// Runs an oracle scenario through our core, the same way `ehpa-adapter recommend` does.
import { AggregationsConfig, MICROS_PER_SECOND, parseInstant, type VerticalPodAutoscaler, type VerticalPodAutoscalerCheckpointJSON } from '../../../src/vpa/model/index.ts';
import { recommendationToJSON, type QuantityList } from '../../../src/vpa/logic/index.ts';
import { Quantity } from '../../../src/quantity/index.ts';
import { parseUsageEvent } from '../../../src/vpa/usage-events.ts';
import { replay } from '../../../src/vpa/replay.ts';
import type { OracleScenario } from './scenarios.ts';

export interface PhaseOutput {
  recommendation: unknown;
  checkpoints: VerticalPodAutoscalerCheckpointJSON[];
  rejected: number;
}

export function runScenarioTs(s: OracleScenario): PhaseOutput[] {
  const c = s.config;
  const aggregations = new AggregationsConfig({
    memoryAggregationInterval: c.memoryAggregationIntervalSeconds * MICROS_PER_SECOND,
    memoryAggregationIntervalCount: c.memoryAggregationIntervalCount,
    memoryHistogramDecayHalfLife: c.memoryHistogramDecayHalfLifeSeconds * MICROS_PER_SECOND,
    cpuHistogramDecayHalfLife: c.cpuHistogramDecayHalfLifeSeconds * MICROS_PER_SECOND,
    oomBumpUpRatio: c.oomBumpUpRatio,
    oomMinBumpUp: c.oomMinBumpUpBytes,
  });
  const globalMaxAllowed: QuantityList = new Map();
  if (c.maxAllowedCpu) globalMaxAllowed.set('cpu', Quantity.parse(c.maxAllowedCpu));
  if (c.maxAllowedMemory) globalMaxAllowed.set('memory', Quantity.parse(c.maxAllowedMemory));
  const out: PhaseOutput[] = [];
  let previous: VerticalPodAutoscalerCheckpointJSON[] = [];
  for (const ph of s.phases) {
    const events = ph.events.map((e) => parseUsageEvent(e));
    const res = replay(
      events,
      parseInstant(ph.now),
      {
        aggregations,
        recommendation: {
          safetyMarginFraction: c.marginFraction,
          podMinCPUMillicores: c.podMinCpuMillicores,
          podMinMemoryMb: c.podMinMemoryMb,
          targetCPUPercentile: c.targetCpuPercentile,
          lowerBoundCPUPercentile: c.lowerBoundCpuPercentile,
          upperBoundCPUPercentile: c.upperBoundCpuPercentile,
          confidenceIntervalCPU: c.confidenceIntervalCpuSeconds * MICROS_PER_SECOND,
          targetMemoryPercentile: c.targetMemoryPercentile,
          lowerBoundMemoryPercentile: c.lowerBoundMemoryPercentile,
          upperBoundMemoryPercentile: c.upperBoundMemoryPercentile,
          confidenceIntervalMemory: c.confidenceIntervalMemorySeconds * MICROS_PER_SECOND,
        },
        format: { humanizeMemory: c.humanizeMemory, roundCPUMillicores: c.roundCpuMillicores, roundMemoryBytes: c.roundMemoryBytes },
        vpa: (s.vpa ?? undefined) as VerticalPodAutoscaler | undefined,
        cpuIntegerPostProcessorEnabled: c.cpuIntegerPostProcessorEnabled,
        globalMaxAllowed,
      },
      previous,
    );
    // Through JSON, as the Go side stores and reloads checkpoints.
    previous = JSON.parse(JSON.stringify(res.checkpoints)) as VerticalPodAutoscalerCheckpointJSON[];
    out.push({ recommendation: recommendationToJSON(res.recommendation), checkpoints: previous, rejected: res.rejected });
  }
  return out;
}
