// Where the demo cuts its trace and how it scales it (pure). Everything before the cut becomes Prometheus
// history (shifted to end just before now); everything after it is replayed live, in real time, as the
// workload's usage. The cut is placed a little before the trace's steepest rise in its last day, so the
// forecast has something to see coming before the usage shows it; the scale maps the trace's units to a few cores for a few pods.
import type { TracePoint } from '../../test/e2e/harness/openmetrics.ts';

export type { TracePoint };

export interface TracePlan {
  /** History for the backfill: the points of the last `historySeconds` up to and including the cut. */
  history: TracePoint[];
  /** Trace time of the cut (the last history point). */
  cutTs: number;
  /** Trace time of the rise the cut was placed before. */
  riseTs: number;
  /** Trace step, seconds. */
  step: number;
  /** Trace units -> CPU cores of the whole workload. */
  scale: number;
  /** All points (for the live replay after the cut). */
  points: TracePoint[];
}

export interface TracePlanOptions {
  /** History kept before the cut (the forecaster's historyLength plus a margin). */
  historySeconds: number;
  /** How far ahead the rise is looked for (the prediction window). */
  lookaheadSeconds: number;
  /** The history's 95th percentile becomes this many cores. */
  p95Cores: number;
  /** The cut lies this long before the rise, so the forecast sees it coming before the usage does. */
  leadSeconds: number;
}

function mean(points: readonly TracePoint[], from: number, to: number): number {
  let sum = 0;
  let n = 0;
  for (const p of points) {
    if (p.ts >= from && p.ts <= to) {
      sum += p.value;
      n++;
    }
  }
  return n ? sum / n : 0;
}

function percentile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

export function planTrace(points: readonly TracePoint[], o: TracePlanOptions): TracePlan {
  if (points.length < 2) throw new Error('the trace has fewer than two points');
  const step = points[1]!.ts - points[0]!.ts;
  const first = points[0]!.ts;
  const last = points[points.length - 1]!.ts;
  const earliestRise = first + o.historySeconds + o.leadSeconds;
  const latestRise = last - o.lookaheadSeconds;
  if (latestRise < earliestRise) {
    const needH = (o.historySeconds + o.leadSeconds + o.lookaheadSeconds) / 3600;
    throw new Error(`the trace covers ${((last - first) / 3600).toFixed(1)} h; the demo needs at least ${needH.toFixed(1)} h (history plus one prediction window)`);
  }
  // Candidates every 5 minutes over the last day that has room after it; score = the coming half window's
  // mean over the last ten minutes' mean (a ramp, not a one-minute spike).
  const from = Math.max(earliestRise, latestRise - 86_400);
  let best = latestRise;
  let bestScore = -Infinity;
  for (let t = from; t <= latestRise; t += 300) {
    const now = mean(points, t - 600, t);
    const ahead = mean(points, t + 1, t + o.lookaheadSeconds / 2);
    const score = now > 0 ? ahead / now : 0;
    if (score > bestScore) {
      bestScore = score;
      best = t;
    }
  }
  const cut = points.reduce((acc, p) => (p.ts <= best - o.leadSeconds ? p.ts : acc), first);
  const history = points.filter((p) => p.ts > cut - o.historySeconds && p.ts <= cut);
  const p95 = percentile(history.map((p) => p.value), 0.95);
  const scale = p95 > 0 ? o.p95Cores / p95 : 1;
  return { history, cutTs: cut, riseTs: best, step, scale, points: [...points] };
}

/** The trace's value at trace time `ts`, linearly interpolated; the last value after the end. */
export function traceValueAt(points: readonly TracePoint[], ts: number): number {
  if (!points.length) return 0;
  if (ts <= points[0]!.ts) return points[0]!.value;
  let lo = 0;
  let hi = points.length - 1;
  if (ts >= points[hi]!.ts) return points[hi]!.value;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.ts <= ts) lo = mid;
    else hi = mid;
  }
  const a = points[lo]!;
  const b = points[hi]!;
  return a.value + ((b.value - a.value) * (ts - a.ts)) / (b.ts - a.ts);
}
