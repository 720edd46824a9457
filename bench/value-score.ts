// The pure scoring of the iso-cost value evaluation (bench/eval-value.ts; the method: docs/components.md,
// "Judging prediction by cost"): one shortage rule for every policy, the plain-HPA frontier, and whether an
// EHPA pays on it.

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

/**
 * The forecast-bound check: the largest ratio, over the steps, of the forecast window maximum served to
 * the largest value of the history the forecaster could use (the `lookbackSeconds` up to the step).
 * Null when no step had a forecast. The history is ascending in time.
 */
export function forecastBoundRatio(
  steps: readonly { t: number; forecastWindowMaxCores: number | null }[],
  history: { timestamps: readonly number[]; values: readonly number[] },
  lookbackSeconds: number,
): { ratio: number; t: number } | null {
  // A sliding-window maximum (monotone deque of history indices) as the steps advance.
  const deque: number[] = [];
  let head = 0;
  let next = 0;
  let best: { ratio: number; t: number } | null = null;
  for (const s of steps) {
    while (next < history.timestamps.length && (history.timestamps[next] as number) <= s.t) {
      const v = history.values[next] as number;
      while (deque.length > head && (history.values[deque[deque.length - 1] as number] as number) <= v) deque.pop();
      deque.push(next++);
    }
    while (head < deque.length && (history.timestamps[deque[head] as number] as number) <= s.t - lookbackSeconds) head++;
    if (s.forecastWindowMaxCores === null || head >= deque.length) continue;
    const peak = history.values[deque[head] as number] as number;
    const ratio = peak > 0 ? s.forecastWindowMaxCores / peak : s.forecastWindowMaxCores > 0 ? Infinity : 0;
    if (!best || ratio > best.ratio) best = { ratio, t: s.t };
  }
  return best;
}

/** Values scaled so their mean is `mean` (null when the mean is 0 or not finite: nothing to scale). */
export function scaleToMean(values: readonly number[], mean: number): { values: number[]; factor: number } | null {
  let sum = 0;
  for (const v of values) sum += v;
  const m = sum / values.length;
  if (!(m > 0) || !Number.isFinite(m)) return null;
  const factor = mean / m;
  return { values: values.map((v) => v * factor), factor };
}

/**
 * A series sampled coarser than `spacing` with each sample held until the next (copies every `spacing`
 * seconds, up to `maxHoldSeconds` after it, so holes stay holes). The replay reads usage within Prometheus'
 * 5-minute lookback; a 30-minute series would otherwise have no usage for most minutes.
 */
export function holdEvery(series: { timestamps: readonly number[]; values: readonly number[] }, spacing: number, maxHoldSeconds: number): { timestamps: number[]; values: number[] } {
  const timestamps: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < series.timestamps.length; i++) {
    const t = series.timestamps[i] as number;
    const v = series.values[i] as number;
    const end = i + 1 < series.timestamps.length ? Math.min(series.timestamps[i + 1] as number, t + maxHoldSeconds + 1) : t + 1;
    for (let u = t; u < end; u += spacing) {
      timestamps.push(u);
      values.push(v);
    }
  }
  return { timestamps, values };
}

/** The bars for one EHPA point against its frontier (bench/eval-value.ts prints them per trace). */
export interface Bars {
  /** Replica-hours over the plain HPA's at the EHPA's own target (the first bar: ≤ 1.25). */
  costRatio: number;
  /**
   * Short minutes beyond the frontier's at the EHPA's own replica-hours (> 0: worse off than lowering the
   * target would have been; 'off': dearer than every plain HPA). Below the frontier's cheapest point, the
   * comparison is with that point (the plain HPA at the EHPA's own target).
   */
  worseBy: number | 'off';
  /** Share of replica-hours saved against the frontier at the EHPA's shortage (null: no plain HPA is that short or that cheap). */
  saving: number | null;
  /** The frontier's short minutes at the EHPA's cost over the EHPA's (∞ when the EHPA is never short; null: off or below). */
  shortReduction: number | null;
}

export function bars(ehpa: ValuePoint, frontier: readonly FrontierPoint[], ownTarget: number): Bars {
  const own = frontier.find((p) => p.target === ownTarget);
  if (!own) throw new RangeError(`the frontier has no plain HPA at the EHPA's own target ${ownTarget}`);
  const shortThere = frontierShortAt(frontier, ehpa.replicaHours);
  const costThere = frontierCostAt(frontier, ehpa.shortMinutes);
  const worseBy = shortThere === 'off' ? 'off' : ehpa.shortMinutes - (shortThere === 'below' ? own.shortMinutes : shortThere);
  const saving = typeof costThere === 'number' && costThere > 0 ? 1 - ehpa.replicaHours / costThere : null;
  const shortReduction = typeof shortThere === 'number' ? (ehpa.shortMinutes > 0 ? shortThere / ehpa.shortMinutes : shortThere > 0 ? Infinity : 1) : null;
  return { costRatio: ehpa.replicaHours / own.replicaHours, worseBy, saving, shortReduction };
}
