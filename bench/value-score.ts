// The evaluation-only scoring of bench/eval-value.ts: the forecast-bound check, the bars, and the
// trace preparation. The frontier and the verdict themselves are simulate's (src/simulate/frontier.ts).
import { frontierCostAt, frontierShortAt, type FrontierPoint, type ValuePoint } from '../src/simulate/frontier.ts';

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
