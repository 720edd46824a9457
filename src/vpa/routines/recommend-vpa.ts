// One VPA's recommendation from the model (upstream routines/recommender.go UpdateVPAs: estimate, then
// the post-processors), optionally restricted to memory while an HPA owns CPU. Pure.
import { AggregationsConfig } from '../model/aggregations-config.ts';
import type { ModelFeatureGates } from '../model/aggregate-container-state.ts';
import { containerNameToAggregateStateMap, type VpaState } from '../model/cluster-state.ts';
import type { Instant } from '../../gomath/go-time.ts';
import { PodResourceRecommender } from '../logic/pod-recommender.ts';
import { applyVPAPolicy, integerCPUPostProcess } from '../logic/post-processors.ts';
import { mapToListOfRecommendedContainerResources, type ContainerRecommendation, type QuantityList, type RecommendationFormat } from '../logic/resource-list.ts';
import { withoutCpu } from './resource-split.ts';

export interface RecommenderSettings {
  aggregations: AggregationsConfig;
  gates: ModelFeatureGates;
  recommender: PodResourceRecommender;
  format: RecommendationFormat;
  cpuIntegerPostProcessorEnabled: boolean;
  globalMaxAllowed?: QuantityList;
}

export function recommendForVpa(vpa: VpaState, s: RecommenderSettings, now: Instant, memoryOnly: boolean): ContainerRecommendation[] {
  const states = containerNameToAggregateStateMap(vpa, s.aggregations, now, s.gates);
  // The per-name states are fresh merges made for this call, so narrowing them changes nothing else.
  if (memoryOnly) for (const st of states.values()) st.controlledResources = withoutCpu(st.getControlledResources());
  let recs = mapToListOfRecommendedContainerResources(s.recommender.getRecommendedPodResources(states), s.format);
  if (s.cpuIntegerPostProcessorEnabled) recs = integerCPUPostProcess(vpa.annotations, recs);
  return applyVPAPolicy(recs, vpa.resourcePolicy, s.globalMaxAllowed) ?? [];
}
