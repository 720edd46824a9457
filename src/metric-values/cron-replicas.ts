// The value of the cron external metric, i.e. the replica count the HPA should see (target AverageValue 1
// turns the value into ceil(value) replicas). Semantics of Crane v0.4–v0.7 and its docs
// (docs/crane-behaviour.md §C.5.2, Crane's EHPA tutorial): the largest targetReplicas among the
// active crons; with none active, minReplicas when the HPA has other metrics (so the cron stops pulling),
// otherwise the workload's current replicas (so the HPA keeps the count where it is).

export interface CronReplicaInput {
  /** targetReplicas of every cron active now. */
  activeTargets: readonly number[];
  hasOtherMetrics: boolean;
  minReplicas: number;
  /** The scale target's spec.replicas; needed only when no cron is active and there are no other metrics. */
  currentReplicas?: number;
}

export type CronReplicaResult = { ok: true; replicas: number; why: 'active' | 'min' | 'current' } | { ok: false; message: string };

export function cronReplicas(input: CronReplicaInput): CronReplicaResult {
  if (input.activeTargets.length > 0) return { ok: true, replicas: Math.max(...input.activeTargets), why: 'active' };
  if (input.hasOtherMetrics) return { ok: true, replicas: input.minReplicas, why: 'min' };
  if (input.currentReplicas === undefined) return { ok: false, message: 'no cron is active and the scale target\'s current replicas are unknown' };
  return { ok: true, replicas: input.currentReplicas, why: 'current' };
}
