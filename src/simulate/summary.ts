// Scores a replay: how often each autoscaler changed the replica count, how long the workload's demand
// exceeded its capacity at the target (usage > ready replicas × per-pod target, with the replicas in force
// and ready while the sample was measured), how much CPU went unserved, and how many replicas it kept on
// average. Replica-hours count every pod, ready or still starting: starting pods cost money too.

export interface ReplicaScore {
  replicaChanges: number;
  scaleUps: number;
  scaleDowns: number;
  underProvisionedMinutes: number;
  /** Sum over under-provisioned steps of (usage − capacity at target) × step, core-minutes. */
  unmetCoreMinutes: number;
  averageReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  /** Replica-hours spent over the replay (cost proxy). */
  replicaHours: number;
}

export interface SummaryContext {
  fromS: number;
  toS: number;
  stepSeconds: number;
  /** Pod start-up time of the replay, seconds (0: pods ready at once). */
  podStartupSeconds?: number;
  initialReplicas: number;
  perPodTargetCores: number;
  podCpuRequestCores: number;
  stepsWithoutData: number;
  ehpaMetrics: string[];
  plainMetrics: string[];
  skippedMetrics: string[];
  conversionProblem?: string;
  forecast?: { windowSeconds: number; algorithm: string; refreshes: number; failedRefreshes: number; settingsError?: string };
}

export interface SimulationSummary extends SummaryContext {
  type: 'summary';
  steps: number;
  /** Steps where the EHPA's HPA had no forecast (fallback to observed usage, or the metric failed). */
  stepsWithoutForecast?: number;
  /** Steps where auto mode's forecast stepped aside (did not pay) and the observed usage was served. */
  stepsSteppedAside?: number;
  ehpa: ReplicaScore;
  plain: ReplicaScore;
}

interface ScoredStep {
  steppedAside?: boolean;
  usageCores: number;
  forecastWindowMaxCores: number | null;
  ehpa: { replicas: number; readyReplicas?: number; underProvisioned: boolean };
  plain: { replicas: number; readyReplicas?: number; underProvisioned: boolean };
}

const round = (x: number, digits = 3) => Number(x.toFixed(digits));

function score(steps: readonly ScoredStep[], which: 'ehpa' | 'plain', ctx: SummaryContext): ReplicaScore {
  let changes = 0;
  let ups = 0;
  let downs = 0;
  let under = 0;
  let unmet = 0;
  let sum = 0;
  let lo = Infinity;
  let hi = -Infinity;
  let previous = ctx.initialReplicas;
  const minutes = ctx.stepSeconds / 60;
  for (const s of steps) {
    const r = s[which].replicas;
    if (s[which].underProvisioned) {
      under++;
      // Capacity: the replicas ready while the sample was measured (without start-up, the previous count).
      const ready = s[which].readyReplicas ?? previous;
      unmet += (s.usageCores - ready * ctx.perPodTargetCores) * minutes;
    }
    if (r !== previous) {
      changes++;
      if (r > previous) ups++;
      else downs++;
    }
    previous = r;
    sum += r;
    lo = Math.min(lo, r);
    hi = Math.max(hi, r);
  }
  const n = steps.length;
  return {
    replicaChanges: changes,
    scaleUps: ups,
    scaleDowns: downs,
    underProvisionedMinutes: round(under * minutes),
    unmetCoreMinutes: round(unmet),
    averageReplicas: n ? round(sum / n) : 0,
    minReplicas: n ? lo : 0,
    maxReplicas: n ? hi : 0,
    replicaHours: round((sum * ctx.stepSeconds) / 3600),
  };
}

export function summarize(steps: readonly ScoredStep[], ctx: SummaryContext): SimulationSummary {
  return {
    type: 'summary',
    ...ctx,
    steps: steps.length,
    ...(ctx.forecast
      ? { stepsWithoutForecast: steps.filter((s) => s.forecastWindowMaxCores === null && !s.steppedAside).length, stepsSteppedAside: steps.filter((s) => s.steppedAside).length }
      : {}),
    ehpa: score(steps, 'ehpa', ctx),
    plain: score(steps, 'plain', ctx),
  };
}
