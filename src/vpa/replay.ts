// One offline recommender run, the core of `ehpa-adapter recommend`: start (optionally from checkpoints,
// like a restarted recommender), feed usage events into one VPA that selects every pod of its namespace,
// garbage-collect at `now`, recommend, post-process, and write checkpoints at `now`. Pure.
import {
  AggregateContainerState,
  AggregationsConfig,
  ClusterState,
  VpaState,
  checkpointStatusFromJSON,
  checkpointStatusToJSON,
  containerNameToAggregateStateMap,
  type Instant,
  type ModelFeatureGates,
  type VerticalPodAutoscaler,
  type VerticalPodAutoscalerCheckpointJSON,
} from './model/index.ts';
import {
  DEFAULT_RECOMMENDATION_CONFIG,
  DEFAULT_RECOMMENDATION_FORMAT,
  PodResourceRecommender,
  applyVPAPolicy,
  integerCPUPostProcess,
  mapToListOfRecommendedContainerResources,
  type ContainerRecommendation,
  type QuantityList,
  type RecommendationConfig,
  type RecommendationFormat,
} from './logic/index.ts';
import type { UsageEvent } from './usage-events.ts';
import { VPA_API_VERSION } from '../api/kinds.ts';

/** Upstream's aggregateContainerStateGCInterval. */
const GC_INTERVAL_MICROS = 3_600_000_000;

export interface ReplayOptions {
  aggregations?: AggregationsConfig;
  recommendation?: RecommendationConfig;
  format?: RecommendationFormat;
  /** The VPA whose resourcePolicy, annotations and name apply (default: "vpa" in "default"). */
  vpa?: VerticalPodAutoscaler;
  cpuIntegerPostProcessorEnabled?: boolean;
  globalMaxAllowed?: QuantityList;
  gates?: ModelFeatureGates;
}

export interface ReplayResult {
  recommendation: ContainerRecommendation[];
  checkpoints: VerticalPodAutoscalerCheckpointJSON[];
  /** Events the model discarded (duplicate/out-of-order/negative samples, stale OOMs). */
  rejected: number;
  /** Checkpoints given for another VPA (not loaded). */
  skippedCheckpoints: number;
}

/** Thrown for a checkpoint that cannot be loaded; the message names the checkpoint. */
export class CheckpointLoadError extends Error {
  override name = 'CheckpointLoadError';
}

export function replay(
  events: Iterable<UsageEvent>,
  now: Instant,
  options: ReplayOptions = {},
  checkpointsIn: readonly VerticalPodAutoscalerCheckpointJSON[] = [],
): ReplayResult {
  const config = options.aggregations ?? new AggregationsConfig();
  const gates = options.gates ?? {};
  const cluster = new ClusterState({ config, gates });
  const meta = options.vpa?.metadata ?? {};
  const namespace = meta.namespace || 'default';
  const vpaName = meta.name || 'vpa';
  const vpa = new VpaState(
    namespace,
    vpaName,
    () => true,
    options.vpa?.spec?.resourcePolicy,
    options.vpa?.spec?.updatePolicy?.updateMode,
    meta.annotations ?? {},
  );
  cluster.addOrUpdateVpa(vpa);

  let skippedCheckpoints = 0;
  for (const cp of checkpointsIn) {
    const name = cp.spec?.containerName;
    const what = `checkpoint ${cp.metadata?.name ?? '?'}`;
    if (typeof name !== 'string') throw new CheckpointLoadError(`${what}: spec.containerName is missing`);
    // Like upstream InitFromCheckpoints: only this VPA's checkpoints are loaded.
    if (cp.spec.vpaObjectName !== vpaName || (cp.metadata?.namespace ?? namespace) !== namespace) {
      skippedCheckpoints++;
      continue;
    }
    const state = new AggregateContainerState(config, now);
    try {
      state.loadFromCheckpoint(checkpointStatusFromJSON(cp.status, `${what} status`));
    } catch (e) {
      throw new CheckpointLoadError(`${what}: ${(e as Error).message}`);
    }
    vpa.containersInitialAggregateState.set(name, state);
  }

  let rejected = 0;
  for (const ev of events) {
    const podId = { namespace, podName: ev.pod };
    let container = cluster.getContainer(podId, ev.container);
    if (!container) {
      if (!cluster.pods.has(ClusterState.podKey(podId))) cluster.addOrUpdatePod(podId, ev.labels, 'Running');
      container = cluster.addOrUpdateContainer(podId, ev.container, now);
    }
    let ok = true;
    if (ev.kind === 'cpu') ok = container.addCPUSample(ev.amount, ev.time);
    else if (ev.kind === 'memory') ok = container.addMemorySample(ev.amount, ev.time);
    else {
      try {
        container.recordOOM(ev.time, ev.amount);
      } catch {
        ok = false;
      }
    }
    if (!ok) rejected++;
  }

  cluster.garbageCollect(now, GC_INTERVAL_MICROS);
  const recommender = new PodResourceRecommender(options.recommendation ?? DEFAULT_RECOMMENDATION_CONFIG);
  const states = containerNameToAggregateStateMap(vpa, config, now, gates);
  let recs = mapToListOfRecommendedContainerResources(recommender.getRecommendedPodResources(states), options.format ?? DEFAULT_RECOMMENDATION_FORMAT);
  if (options.cpuIntegerPostProcessorEnabled) recs = integerCPUPostProcess(vpa.annotations, recs);
  recs = applyVPAPolicy(recs, vpa.resourcePolicy, options.globalMaxAllowed) ?? [];

  const checkpoints: VerticalPodAutoscalerCheckpointJSON[] = [];
  const cpStates = cluster.checkpointStates(vpa, now);
  for (const name of [...cpStates.keys()].sort()) {
    checkpoints.push({
      apiVersion: VPA_API_VERSION,
      kind: 'VerticalPodAutoscalerCheckpoint',
      metadata: { name: `${vpaName}-${name}`, namespace },
      spec: { vpaObjectName: vpaName, containerName: name },
      status: checkpointStatusToJSON((cpStates.get(name) as AggregateContainerState).saveToCheckpoint(now)),
    });
  }
  return { recommendation: recs, checkpoints, rejected, skippedCheckpoints };
}
