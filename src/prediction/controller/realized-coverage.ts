// Realized coverage of the forecasts the TSP controller published (docs/forecast-evaluation.md): the share of
// past prediction windows whose actual maximum the forecast in force at the window's start covered. The
// controller keeps, per metric, the forecasts it built over the last day (trimmed to the stretch that can
// still be judged) and judges them against the history each refit fetches anyway, so watching the forecast
// costs no Prometheus query of its own. Pure: the reconciler holds the state and passes `now`.
import { labelKey, type HistorySeries } from '../../prometheus/series.ts';
import { realizedCoverage, type KeptForecast } from '../dsp/window-coverage.ts';

/** The realized coverage covers this much of the past. */
export const REALIZED_LOOKBACK_SECONDS = 86_400;

/** Timestamps and values of one kept series; never written after it is kept. */
export interface KeptColumns {
  timestamps: ArrayLike<number>;
  values: ArrayLike<number>;
}

/** One forecast of a metric as published at `madeAt` (unix s): its series by label key. */
export interface KeptMetricForecast {
  madeAt: number;
  series: ReadonlyMap<string, KeptColumns>;
}

export interface CoverageCount {
  /** Windows judged. */
  windows: number;
  /** Of which the forecast maximum reached the actual maximum. */
  covered: number;
}

/**
 * The samples of `s` in [from, to]. When that is all of them (the usual case: the cached forecast is already
 * trimmed to what a status can show, shorter than the span kept), the forecast's own columns are shared
 * rather than copied: at thousands of TSPs a copy is ~13 KB each, measured in serve's heap. Forecasts are never modified.
 */
function slice(s: KeptColumns, from: number, to: number): KeptColumns {
  let i = 0;
  while (i < s.timestamps.length && (s.timestamps[i] as number) < from) i++;
  let j = i;
  while (j < s.timestamps.length && (s.timestamps[j] as number) <= to) j++;
  if (i === 0 && j === s.timestamps.length) return { timestamps: s.timestamps, values: s.values };
  return { timestamps: Float64Array.from({ length: j - i }, (_, k) => s.timestamps[i + k] as number), values: Float64Array.from({ length: j - i }, (_, k) => s.values[i + k] as number) };
}

/**
 * The kept forecasts once `series` is published at `madeAt`: it is added with its samples in
 * [madeAt, madeAt + spanSeconds] (the longest it can stay in force plus a window: beyond that nothing is
 * ever judged), and a forecast replaced more than `lookbackSeconds` before `madeAt` is dropped (no window
 * the lookback reaches starts while it was in force).
 */
export function keepForecast(
  kept: readonly KeptMetricForecast[],
  series: readonly HistorySeries[],
  madeAt: number,
  o: { spanSeconds: number; lookbackSeconds?: number },
): KeptMetricForecast[] {
  const from = madeAt - (o.lookbackSeconds ?? REALIZED_LOOKBACK_SECONDS);
  const older = kept.filter((k) => k.madeAt < madeAt);
  // The newest forecast made at or before `from` is still in force at the start of the lookback.
  let firstInForce = 0;
  for (let i = 0; i < older.length; i++) if ((older[i] as KeptMetricForecast).madeAt <= from) firstInForce = i;
  const out = older.slice(firstInForce);
  const map = new Map<string, KeptColumns>();
  for (const s of series) map.set(labelKey(s.labels), slice(s, madeAt, madeAt + o.spanSeconds));
  out.push({ madeAt, series: map });
  return out;
}

/**
 * Realized coverage of the kept forecasts against the history just fetched, pooled over the metric's series:
 * at every `strideSeconds` instant of the last `lookbackSeconds` whose window has elapsed, per series with a
 * forecast in force. Series are matched by label set; one the forecast never had is not judged.
 */
export function judgeKept(
  kept: readonly KeptMetricForecast[],
  history: readonly HistorySeries[],
  o: { now: number; windowSeconds: number; strideSeconds: number; lookbackSeconds?: number },
): CoverageCount {
  let windows = 0;
  let covered = 0;
  for (const h of history) {
    const key = labelKey(h.labels);
    const forecasts: KeptForecast[] = [];
    for (const k of kept) {
      const s = k.series.get(key);
      if (s) forecasts.push({ madeAt: k.madeAt, timestamps: s.timestamps, values: s.values });
    }
    if (forecasts.length === 0) continue;
    const r = realizedCoverage(forecasts, h, { now: o.now, windowSeconds: o.windowSeconds, strideSeconds: o.strideSeconds, lookbackSeconds: o.lookbackSeconds ?? REALIZED_LOOKBACK_SECONDS });
    windows += r.windows;
    covered += r.covered;
  }
  return { windows, covered };
}

/** Judging instants: every quarter of min(window, 1 h), as the calibration's backtest, never finer than the history step. */
export function judgeStrideSeconds(windowSeconds: number, stepSeconds: number): number {
  return Math.max(stepSeconds, Math.min(windowSeconds, 3600) / 4);
}

/** Counts summed (a TSP's metrics pooled). */
export function sumCounts(counts: Iterable<CoverageCount | undefined>): CoverageCount {
  let windows = 0;
  let covered = 0;
  for (const c of counts) {
    if (!c) continue;
    windows += c.windows;
    covered += c.covered;
  }
  return { windows, covered };
}
