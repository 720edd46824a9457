// The upstream HPA controller's replica arithmetic (kubernetes/kubernetes pkg/controller/podautoscaler,
// docs/metrics-api.md §4), for what-if replays (`simulate`) and tests. Values are integer
// milli-units, as the controller sees them after Quantity.MilliValue().

export const DEFAULT_TOLERANCE = 0.1;

export function withinTolerance(ratio: number, tolerance = DEFAULT_TOLERANCE): boolean {
  return 1 - tolerance <= ratio && ratio <= 1 + tolerance;
}

/**
 * Pods metric with `target.averageValue` (calcPlainMetricReplicas) when every pod is ready and reported:
 * usage is the integer-division average; within tolerance the current count stays.
 */
export function podsAverageValueReplicas(opts: {
  currentReplicas: number;
  podMilli: readonly number[];
  targetMilli: number;
  tolerance?: number;
}): { replicas: number; usageMilli: number } {
  const n = opts.podMilli.length;
  if (n === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
  const sum = opts.podMilli.reduce((a, b) => a + b, 0);
  const usageMilli = Math.floor(sum / n);
  const ratio = usageMilli / opts.targetMilli;
  if (withinTolerance(ratio, opts.tolerance)) return { replicas: opts.currentReplicas, usageMilli };
  return { replicas: Math.ceil(ratio * n), usageMilli };
}

/**
 * External metric with `target.averageValue` (GetExternalPerPodMetricReplicas): the items are summed and
 * compared against target × the scale's status replicas; outside tolerance → ceil(sum / target).
 */
export function externalAverageValueReplicas(opts: {
  statusReplicas: number;
  sumMilli: number;
  targetMilli: number;
  tolerance?: number;
}): number {
  const ratio = opts.sumMilli / (opts.targetMilli * opts.statusReplicas);
  if (opts.statusReplicas > 0 && withinTolerance(ratio, opts.tolerance)) return opts.statusReplicas;
  return Math.min(Math.ceil(opts.sumMilli / opts.targetMilli), 2_147_483_647);
}

/**
 * Resource metric with `target.averageUtilization` (GetResourceReplicas, all pods ready): utilization is
 * the integer percent of the summed requests, and the ratio compares that integer with the target.
 */
export function resourceUtilizationReplicas(opts: {
  currentReplicas: number;
  podUsageMilli: readonly number[];
  podRequestMilli: readonly number[];
  targetUtilization: number;
  tolerance?: number;
}): { replicas: number; utilization: number } {
  const n = opts.podUsageMilli.length;
  if (n === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
  const usage = opts.podUsageMilli.reduce((a, b) => a + b, 0);
  const requests = opts.podRequestMilli.reduce((a, b) => a + b, 0);
  if (requests === 0) throw new Error('missing request for cpu');
  const utilization = Math.trunc((usage * 100) / requests);
  // Upstream (metrics/utilization.go) compares the integer percentage, not the exact fraction.
  const ratio = utilization / opts.targetUtilization;
  if (withinTolerance(ratio, opts.tolerance)) return { replicas: opts.currentReplicas, utilization };
  return { replicas: Math.ceil(ratio * n), utilization };
}

export interface Recommendation {
  timestampMs: number;
  replicas: number;
}

/**
 * normalizeDesiredReplicas without `spec.behavior`: the max over the downscale-stabilization window
 * (including this proposal), then the scale-up limit max(2 × current, 4) and min/max. Returns the new
 * window so the caller keeps the state (the function stays pure).
 */
export function normalizeDesiredReplicas(opts: {
  nowMs: number;
  currentReplicas: number;
  proposal: number;
  minReplicas: number;
  maxReplicas: number;
  history: readonly Recommendation[];
  stabilizationWindowMs?: number;
}): { replicas: number; history: Recommendation[]; limitedBy?: 'ScaleUpLimit' | 'TooManyReplicas' | 'TooFewReplicas' } {
  const window = opts.stabilizationWindowMs ?? 300_000;
  const cutoff = opts.nowMs - window;
  // Upstream drops a recommendation only when it is Before(cutoff) (horizontal.go stabilizeRecommendation), so
  // one exactly a window old still counts; a 15 s sync lands on that boundary every 300 s window.
  const history = opts.history.filter((r) => r.timestampMs >= cutoff);
  let stabilized = opts.proposal;
  for (const r of history) stabilized = Math.max(stabilized, r.replicas);
  history.push({ timestampMs: opts.nowMs, replicas: opts.proposal });
  const scaleUpLimit = Math.max(2 * opts.currentReplicas, 4);
  const ceiling = Math.min(opts.maxReplicas, scaleUpLimit);
  if (stabilized > ceiling) {
    return { replicas: ceiling, history, limitedBy: scaleUpLimit < opts.maxReplicas ? 'ScaleUpLimit' : 'TooManyReplicas' };
  }
  if (stabilized < opts.minReplicas) return { replicas: opts.minReplicas, history, limitedBy: 'TooFewReplicas' };
  return { replicas: stabilized, history };
}
