// The controller's Forecaster backed by the prediction core (src/prediction/index.ts): Crane's
// configuration rules for the history window, the DSP forecaster (`auto` estimator selection, or Crane's
// exact estimators when the algorithm block lists its own) and the percentile estimate. CoreForecaster fits
// in the calling thread (the `forecast` command, tests, the benchmark's "before"); `serve` fits the same
// `fitSeries` in worker threads (prediction/worker/), so the event loop never runs a fit.
import type { PredictionAlgorithm } from '../../api/prediction.ts';
import { dspSettingsFromSpec, forecast, InvalidSeriesError, percentileSettingsFromSpec, type ForecastConfig } from '../index.ts';
import { labelKey, type HistorySeries } from '../../prometheus/series.ts';
import type { CalibrationSummary } from '../dsp/window-calibration.ts';
import type { ForecastSeries, ForecastWindow, Forecaster } from './forecaster.ts';
import { calibratesWindowMax } from './algorithm-block.ts';

/** Stable per-series seed for period detection's permutation test, so a forecast is reproducible. */
function seedOf(labels: Record<string, string>): number {
  let h = 2166136261;
  for (const ch of labelKey(labels)) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h;
}

/** How much history to fetch for an algorithm block, and at which step (Crane's configuration rules). */
export function historyWindowOf(a: PredictionAlgorithm): { lengthSeconds: number; stepSeconds: number } {
  const s = a.algorithmType === 'percentile' ? percentileSettingsFromSpec(a.percentile).settings : dspSettingsFromSpec(a.dsp).settings;
  return { lengthSeconds: s.historySeconds, stepSeconds: s.intervalSeconds };
}

function forecastConfig(a: PredictionAlgorithm, w: ForecastWindow, lastTs: number): ForecastConfig {
  if (a.algorithmType === 'percentile') {
    const { settings } = percentileSettingsFromSpec(a.percentile);
    return {
      algorithm: 'percentile',
      sampleIntervalSeconds: settings.intervalSeconds,
      historySeconds: settings.historySeconds,
      horizonSeconds: w.nowS + w.horizonSeconds - lastTs + settings.intervalSeconds,
      percentile: settings.config,
    };
  }
  const { settings } = dspSettingsFromSpec(a.dsp);
  const own = !calibratesWindowMax(a);
  // auto calibrates the maximum over the TSP's own window (the controller says which; else half the horizon
  // it asks for), and a series without a period is then forecast over both windows, whatever their length
  // (no 2-hour ceiling). Crane mode never calibrates (calibrationOf ignores these), so its forecast stays
  // Crane's bit for bit.
  const coverageWindowSeconds = w.coverageWindowSeconds ?? (own ? undefined : w.horizonSeconds / 2);
  return {
    algorithm: 'dsp',
    sampleIntervalSeconds: settings.intervalSeconds,
    historySeconds: settings.historySeconds,
    // Crane's horizon (one period per history period) is days long, so one model serves many refreshes.
    estimators: own ? 'crane' : 'auto',
    ...(own ? { craneEstimators: settings.craneEstimators } : {}),
    ...(w.coverage !== undefined ? { coverage: w.coverage } : {}),
    ...(coverageWindowSeconds !== undefined ? { coverageWindowSeconds } : {}),
    ...(w.acceptExtraCost !== undefined ? { acceptExtraCost: w.acceptExtraCost } : {}),
  };
}

/** One series to fit: its labels (which seed the fit) and its non-empty history columns. */
export interface FitInput {
  labels: Record<string, string>;
  timestamps: ArrayLike<number>;
  values: ArrayLike<number>;
}

/**
 * A fitted series' forecast columns (with `auto`'s calibration, and the forecaster's remark such as why it is
 * uncalibrated), or why the algorithm declined (or could not read) the series.
 */
export type FitOutcome = { timestamps: number[]; values: number[]; calibration?: CalibrationSummary; note?: string } | { reason: string };

/**
 * Fits one series: the unit of work, in this thread or in a worker, so both give the same numbers. A
 * series the core rejects (InvalidSeriesError) or declines becomes a reason; anything else is a bug and
 * is thrown.
 */
export function fitSeries(h: FitInput, a: PredictionAlgorithm, w: ForecastWindow): FitOutcome {
  try {
    const f = forecast(h, forecastConfig(a, w, h.timestamps[h.timestamps.length - 1] as number), { now: w.nowS, seed: seedOf(h.labels) });
    if (f.samples.length === 0) return { reason: f.reason ?? 'no prediction' };
    // What is published must be a number an HPA can use: a fit that yields anything else says so in the
    // TSP's condition and publishes nothing (spec-bounds.ts refuses the settings known to cause it).
    const unusable = f.samples.find((s) => !(Number.isFinite(s.value) && s.value >= 0));
    if (unusable) return { reason: `the forecast is not a finite number ≥ 0 (${unusable.value} at ${unusable.timestamp}); nothing was published` };
    return {
      timestamps: f.samples.map((s) => s.timestamp),
      values: f.samples.map((s) => s.value),
      ...(f.calibration ? { calibration: f.calibration } : {}),
      ...(f.reason !== undefined ? { note: f.reason } : {}),
    };
  } catch (e) {
    if (!(e instanceof InvalidSeriesError)) throw e;
    return { reason: e.message };
  }
}

/** The forecaster's answer from its fitted series: them or, with nothing to show, an error saying why (so the TSP condition does). */
export function collectForecasts(out: ForecastSeries[], reasons: readonly string[]): ForecastSeries[] {
  if (out.length === 0 && reasons.length > 0) throw new Error([...new Set(reasons)].join('; '));
  return out;
}

/** A fit's columns under the history series' labels, with its calibration and remark when it has them. */
export function forecastSeries(
  labels: Record<string, string>,
  fit: { timestamps: ArrayLike<number>; values: ArrayLike<number>; calibration?: CalibrationSummary; note?: string },
): ForecastSeries {
  return {
    labels,
    timestamps: Array.from(fit.timestamps),
    values: Array.from(fit.values),
    ...(fit.calibration ? { calibration: fit.calibration } : {}),
    ...(fit.note !== undefined ? { note: fit.note } : {}),
  };
}

export class CoreForecaster implements Forecaster {
  historyWindow(a: PredictionAlgorithm): { lengthSeconds: number; stepSeconds: number } {
    return historyWindowOf(a);
  }

  forecast(history: HistorySeries[], a: PredictionAlgorithm, w: ForecastWindow, options?: { signal?: AbortSignal }): ForecastSeries[] {
    const out: ForecastSeries[] = [];
    const reasons: string[] = [];
    for (const h of history) {
      // In this thread a fit cannot be interrupted; a cancelled call at least stops between series.
      options?.signal?.throwIfAborted();
      if (h.timestamps.length === 0) continue;
      const fit = fitSeries(h, a, w);
      if ('reason' in fit) reasons.push(fit.reason);
      else out.push(forecastSeries(h.labels, fit));
    }
    return collectForecasts(out, reasons);
  }
}
