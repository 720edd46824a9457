// The prediction core's one entry point for the prediction controller and the `forecast` command: a pure
// function of the history, the configuration and the injected time and seed. No I/O, no clock.
import { DAY_SECONDS, WEEK_SECONDS } from './dsp/signal.ts';
import { dspForecast, type EstimatorMode, type ForecastSample } from './dsp/forecast.ts';
import { InvalidSeriesError } from './dsp/preprocess.ts';
import { DEFAULT_SHORT_HORIZON } from './dsp/short-horizon.ts';
import type { CraneEstimatorSpec } from './dsp/crane-estimators.ts';
import { DEFAULT_VALUE_SETTINGS, type CalibrationSummary, type ValueSettings } from './dsp/window-calibration.ts';
import {
  DEFAULT_PERCENTILE_CONFIG,
  DEFAULT_PERCENTILE_HISTORY_SECONDS,
  percentileEstimate,
  type PercentileConfig,
} from './percentile/percentile-forecast.ts';

import { formatGoFixed5 } from './go-format.ts';
import type { PredictionSample } from '../api/prediction.ts';

export { formatGoFixed5 } from './go-format.ts';
export {
  dspSettingsFromSpec,
  percentileSettingsFromSpec,
  type DspSettings,
  type PercentileSettings,
} from './crane-config.ts';
export { InvalidSeriesError } from './dsp/preprocess.ts';
export type { ForecastSample, EstimatorMode } from './dsp/forecast.ts';
export type { CraneEstimatorSpec } from './dsp/crane-estimators.ts';
export { DEFAULT_CRANE_ESTIMATORS } from './dsp/crane-estimators.ts';
export type { PercentileConfig } from './percentile/percentile-forecast.ts';
export type { CalibrationSummary } from './dsp/window-calibration.ts';
export { realizedCoverage, type KeptForecast, type RealizedCoverage } from './dsp/window-coverage.ts';

export const DEFAULT_DSP_HISTORY_SECONDS = 15 * DAY_SECONDS;

export interface ForecastHistory {
  /** Unix seconds, ascending. */
  timestamps: ArrayLike<number>;
  values: ArrayLike<number>;
}

export interface ForecastConfig {
  algorithm: 'dsp' | 'percentile';
  sampleIntervalSeconds: number;
  /** Default: 15 days for dsp, 7 days for percentile (Crane's defaults). */
  historySeconds?: number;
  /** dsp default: Crane's horizon (one period per history period); percentile default: 1 hour. */
  horizonSeconds?: number;
  /**
   * dsp only; default `auto` (it beats `crane` on the held-out evaluation, BENCHMARKS.md). Use `crane` with
   * `craneEstimators` for Crane's exact behaviour, e.g. when an EHPA lists its own estimators.
   */
  estimators?: EstimatorMode;
  /** dsp `crane` mode estimator list; default Crane's eight FFT estimators. */
  craneEstimators?: readonly CraneEstimatorSpec[];
  percentile?: Partial<PercentileConfig>;
  /** dsp `auto` without a period: longest flat forecast returned (default 2h); only when `coverage` is null. */
  shortHorizonMaxSeconds?: number;
  /**
   * dsp `auto`: probability that the forecast's maximum over the prediction window covers the actual maximum
   * (docs/forecast-evaluation.md). Default 0.9 (DEFAULT_COVERAGE_TARGET); null turns the calibration off.
   */
  coverage?: number | null;
  /** The prediction window the coverage is about, seconds. Default: half the horizon (the TSP asks for two windows), else 1h. */
  coverageWindowSeconds?: number;
  /**
   * dsp `auto` with calibration: the extra cost, as a share, the user accepts over a plain HPA that is as short,
   * when judging whether the forecast pays (DEFAULT_VALUE_SETTINGS otherwise; docs/forecast-evaluation.md).
   */
  acceptExtraCost?: number;
}

/** Default probability that `auto`'s window maximum covers the actual one. */
export const DEFAULT_COVERAGE_TARGET = 0.9;

export interface ForecastContext {
  /** Unix seconds; history after it is ignored. */
  now: number;
  /** Seeds period detection's permutation test. */
  seed: number;
}

export interface Forecast {
  period: '24h' | '168h' | null;
  estimator: string | null;
  backtest: Record<string, unknown>;
  /** Starting one interval after the last history sample used. */
  samples: ForecastSample[];
  reason?: string;
  /** dsp `auto` with calibration: which forecast was scaled by which multiplier, and its backtest coverage. */
  calibration?: CalibrationSummary;
}

function periodLabel(seconds: number | null): Forecast['period'] {
  return seconds === DAY_SECONDS ? '24h' : seconds === WEEK_SECONDS ? '168h' : null;
}

function upTo(history: ForecastHistory, now: number): { timestamps: number[]; values: number[] } {
  const timestamps: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < history.timestamps.length; i++) {
    const t = history.timestamps[i] as number;
    if (t > now) break;
    timestamps.push(t);
    values.push(history.values[i] as number);
  }
  return { timestamps, values };
}

/**
 * Forecasts a series. Throws InvalidSeriesError when the history cannot be regularized (out of order, off
 * the sample grid, empty); returns an empty `samples` with a `reason` when the algorithm declines.
 */
export function forecast(history: ForecastHistory, config: ForecastConfig, context: ForecastContext): Forecast {
  const interval = config.sampleIntervalSeconds;
  if (!(interval > 0) || !Number.isInteger(interval)) throw new RangeError('sample interval must be a whole number of seconds');
  const series = upTo(history, context.now);
  if (series.timestamps.length === 0) throw new InvalidSeriesError('no history samples at or before now');
  if (config.algorithm === 'percentile') {
    const historySeconds = config.historySeconds ?? DEFAULT_PERCENTILE_HISTORY_SECONDS;
    const last = series.timestamps[series.timestamps.length - 1] as number;
    const from = last - historySeconds;
    const recent = series.values.filter((_, i) => (series.timestamps[i] as number) >= from);
    const pc = { ...DEFAULT_PERCENTILE_CONFIG, ...config.percentile };
    const value = percentileEstimate(recent, pc);
    const count = Math.floor((config.horizonSeconds ?? 3600) / interval);
    const samples: ForecastSample[] = [];
    for (let i = 1; i <= count; i++) samples.push({ timestamp: last + i * interval, value });
    return {
      period: null,
      estimator: `percentile p${pc.percentile} margin ${pc.marginFraction} target utilization ${pc.targetUtilization}`,
      backtest: {},
      samples,
    };
  }
  const result = dspForecast(
    series,
    {
      intervalSeconds: interval,
      historySeconds: config.historySeconds ?? DEFAULT_DSP_HISTORY_SECONDS,
      horizonSeconds: config.horizonSeconds ?? null,
      estimators: config.estimators ?? 'auto',
      nowSeconds: context.now,
      ...(config.shortHorizonMaxSeconds !== undefined
        ? { shortHorizon: { ...DEFAULT_SHORT_HORIZON, maxHorizonSeconds: config.shortHorizonMaxSeconds } }
        : {}),
      ...(config.craneEstimators ? { craneEstimators: config.craneEstimators } : {}),
      calibration: calibrationOf(config),
    },
    context.seed,
  );
  return {
    period: periodLabel(result.periodSeconds),
    estimator: result.estimator,
    backtest: result.backtest,
    samples: result.samples,
    ...(result.reason !== undefined ? { reason: result.reason } : {}),
    ...(result.calibration ? { calibration: result.calibration } : {}),
  };
}

/** The window-maximum calibration `auto` runs (none in crane mode or with `coverage: null`). */
export function calibrationOf(config: ForecastConfig): { target: number; windowSeconds: number; value: ValueSettings } | null {
  if ((config.estimators ?? 'auto') !== 'auto' || config.coverage === null) return null;
  const target = config.coverage ?? DEFAULT_COVERAGE_TARGET;
  if (!(target > 0 && target < 1)) throw new RangeError(`coverage must be in (0, 1), got ${target}`);
  const windowSeconds = config.coverageWindowSeconds ?? (config.horizonSeconds ? config.horizonSeconds / 2 : 3600);
  if (!(windowSeconds > 0)) throw new RangeError('coverage window must be positive');
  const acceptExtraCost = config.acceptExtraCost ?? DEFAULT_VALUE_SETTINGS.acceptExtraCost;
  if (!(acceptExtraCost >= 0 && Number.isFinite(acceptExtraCost))) throw new RangeError(`accepted extra cost must be a finite share ≥ 0, got ${acceptExtraCost}`);
  return { target, windowSeconds, value: { ...DEFAULT_VALUE_SETTINGS, acceptExtraCost } };
}

/** TSP status samples (docs/crane-behaviour.md §D.10): values as Go `%.5f` text, timestamps in unix seconds. */
export function toPredictionSamples(samples: readonly ForecastSample[]): PredictionSample[] {
  return samples.map((s) => ({ value: formatGoFixed5(s.value), timestamp: s.timestamp }));
}
