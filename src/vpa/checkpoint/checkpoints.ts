// VerticalPodAutoscalerCheckpoint objects (upstream checkpoint/checkpoint_writer.go and the start-up
// InitFromCheckpoints / GarbageCollectCheckpoints of input/cluster_feeder.go): what to write for a VPA,
// how a checkpoint becomes the VPA's initial state, and which checkpoints have lost their VPA. Pure.
import { AggregateContainerState } from '../model/aggregate-container-state.ts';
import { checkpointStatusFromJSON, checkpointStatusToJSON, type VerticalPodAutoscalerCheckpointJSON } from '../model/checkpoint-json.ts';
import type { ClusterState, VpaState } from '../model/cluster-state.ts';
import type { ContainerState } from '../model/container-state.ts';
import type { Instant } from '../../gomath/go-time.ts';
import { vpaKey } from '../input/cluster-feeder.ts';
import { VPA_API_VERSION } from '../../api/kinds.ts';


export function checkpointName(vpaName: string, containerName: string): string {
  return `${vpaName}-${containerName}`;
}

/** Tracked containers by the id of the aggregate they feed, each list in (pod key, container name) order. */
export type ContainersByAggregate = Map<string, { podKey: string; name: string; container: ContainerState }[]>;

export function containersByAggregate(cluster: ClusterState): ContainersByAggregate {
  const out: ContainersByAggregate = new Map();
  for (const podKey of [...cluster.pods.keys()].sort()) {
    const pod = cluster.pods.get(podKey)!;
    for (const name of [...pod.containers.keys()].sort()) {
      const id = cluster.makeAggregateStateKey(pod, name).id;
      let l = out.get(id);
      if (!l) out.set(id, (l = []));
      l.push({ podKey, name, container: pod.containers.get(name)! });
    }
  }
  return out;
}

/**
 * ClusterState.checkpointStates with the containers looked up through an index built once per loop:
 * the model's version walks every pod for every VPA (like upstream's checkpoint writer), which is
 * O(VPAs × pods) and dominated the loop at 10,000 containers. Same subtractions in the same order.
 */
export function checkpointStatesIndexed(cluster: ClusterState, vpa: VpaState, now: Instant, index: ContainersByAggregate): Map<string, AggregateContainerState> {
  const states = vpa.aggregateStateByContainerName(cluster.config, now);
  const used: { podKey: string; name: string; container: ContainerState }[] = [];
  for (const id of vpa.aggregateContainerStates.keys()) for (const e of index.get(id) ?? []) used.push(e);
  used.sort((a, b) => (a.podKey < b.podKey ? -1 : a.podKey > b.podKey ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { name, container } of used) {
    const merged = states.get(name);
    if (merged && now < container.windowEnd) merged.subtractMemoryPeak(container.getMaxMemoryPeak(), container.windowEnd);
  }
  return states;
}

/** The checkpoints of one VPA at `now`, one per container name, sorted by name. */
export function checkpointObjects(cluster: ClusterState, vpa: VpaState, now: Instant, index?: ContainersByAggregate): VerticalPodAutoscalerCheckpointJSON[] {
  const states = index ? checkpointStatesIndexed(cluster, vpa, now, index) : cluster.checkpointStates(vpa, now);
  return [...states.keys()].sort().map((name) => ({
    apiVersion: VPA_API_VERSION,
    kind: 'VerticalPodAutoscalerCheckpoint',
    metadata: { name: checkpointName(vpa.name, name), namespace: vpa.namespace },
    spec: { vpaObjectName: vpa.name, containerName: name },
    status: checkpointStatusToJSON(states.get(name)!.saveToCheckpoint(now)),
  }));
}

export interface CheckpointLoadResult {
  /** Keys (namespace/name) of the VPAs that got at least one container state. */
  restored: Set<string>;
  loaded: number;
  /** One line per checkpoint that was skipped and why (logged by the caller, like upstream). */
  errors: string[];
}

/**
 * Loads each checkpoint whose VPA is in the model into `containersInitialAggregateState`; checkpoints of
 * unknown VPAs are ignored, broken ones reported and skipped.
 */
export function loadCheckpoints(cluster: ClusterState, checkpoints: Iterable<VerticalPodAutoscalerCheckpointJSON>, now: Instant): CheckpointLoadResult {
  const out: CheckpointLoadResult = { restored: new Set(), loaded: 0, errors: [] };
  for (const cp of checkpoints) {
    const ns = cp.metadata?.namespace ?? '';
    const vpaName = cp.spec?.vpaObjectName;
    const container = cp.spec?.containerName;
    const what = `checkpoint ${ns}/${cp.metadata?.name ?? '?'}`;
    if (typeof vpaName !== 'string' || typeof container !== 'string') {
      out.errors.push(`${what}: spec.vpaObjectName and spec.containerName are required`);
      continue;
    }
    const vpa = cluster.vpas.get(vpaKey(ns, vpaName));
    if (!vpa) continue;
    const state = new AggregateContainerState(cluster.config, now);
    try {
      state.loadFromCheckpoint(checkpointStatusFromJSON(cp.status, `${what} status`));
    } catch (e) {
      out.errors.push(`${what}: ${(e as Error).message}`);
      continue;
    }
    vpa.containersInitialAggregateState.set(container, state);
    out.restored.add(vpaKey(ns, vpaName));
    out.loaded++;
  }
  return out;
}

/** Checkpoints whose VPA no longer exists (`vpaExists` sees every VPA, whichever recommender it names). */
export function orphanedCheckpoints(
  checkpoints: Iterable<VerticalPodAutoscalerCheckpointJSON>,
  vpaExists: (namespace: string, name: string) => boolean,
): { namespace: string; name: string }[] {
  const out: { namespace: string; name: string }[] = [];
  for (const cp of checkpoints) {
    const ns = cp.metadata?.namespace ?? '';
    if (!vpaExists(ns, cp.spec?.vpaObjectName ?? '')) out.push({ namespace: ns, name: cp.metadata.name });
  }
  return out;
}
