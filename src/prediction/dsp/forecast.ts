// Forecast assembly (docs/crane-behaviour.md §D.9): preprocess the history, find a daily or weekly period, choose an estimator
// by backtest, forecast one period and repeat it over the horizon, starting one interval after the last
// sample. `crane` reproduces Crane (no period, no forecast); `auto` keeps Crane's period only when it predicts
// the data out of sample (period-confirmation.ts), uses the wider estimator set and, without a period, still
// returns a short flat forecast with the reason.
import { autoFoldForecasts, autoForecastOnePeriod, estimateOnePeriod, DEFAULT_AUTO_CONFIG, PrefixSpectra, type AutoConfig, type AutoSelection } from './auto-selection.ts';
import { craneEstimatorName, DEFAULT_CRANE_ESTIMATORS, type CraneEstimatorSpec } from './crane-estimators.ts';
import { craneForecastOnePeriod } from './crane-selection.ts';
import { findPeriod } from './period.ts';
import {
  DEFAULT_PERIOD_CONFIRMATION,
  findConfirmedPeriod,
  periodName,
  type PeriodConfirmation,
  type PeriodConfirmationConfig,
} from './period-confirmation.ts';
import { preprocess, type TimeSeries } from './preprocess.ts';
import { DEFAULT_SHORT_HORIZON, recentQuantileLevel, type ShortHorizonConfig } from './short-horizon.ts';
import { truncateToPeriods, type Signal } from './signal.ts';
import { calibrateOrExplain, type CalibrationConfig, type CalibrationInput, type CalibrationSummary } from './window-calibration.ts';

export type EstimatorMode = 'crane' | 'auto';

export interface DspForecastConfig {
  intervalSeconds: number;
  /** History used (Crane: 15 days, plus one hour of slack as Crane fetches). */
  historySeconds: number;
  /** Samples to return; null gives Crane's horizon, the period forecast repeated once per history period. */
  horizonSeconds: number | null;
  estimators: EstimatorMode;
  /** Unix seconds; the history window ends at now truncated to the interval. Default: the last sample. */
  nowSeconds?: number;
  craneEstimators?: readonly CraneEstimatorSpec[];
  auto?: AutoConfig;
  shortHorizon?: ShortHorizonConfig;
  /** `auto` only: the out-of-sample check on Crane's period. */
  periodConfirmation?: PeriodConfirmationConfig;
  /**
   * `auto` only: calibrate the forecast's window maximum to cover the actual one with this probability
   * (window-calibration.ts). Absent or null: the uncalibrated auto forecast (flat fallback at most
   * `shortHorizon.maxHorizonSeconds` long).
   */
  calibration?: CalibrationConfig | null;
}

export interface ForecastSample {
  /** Unix seconds. */
  timestamp: number;
  value: number;
}

export interface DspForecast {
  /** Seconds (86400 or 604800), null when none was found. */
  periodSeconds: number | null;
  estimator: string | null;
  backtest: Record<string, unknown>;
  samples: ForecastSample[];
  /** Why the forecast is empty or not periodic. */
  reason?: string;
  /** `auto` with calibration: the method and multiplier chosen and what they achieved on the backtest. */
  calibration?: CalibrationSummary;
}

function repeatOverHorizon(onePeriod: Float64Array, count: number, firstTimestamp: number, interval: number): ForecastSample[] {
  const out: ForecastSample[] = new Array(count);
  for (let i = 0; i < count; i++) {
    out[i] = { timestamp: firstTimestamp + i * interval, value: onePeriod[i % onePeriod.length] as number };
  }
  return out;
}

/**
 * Keeps the samples Crane would have fetched: [end - history - 1h, end] with end = now truncated to the
 * interval (now defaults to the last sample).
 */
function historyWindow(ts: TimeSeries, historySeconds: number, interval: number, now: number | undefined): TimeSeries {
  const n = ts.timestamps.length;
  if (n === 0) return ts;
  const endRaw = now ?? (ts.timestamps[n - 1] as number);
  const end = endRaw - (((endRaw % interval) + interval) % interval);
  const from = end - historySeconds - 3600;
  let i = 0;
  while (i < n && (ts.timestamps[i] as number) < from) i++;
  return {
    timestamps: Array.prototype.slice.call(ts.timestamps, i) as number[],
    values: Array.prototype.slice.call(ts.values, i) as number[],
  };
}

/** Everything an auto forecast needs before calibration; crane mode returns its forecast directly. */
type AutoFit =
  | { kind: 'flat'; values: Float64Array; first: number; period: number | null; reason: string; backtest: Record<string, unknown> }
  | {
      kind: 'periodic';
      values: Float64Array;
      first: number;
      period: number;
      whole: Signal;
      periods: number;
      selection: AutoSelection;
      onePeriod: Float64Array;
      result: DspForecast;
      /** The backtest folds' spectra, shared by the selection and the calibration's models. */
      spectra: PrefixSpectra;
    };

export function dspForecast(history: TimeSeries, config: DspForecastConfig, seed: number): DspForecast {
  const fit = fitDsp(history, config, seed);
  return 'kind' in fit ? finishAuto(fit, config, config.calibration ?? null) : fit;
}

/**
 * Auto mode calibrated for several windows from one fit (period detection and estimator selection run
 * once): the same forecasts as dspForecast with `calibration` set to each entry, in order.
 */
export function dspForecastCalibrations(
  history: TimeSeries,
  config: DspForecastConfig,
  seed: number,
  calibrations: readonly (CalibrationConfig | null)[],
): DspForecast[] {
  if (config.estimators !== 'auto') throw new RangeError('calibration is an auto-mode feature');
  const fit = fitDsp(history, config, seed);
  return calibrations.map((c) => ('kind' in fit ? finishAuto(fit, config, c) : fit));
}

function fitDsp(history: TimeSeries, config: DspForecastConfig, seed: number): DspForecast | AutoFit {
  const interval = config.intervalSeconds;
  const windowed = historyWindow(history, config.historySeconds, interval, config.nowSeconds);
  const regular = preprocess(windowed, interval);
  const lastTimestamp = regular.start + (regular.values.length - 1) * interval;
  const first = lastTimestamp + interval;
  const signal: Signal = { sampleRate: 1.0 / interval, samples: regular.values };
  let period: number | null = null;
  let confirmationRecord: Record<string, unknown> = {};
  let rejected = '';
  if (regular.values.length > 0) {
    if (config.estimators === 'crane') period = findPeriod(signal, seed);
    else {
      const cc = config.periodConfirmation ?? DEFAULT_PERIOD_CONFIRMATION;
      const found = findConfirmedPeriod(signal, seed, cc);
      period = found.periodSeconds;
      if (found.confirmation) {
        confirmationRecord = { periodConfirmation: confirmationSummary(found.cranePeriodSeconds, found.confirmation, cc) };
        if (!found.confirmation.confirmed) {
          rejected = `: Crane's detector found ${periodName(found.cranePeriodSeconds)}, but it predicts the held-back periods no better than a flat forecast (skill ${found.confirmation.skill.toFixed(3)} < ${cc.minSkill})`;
        }
      }
    }
  }
  const truncated = period ? truncateToPeriods(signal, period) : null;
  if (!period || !truncated || truncated.periods < 2) {
    const reason = !period
      ? `no daily or weekly period in the history${rejected}`
      : `fewer than 2 whole periods of ${period / 3600}h in the history`;
    return config.estimators === 'crane'
      ? { periodSeconds: period, estimator: null, backtest: {}, samples: [], reason }
      : { kind: 'flat', values: regular.values, first, period, reason, backtest: confirmationRecord };
  }
  const { signal: whole, periods } = truncated;
  const horizonCount = (per: number) =>
    config.horizonSeconds === null ? per * periods : Math.floor(config.horizonSeconds / interval);

  if (config.estimators === 'crane') {
    const specs = config.craneEstimators ?? DEFAULT_CRANE_ESTIMATORS;
    const result = craneForecastOnePeriod(specs, whole, periods, period);
    if (!result) return { periodSeconds: period, estimator: null, backtest: {}, samples: [], reason: 'no estimator could be scored' };
    const names = specs.map(craneEstimatorName);
    return {
      periodSeconds: period,
      estimator: craneEstimatorName(result.estimator),
      backtest: {
        method: 'crane asymmetric MAPE on the last period',
        periods,
        errors: result.selection.errors.map((e, i) => ({ estimator: names[i], error: e?.value ?? null, kind: e?.kind ?? null })),
      },
      samples: repeatOverHorizon(result.values, horizonCount(result.values.length), first, interval),
    };
  }
  const spectra = new PrefixSpectra(whole);
  const auto = autoForecastOnePeriod(whole, periods, period, config.auto ?? DEFAULT_AUTO_CONFIG, spectra);
  const sel = auto.selection;
  const result: DspForecast = {
    periodSeconds: period,
    estimator:
      sel.name +
      (sel.smoothingHalfWidth > 0 ? ` + moving max ±${sel.smoothingHalfWidth}` : '') +
      (sel.margin > 0 ? ` + margin ${Number(sel.margin.toPrecision(6))}` : ''),
    backtest: {
      method: `fewest under-predicted points on the last period within Crane's over-provisioning + ${(config.auto ?? DEFAULT_AUTO_CONFIG).overProvisionBudget} points`,
      periods,
      underPredictedPercent: sel.under,
      overProvisionPercent: sel.over,
      margin: sel.margin,
      crane: { estimator: sel.crane.estimator, underPredictedPercent: sel.crane.under, overProvisionPercent: sel.crane.over },
      ...confirmationRecord,
    },
    samples: repeatOverHorizon(auto.values, horizonCount(auto.values.length), first, interval),
  };
  return { kind: 'periodic', values: regular.values, first, period, whole, periods, selection: sel, onePeriod: auto.values, result, spectra };
}

/** Backtest periods the calibration refits the chosen model on (the last week of a daily period). */
const CALIBRATION_FOLDS = 7;

/** The models the calibration weighs (periodic fits only), built once per fit however many windows are calibrated. */
const calibrationModels = new WeakMap<AutoFit, CalibrationInput['models']>();

function modelsOf(fit: AutoFit): CalibrationInput['models'] {
  const known = calibrationModels.get(fit);
  if (known) return known;
  const models: { name: string; backtest: Float64Array; onePeriod: Float64Array }[] = [];
  if (fit.kind === 'periodic') {
    const per = fit.onePeriod.length;
    const offset = fit.values.length - fit.periods * per;
    const aligned = (folds: (Float64Array | undefined)[]) => {
      const backtest = new Float64Array(fit.values.length).fill(NaN);
      folds.forEach((f, k) => f && backtest.set(f, offset + k * per));
      return backtest;
    };
    // The shape auto selected, and Crane's own FFT choice (its multiplicative margin is absorbed by the
    // calibration; its shape is often the smoother one).
    models.push({ name: 'model', backtest: aligned(autoFoldForecasts(fit.whole, fit.periods, fit.period, fit.selection, CALIBRATION_FOLDS, fit.spectra)), onePeriod: fit.onePeriod });
    const crane = { estimator: fit.selection.craneSpec, smoothingHalfWidth: 0, margin: 0 };
    models.push({
      name: 'crane shape',
      backtest: aligned(autoFoldForecasts(fit.whole, fit.periods, fit.period, crane, CALIBRATION_FOLDS, fit.spectra)),
      onePeriod: estimateOnePeriod(fit.selection.craneSpec, fit.whole, fit.period, fit.spectra),
    });
  }
  calibrationModels.set(fit, models);
  return models;
}

function calibrationInput(fit: AutoFit, config: DspForecastConfig, calibration: CalibrationConfig): CalibrationInput {
  const interval = config.intervalSeconds;
  // Periodic: Crane's horizon (or the asked one); without a period, the asked horizon or two windows.
  const horizonSeconds =
    config.horizonSeconds ?? (fit.kind === 'periodic' ? fit.result.samples.length * interval : 2 * calibration.windowSeconds);
  const horizon = Math.floor(horizonSeconds / interval);
  return { values: fit.values, intervalSeconds: interval, periodSeconds: fit.kind === 'periodic' ? fit.period : null, horizon, models: modelsOf(fit) };
}

/**
 * What calibrateWindowMax is given for each of `calibrations` on one auto fit, the timestamp of the
 * forecast's first sample and the uncalibrated forecast: bench/calibration-replay.ts records these once and replays variants of the
 * calibration on them without refitting.
 */
export function dspCalibrationInputs(
  history: TimeSeries,
  config: DspForecastConfig,
  seed: number,
  calibrations: readonly CalibrationConfig[],
): { first: number; inputs: CalibrationInput[]; uncalibrated: DspForecast } {
  if (config.estimators !== 'auto') throw new RangeError('calibration is an auto-mode feature');
  const fit = fitDsp(history, config, seed);
  if (!('kind' in fit)) throw new Error('an auto fit always yields a flat or periodic fit');
  // The uncalibrated forecast is what is served when the calibration has too little history (null).
  return { first: fit.first, inputs: calibrations.map((c) => calibrationInput(fit, config, c)), uncalibrated: finishAuto(fit, config, null) };
}

/**
 * What `auto` serves never exceeds this multiple of the largest value in the history it was fitted on
 * (nor falls below 0): a forecast is a guess about load this workload has shown, and room to grow by half
 * again beyond its peak. A larger rise is the reactive CPU metric's to follow, which the HPA keeps beside
 * the forecast. Crane mode is not bounded (it stays Crane's, bit for bit).
 */
export const HISTORY_BOUND_FACTOR = 1.5;

/** The forecast with every value in [0, HISTORY_BOUND_FACTOR × the history's peak], and a remark when one was moved. */
export function boundedByHistory(f: DspForecast, history: Float64Array): DspForecast {
  let peak = 0;
  for (const v of history) if (v > peak) peak = v;
  const bound = HISTORY_BOUND_FACTOR * peak;
  let moved = 0;
  const samples = f.samples.map((s) => {
    const value = s.value > bound ? bound : s.value < 0 ? 0 : s.value;
    if (value !== s.value) moved++;
    return value === s.value ? s : { timestamp: s.timestamp, value };
  });
  if (moved === 0) return f;
  const remark = `${moved} of ${samples.length} forecast values held within [0, ${HISTORY_BOUND_FACTOR} × the history's peak ${Number(peak.toPrecision(6))}]`;
  return { ...f, samples, reason: f.reason ? `${f.reason}; ${remark}` : remark };
}

function finishAuto(fit: AutoFit, config: DspForecastConfig, calibration: CalibrationConfig | null): DspForecast {
  return boundedByHistory(finishAutoUnbounded(fit, config, calibration), fit.values);
}

function finishAutoUnbounded(fit: AutoFit, config: DspForecastConfig, calibration: CalibrationConfig | null): DspForecast {
  const interval = config.intervalSeconds;
  if (!calibration) {
    return fit.kind === 'flat' ? shortHorizon(fit.values, fit.first, config, fit.period, fit.reason, fit.backtest) : fit.result;
  }
  const calibrated = calibrateOrExplain(calibrationInput(fit, config, calibration), calibration);
  const base = fit.kind === 'flat' ? shortHorizon(fit.values, fit.first, config, fit.period, fit.reason, fit.backtest) : fit.result;
  if ('reason' in calibrated) {
    return { ...base, reason: `${base.reason ? `${base.reason}; ` : ''}${calibrated.reason}: uncalibrated` };
  }
  const c = calibrated.summary;
  const samples: ForecastSample[] = Array.from(calibrated.values, (value, i) => ({ timestamp: fit.first + i * interval, value }));
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  return {
    periodSeconds: base.periodSeconds,
    estimator: `${c.method.replace(/\bmodel\b/, base.estimator ?? 'model').replace('crane shape', fit.kind === 'periodic' ? fit.selection.crane.estimator : 'crane shape')} × ${Number(c.multiplier.toPrecision(4))}`,
    backtest: {
      ...base.backtest,
      calibration: {
        rule: `window maximum over ${config.intervalSeconds * Math.max(1, Math.round(calibration.windowSeconds / interval))}s calibrated by split-conformal multiplier for ${pct(c.target)} coverage`,
        ...c,
      },
    },
    samples,
    ...(fit.kind === 'flat'
      ? { reason: `${fit.reason}: ${c.method} × ${Number(c.multiplier.toPrecision(4))} (backtest coverage ${pct(c.backtestCoverage)}, slack ${pct(c.backtestSlack)})` }
      : {}),
    calibration: c,
  };
}

function confirmationSummary(crane: number | null, c: PeriodConfirmation, cc: PeriodConfirmationConfig): Record<string, unknown> {
  return {
    method: `1 - MAE(last period's profile) / MAE(last period's mean), ${cc.binSeconds / 60}-minute means, each whole period forecast from the one before`,
    cranePeriod: periodName(crane),
    skill: c.skill,
    minSkill: cc.minSkill,
    folds: c.folds,
    confirmed: c.confirmed,
  };
}

function shortHorizon(
  values: Float64Array,
  first: number,
  config: DspForecastConfig,
  period: number | null,
  why: string,
  backtest: Record<string, unknown>,
): DspForecast {
  const sh = config.shortHorizon ?? DEFAULT_SHORT_HORIZON;
  const level = recentQuantileLevel(values, config.intervalSeconds, sh);
  const wanted = config.horizonSeconds ?? sh.maxHorizonSeconds;
  const count = Number.isNaN(level) ? 0 : Math.floor(Math.min(wanted, sh.maxHorizonSeconds) / config.intervalSeconds);
  const samples: ForecastSample[] = [];
  for (let i = 0; i < count; i++) samples.push({ timestamp: first + i * config.intervalSeconds, value: level });
  return {
    periodSeconds: period,
    estimator: `flat P${Math.round(sh.quantile * 100)} of the last ${sh.lookbackSeconds / 3600}h`,
    backtest,
    samples,
    reason: `${why}: flat short-horizon forecast (at most ${sh.maxHorizonSeconds / 3600}h)`,
  };
}
