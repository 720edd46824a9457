// The iso-cost comparison (docs/forecast-evaluation.md, "Does prediction pay"): one shortage rule for every
// policy, the plain-HPA frontier a user can buy by lowering the target, and whether an EHPA beats it.
// `simulate --frontier` prints it for one EHPA; `npm run eval:value` runs it over every fixture trace. Pure.

/** A policy's cost and shortage over one replay. */
export interface ValuePoint {
  shortMinutes: number;
  replicaHours: number;
}

/** One plain HPA on the frontier: its CPU target (%) and its point. */
export interface FrontierPoint extends ValuePoint {
  target: number;
}

interface ReplicaStep {
  usageCores: number;
  ehpa: { replicas: number; readyReplicas: number };
  plain: { replicas: number; readyReplicas: number };
}

/**
 * A replay rescored by ONE rule, whatever the policy's own target: a step is short when usage > ready
 * replicas × `perPodCores`; replica-hours count every pod, ready or starting. Steps are `stepSeconds` apart.
 */
export function fixedRuleScore(steps: readonly ReplicaStep[], which: 'ehpa' | 'plain', perPodCores: number, stepSeconds: number): ValuePoint {
  let short = 0;
  let replicas = 0;
  for (const s of steps) {
    if (s.usageCores > s[which].readyReplicas * perPodCores + 1e-9) short++;
    replicas += s[which].replicas;
  }
  return { shortMinutes: (short * stepSeconds) / 60, replicaHours: (replicas * stepSeconds) / 3600 };
}

/** Consecutive frontier points in target order (highest target first), the segments a user can buy between. */
function segments(frontier: readonly FrontierPoint[]): [FrontierPoint, FrontierPoint][] {
  const sorted = [...frontier].sort((a, b) => b.target - a.target);
  const out: [FrontierPoint, FrontierPoint][] = [];
  for (let i = 0; i + 1 < sorted.length; i++) out.push([sorted[i] as FrontierPoint, sorted[i + 1] as FrontierPoint]);
  if (sorted.length === 1) out.push([sorted[0] as FrontierPoint, sorted[0] as FrontierPoint]);
  return out;
}

const lerp = (x: number, x0: number, x1: number, y0: number, y1: number) => (x1 === x0 ? Math.min(y0, y1) : y0 + ((x - x0) / (x1 - x0)) * (y1 - y0));

/**
 * The frontier's short minutes at `replicaHours`: linear between the two neighbouring targets whose
 * replica-hours bracket it (the least where several segments do, the frontier not being monotone on every
 * trace); 'off' when dearer than every plain HPA (normally the lowest target), 'below' when cheaper than
 * every one (normally the EHPA's own target).
 */
export function frontierShortAt(frontier: readonly FrontierPoint[], replicaHours: number): number | 'off' | 'below' {
  if (frontier.length === 0) throw new RangeError('an empty frontier');
  const rh = frontier.map((p) => p.replicaHours);
  if (replicaHours > Math.max(...rh)) return 'off';
  if (replicaHours < Math.min(...rh)) return 'below';
  let best = Infinity;
  for (const [a, b] of segments(frontier)) {
    if (replicaHours < Math.min(a.replicaHours, b.replicaHours) || replicaHours > Math.max(a.replicaHours, b.replicaHours)) continue;
    best = Math.min(best, lerp(replicaHours, a.replicaHours, b.replicaHours, a.shortMinutes, b.shortMinutes));
  }
  return best;
}

/**
 * The frontier's replica-hours at `shortMinutes`: linear between the neighbouring targets whose short
 * minutes bracket it (the least where several do); 'unreachable' when every plain HPA is short longer
 * (no target buys that little shortage), 'above' when every plain HPA is short less.
 */
export function frontierCostAt(frontier: readonly FrontierPoint[], shortMinutes: number): number | 'unreachable' | 'above' {
  if (frontier.length === 0) throw new RangeError('an empty frontier');
  const sm = frontier.map((p) => p.shortMinutes);
  if (shortMinutes < Math.min(...sm)) return 'unreachable';
  if (shortMinutes > Math.max(...sm)) return 'above';
  let best = Infinity;
  for (const [a, b] of segments(frontier)) {
    if (shortMinutes < Math.min(a.shortMinutes, b.shortMinutes) || shortMinutes > Math.max(a.shortMinutes, b.shortMinutes)) continue;
    best = Math.min(best, lerp(shortMinutes, a.shortMinutes, b.shortMinutes, a.replicaHours, b.replicaHours));
  }
  return best;
}

export interface Verdict {
  pays: boolean;
  /** Which test decided, in words. */
  why: string;
}

/**
 * prediction-value.md: the EHPA pays when, at its own replica-hours, it is short fewer minutes than the
 * frontier there, or, at its own short minutes, it spends fewer replica-hours than the frontier. Dearer than
 * every plain HPA it does not pay, whatever its shortage. Ties do not pay.
 */
export function verdict(ehpa: ValuePoint, frontier: readonly FrontierPoint[]): Verdict {
  const shortThere = frontierShortAt(frontier, ehpa.replicaHours);
  if (shortThere === 'off') return { pays: false, why: 'off frontier: dearer than every plain HPA' };
  if (typeof shortThere === 'number' && ehpa.shortMinutes < shortThere - 1e-9) return { pays: true, why: 'fewer short minutes at its cost' };
  const costThere = frontierCostAt(frontier, ehpa.shortMinutes);
  if (costThere === 'unreachable') return { pays: true, why: 'shorter than any plain HPA can be, within their cost' };
  if (typeof costThere === 'number' && ehpa.replicaHours < costThere - 1e-9) return { pays: true, why: 'fewer replica-hours at its shortage' };
  if (shortThere === 'below') return { pays: false, why: 'cheaper than every plain HPA but short more often' };
  return { pays: false, why: 'on or above the frontier' };
}
