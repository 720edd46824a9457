// The value of the cron external metric, i.e. the replica count the HPA should see (target AverageValue 1
// turns the value into ceil(value) replicas). Two Crane generations, chosen by --cron-semantics:
//   - 'v0.7' (Crane v0.4–v0.7 and its docs, docs/crane-behaviour.md §C.5.2 and Crane's EHPA tutorial): the
//     largest targetReplicas among the active crons; with none active, minReplicas when the HPA has other
//     metrics (so the cron stops pulling), otherwise the workload's current replicas (so the HPA keeps the
//     count where it is). Crane answers 1 rather than minReplicas there; the HPA clamps both to minReplicas.
//   - 'head' (Crane v0.8+, §C.4 step 5, gocrane/crane pkg/metricprovider/external_metric_provider.go): start
//     from minReplicas and raise it to each active cron's targetReplicas, so the answer is
//     max(minReplicas, largest active target), and minReplicas when no cron is active, whatever else the HPA
//     scales on (a cron-only EHPA outside its windows drops to minReplicas).

export type CronSemantics = 'v0.7' | 'head';
export const CRON_SEMANTICS: readonly CronSemantics[] = ['v0.7', 'head'];

export interface CronReplicaInput {
  /** targetReplicas of every cron active now. */
  activeTargets: readonly number[];
  hasOtherMetrics: boolean;
  minReplicas: number;
  /** The scale target's spec.replicas; needed only under 'v0.7' when no cron is active and there are no other metrics. */
  currentReplicas?: number;
  /** Default 'v0.7'. */
  semantics?: CronSemantics;
}

export type CronReplicaResult = { ok: true; replicas: number; why: 'active' | 'min' | 'current' } | { ok: false; message: string };

/** Whether cronReplicas will need the target's current replicas for this input (so callers fetch it only then). */
export function cronNeedsCurrentReplicas(activeCount: number, hasOtherMetrics: boolean, semantics: CronSemantics = 'v0.7'): boolean {
  return semantics === 'v0.7' && activeCount === 0 && !hasOtherMetrics;
}

export function cronReplicas(input: CronReplicaInput): CronReplicaResult {
  const largest = input.activeTargets.length > 0 ? Math.max(...input.activeTargets) : undefined;
  if ((input.semantics ?? 'v0.7') === 'head') {
    if (largest !== undefined && largest >= input.minReplicas) return { ok: true, replicas: largest, why: 'active' };
    return { ok: true, replicas: input.minReplicas, why: 'min' };
  }
  if (largest !== undefined) return { ok: true, replicas: largest, why: 'active' };
  if (input.hasOtherMetrics) return { ok: true, replicas: input.minReplicas, why: 'min' };
  if (input.currentReplicas === undefined) return { ok: false, message: 'no cron is active and the scale target\'s current replicas are unknown' };
  return { ok: true, replicas: input.currentReplicas, why: 'current' };
}
