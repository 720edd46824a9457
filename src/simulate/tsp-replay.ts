// The TimeSeriesPrediction side of a what-if replay: the forecast the prediction controller would hold at
// each instant of a recorded history. It refreshes on the controller's rule (when the status no longer
// covers [now, now + window], src/prediction/controller/tsp-reconciler.ts), forecasts [now, now + 2·window]
// from the history up to now with src/prediction, and keeps the status in the same shape (metricStatus), so
// the adapter's window-max code (src/metric-values/forecast-window.ts) reads it unchanged. Pure: time comes in.
import type { PredictionAlgorithm } from '../api/prediction.ts';
import { POD_CPU_USAGE_IDENTIFIER } from '../api/names.ts';
import {
  dspSettingsFromSpec,
  forecast,
  InvalidSeriesError,
  percentileSettingsFromSpec,
  type ForecastConfig,
} from '../prediction/index.ts';
import { metricStatus, windowInSamples } from '../prediction/controller/tsp-status.ts';
import type { PredictionMetricStatus } from '../api/prediction.ts';
import { maxForecastInWindow, type ForecastResult } from '../metric-values/forecast-window.ts';
import { stepAsideReason } from '../prediction/controller/calibration-status.ts';

export interface Series {
  /** Unix seconds, ascending. */
  timestamps: readonly number[];
  values: readonly number[];
}

/** How the server would configure the forecaster for an EHPA's algorithm block. */
export interface ForecastPlan {
  config: ForecastConfig;
  /** History the controller fetches, and its step (Crane's historyLength and sampleInterval). */
  historySeconds: number;
  stepSeconds: number;
  /** Crane falls back to its default settings when the block does not parse; this says why. */
  settingsError?: string;
}

/**
 * Crane's configuration rules (src/prediction/crane-config.ts). DSP uses Crane's estimators when the EHPA
 * lists its own, the `auto` set otherwise (the forecaster's default, see ForecastConfig.estimators).
 * Undefined for an algorithm type the server has no predictor for (the TSP then never becomes ready).
 */
export function forecastPlan(algorithm: PredictionAlgorithm, estimators?: 'crane' | 'auto'): ForecastPlan | undefined {
  if (algorithm.algorithmType === 'percentile') {
    const { settings, error } = percentileSettingsFromSpec(algorithm.percentile);
    return {
      config: {
        algorithm: 'percentile',
        sampleIntervalSeconds: settings.intervalSeconds,
        historySeconds: settings.historySeconds,
        percentile: settings.config,
      },
      historySeconds: settings.historySeconds,
      stepSeconds: settings.intervalSeconds,
      ...(error ? { settingsError: error } : {}),
    };
  }
  if (algorithm.algorithmType !== 'dsp') return undefined;
  const { settings, error } = dspSettingsFromSpec(algorithm.dsp);
  const listed = (algorithm.dsp?.estimators?.maxValue?.length ?? 0) + (algorithm.dsp?.estimators?.fft?.length ?? 0) > 0;
  return {
    config: {
      algorithm: 'dsp',
      sampleIntervalSeconds: settings.intervalSeconds,
      historySeconds: settings.historySeconds,
      // `estimators` forces a mode (the simulate table compares both); Crane's list then stays the EHPA's or the default.
      estimators: estimators ?? (listed && !error ? 'crane' : 'auto'),
      ...(listed && !error ? { craneEstimators: settings.craneEstimators } : {}),
    },
    historySeconds: settings.historySeconds,
    stepSeconds: settings.intervalSeconds,
    ...(error ? { settingsError: error } : {}),
  };
}

/** Index of the last timestamp <= t, or -1. */
export function lastIndexAtOrBefore(timestamps: readonly number[], t: number): number {
  let lo = 0;
  let hi = timestamps.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((timestamps[mid] as number) <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Prometheus' default lookback: an instant value is the newest sample at most 5 minutes old. */
export const LOOKBACK_SECONDS = 300;

/**
 * What a Prometheus range query with this step returns for the recorded series: one point per grid time in
 * [start, end], the newest sample at or before it within the lookback, none where the data has a hole.
 */
export function rangeQuery(series: Series, start: number, end: number, step: number): { timestamps: number[]; values: number[] } {
  const timestamps: number[] = [];
  const values: number[] = [];
  let i = lastIndexAtOrBefore(series.timestamps, start);
  for (let t = start; t <= end; t += step) {
    while (i + 1 < series.timestamps.length && (series.timestamps[i + 1] as number) <= t) i++;
    if (i < 0) continue;
    if (t - (series.timestamps[i] as number) > LOOKBACK_SECONDS) continue;
    timestamps.push(t);
    values.push(series.values[i] as number);
  }
  return { timestamps, values };
}

export interface RefreshOutcome {
  ready: boolean;
  /** Why the forecast is not ready (no period found, too little history, …). */
  error?: string;
  period?: string | null;
  estimator?: string | null;
  /** auto mode judged the forecast not worth serving (PredictionPays): why. The metric serves 0 (the HPA scales as a plain one). */
  stepAside?: string;
}

export interface TspReplayOptions {
  history: Series;
  plan: ForecastPlan | undefined;
  windowSeconds: number;
  seed: number;
  /**
   * After a failed forecast, wait this long before trying again. The controller retries every 30 s; the
   * answer rarely changes that fast and each try costs a full forecast, so the replay spaces them out.
   */
  retrySeconds: number;
  /** serve's --prediction-pays: enforce (default) steps aside where auto mode's forecast does not pay. */
  predictionPays?: 'enforce' | 'observe';
}

export class TspReplay {
  private status: PredictionMetricStatus | undefined;
  private lastFailureS: number | undefined;
  refreshes = 0;
  failedRefreshes = 0;
  lastOutcome: RefreshOutcome | undefined;

  constructor(private readonly o: TspReplayOptions) {}

  /** The controller's freshness rule: every series reaches the end of [now, now + window]. */
  private upToDate(nowS: number): boolean {
    const p = this.status?.prediction;
    if (!p || p.length === 0) return false;
    return p.every((s) => windowInSamples(s.samples.map((x) => x.timestamp), nowS + this.o.windowSeconds));
  }

  /** Brings the status up to date at `nowS` like a reconcile would; returns the outcome when it refreshed. */
  advance(nowS: number): RefreshOutcome | undefined {
    if (this.upToDate(nowS)) return undefined;
    if (this.lastFailureS !== undefined && nowS - this.lastFailureS < this.o.retrySeconds) return undefined;
    const outcome = this.refresh(nowS);
    this.refreshes++;
    if (!outcome.ready) {
      this.failedRefreshes++;
      this.lastFailureS = nowS;
    } else this.lastFailureS = undefined;
    this.lastOutcome = outcome;
    return outcome;
  }

  private refresh(nowS: number): RefreshOutcome {
    const w = this.o.windowSeconds;
    const notReady = (error: string, extra: Partial<RefreshOutcome> = {}): RefreshOutcome => {
      this.status = { resourceIdentifier: POD_CPU_USAGE_IDENTIFIER, ready: false, prediction: [] };
      return { ready: false, error, ...extra };
    };
    const plan = this.o.plan;
    if (!plan) return notReady('no predictor for this algorithmType');
    const end = Math.floor(nowS / plan.stepSeconds) * plan.stepSeconds;
    const history = rangeQuery(this.o.history, end - plan.historySeconds, end, plan.stepSeconds);
    if (history.timestamps.length === 0) return notReady('no history returned by the query');
    let result;
    try {
      // The controller asks for two windows; auto calibrates its maximum over one window (crane ignores it).
      result = forecast(history, { ...plan.config, horizonSeconds: 2 * w, coverageWindowSeconds: w }, { now: nowS, seed: this.o.seed });
    } catch (e) {
      if (e instanceof InvalidSeriesError) return notReady(e.message);
      throw e;
    }
    const series = result.samples.length
      ? [{ labels: {}, timestamps: result.samples.map((s) => s.timestamp), values: result.samples.map((s) => s.value) }]
      : [];
    this.status = metricStatus(POD_CPU_USAGE_IDENTIFIER, series, nowS, nowS + 2 * w, nowS + w);
    // The controller's rule, through the same function: auto mode serves only a forecast shown to pay.
    const auto = plan.config.algorithm === 'dsp' && plan.config.estimators === 'auto';
    const stepAside = auto && series.length && (this.o.predictionPays ?? 'enforce') === 'enforce'
      ? stepAsideReason({ resourceIdentifier: POD_CPU_USAGE_IDENTIFIER, auto, series: [{ ...(result.calibration ? { calibration: result.calibration } : {}), ...(result.reason !== undefined ? { note: result.reason } : {}) }] })
      : undefined;
    if (stepAside) this.status.stepAside = stepAside;
    const about = { period: result.period, estimator: result.estimator, ...(stepAside ? { stepAside } : {}) };
    if (this.status.ready) return { ready: true, ...about };
    return { ready: false, error: result.reason ?? (series.length ? 'forecast does not cover the window' : 'the algorithm found no prediction in the history'), ...about };
  }

  /** Whether the forecast in force stepped aside (the metric serves 0 instead). */
  get steppedAside(): boolean {
    return !!this.status?.ready && this.status.stepAside !== undefined;
  }

  /** What the adapter serves: the largest forecast in [now, now + window] (float32, as Crane reads it). */
  windowMax(nowS: number): ForecastResult {
    if (!this.status?.ready) {
      return { ok: false, problem: { reason: 'NotReady', message: this.lastOutcome?.error ?? 'TimeSeriesPrediction is not ready' } };
    }
    // Stepped aside: the adapter serves its neutral value (simulate.ts feeds STEPPED_ASIDE_VALUE).
    if (this.status.stepAside) return { ok: false, problem: { reason: 'NotReady', message: `stepped aside: ${this.status.stepAside}` } };
    return maxForecastInWindow(this.status, nowS * 1000, this.o.windowSeconds);
  }

  /** The forecast for instant `nowS` itself (newest sample at or before it), for plots. */
  pointAt(nowS: number): number | undefined {
    const samples = this.status?.ready ? this.status.prediction?.[0]?.samples : undefined;
    if (!samples?.length) return undefined;
    const i = lastIndexAtOrBefore(samples.map((s) => s.timestamp), nowS);
    if (i < 0) return undefined;
    return Number.parseFloat((samples[i] as { value: string }).value);
  }
}
