// The real forecasters behind the TSP controller's `Forecaster` seam (src/prediction/controller/forecaster.ts):
// Crane's DSP (or our `auto` estimators) and Crane's percentile algorithm, configured from the TSP's
// algorithm block with Crane's parsing and fall-back rules (crane-config.ts). Pure apart from the seam.
import type { PredictionAlgorithm } from '../ehpa/types.ts';
import type { ForecastWindow, Forecaster } from './controller/forecaster.ts';
import { dspSettingsFromSpec, percentileSettingsFromSpec } from './crane-config.ts';
import { InvalidSeriesError } from './dsp/preprocess.ts';
import type { HistorySeries } from './history/types.ts';
import { forecast, type EstimatorMode } from './index.ts';
import { percentileEstimate } from './percentile/percentile-forecast.ts';

export interface AlgorithmForecasterOptions {
  /**
   * DSP estimators when the algorithm block lists none: `auto` (default; beats Crane's on held-out data,
   * BENCHMARKS.md) or `crane`. A block that lists estimators always gets exactly those, Crane's way.
   */
  estimators?: EstimatorMode;
  /** Seed of period detection's permutation test. */
  seed?: number;
}

export class AlgorithmForecaster implements Forecaster {
  private readonly estimators: EstimatorMode;
  private readonly seed: number;

  constructor(options: AlgorithmForecasterOptions = {}) {
    this.estimators = options.estimators ?? 'auto';
    this.seed = options.seed ?? 1;
  }

  historyWindow(algorithm: PredictionAlgorithm): { lengthSeconds: number; stepSeconds: number } {
    if (algorithm.algorithmType === 'percentile') {
      const { settings } = percentileSettingsFromSpec(algorithm.percentile);
      return { lengthSeconds: settings.historySeconds, stepSeconds: settings.intervalSeconds };
    }
    const { settings } = dspSettingsFromSpec(algorithm.dsp);
    // Crane fetches one extra hour: [end - history - 1h, end] (spec §D.6).
    return { lengthSeconds: settings.historySeconds + 3600, stepSeconds: settings.intervalSeconds };
  }

  forecast(history: HistorySeries[], algorithm: PredictionAlgorithm, window: ForecastWindow): HistorySeries[] {
    return algorithm.algorithmType === 'percentile' ? this.percentile(history, algorithm, window) : this.dsp(history, algorithm, window);
  }

  private dsp(history: HistorySeries[], algorithm: PredictionAlgorithm, window: ForecastWindow): HistorySeries[] {
    const { settings } = dspSettingsFromSpec(algorithm.dsp);
    const listed = (algorithm.dsp?.estimators?.fft?.length ?? 0) + (algorithm.dsp?.estimators?.maxValue?.length ?? 0) > 0;
    const out: HistorySeries[] = [];
    for (const h of history) {
      try {
        const f = forecast(
          h,
          {
            algorithm: 'dsp',
            sampleIntervalSeconds: settings.intervalSeconds,
            historySeconds: settings.historySeconds,
            estimators: listed ? 'crane' : this.estimators,
            craneEstimators: settings.craneEstimators,
            // The flat fallback outlives one refresh by an hour, so the controller does not refetch
            // 15 days of history every minute for a series without a period.
            shortHorizonMaxSeconds: window.horizonSeconds + 3600,
          },
          { now: window.nowS, seed: this.seed },
        );
        if (f.samples.length === 0) continue;
        out.push({ labels: h.labels, timestamps: f.samples.map((s) => s.timestamp), values: f.samples.map((s) => s.value) });
      } catch (e) {
        // Crane drops a series that fails preprocessing (off-grid or unordered timestamps) and goes on.
        if (!(e instanceof InvalidSeriesError)) throw e;
      }
    }
    return out;
  }

  private percentile(history: HistorySeries[], algorithm: PredictionAlgorithm, window: ForecastWindow): HistorySeries[] {
    const { settings } = percentileSettingsFromSpec(algorithm.percentile);
    const step = settings.intervalSeconds;
    // Crane's QueryPredictedTimeSeries: a constant from now truncated to the interval, end exclusive.
    const end = window.nowS + window.horizonSeconds;
    const timestamps: number[] = [];
    for (let t = Math.floor(window.nowS / step) * step; t < end; t += step) timestamps.push(t);
    const constant = (labels: Record<string, string>, values: number[]): HistorySeries => {
      const v = percentileEstimate(values, settings.config);
      return { labels, timestamps, values: timestamps.map(() => v) };
    };
    // aggregated: one histogram over every series (Crane's "__all__" key); else one per label set.
    if (settings.aggregated) return [constant({}, history.flatMap((h) => h.values))];
    return history.map((h) => constant(h.labels, h.values));
  }
}
