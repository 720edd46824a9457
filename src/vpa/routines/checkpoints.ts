// VerticalPodAutoscalerCheckpoint objects (upstream checkpoint/checkpoint_writer.go and the start-up
// InitFromCheckpoints / GarbageCollectCheckpoints of input/cluster_feeder.go): what to write for a VPA,
// how a checkpoint becomes the VPA's initial state, and which checkpoints have lost their VPA. Pure.
import { AggregateContainerState } from '../model/aggregate-container-state.ts';
import { checkpointStatusFromJSON, checkpointStatusToJSON, type VerticalPodAutoscalerCheckpointJSON } from '../model/checkpoint-json.ts';
import type { ClusterState, VpaState } from '../model/cluster-state.ts';
import type { Instant } from '../model/go-time.ts';
import { vpaKey } from './cluster-feeder.ts';

export const CHECKPOINT_API_VERSION = 'autoscaling.k8s.io/v1';

export function checkpointName(vpaName: string, containerName: string): string {
  return `${vpaName}-${containerName}`;
}

/** The checkpoints of one VPA at `now`, one per container name, sorted by name. */
export function checkpointObjects(cluster: ClusterState, vpa: VpaState, now: Instant): VerticalPodAutoscalerCheckpointJSON[] {
  const states = cluster.checkpointStates(vpa, now);
  return [...states.keys()].sort().map((name) => ({
    apiVersion: CHECKPOINT_API_VERSION,
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
