// The controller's Forecaster backed by the prediction core (src/prediction/index.ts): Crane's
// configuration rules for the history window, the DSP forecaster (`auto` estimator selection, or Crane's
// exact estimators when the algorithm block lists its own) and the percentile estimate.
import type { PredictionAlgorithm } from '../../api/prediction.ts';
import { dspSettingsFromSpec, forecast, InvalidSeriesError, percentileSettingsFromSpec, type ForecastConfig } from '../index.ts';
import { labelKey, type HistorySeries } from '../../prometheus/series.ts';
import type { ForecastWindow, Forecaster } from './forecaster.ts';

/** Stable per-series seed for period detection's permutation test, so a forecast is reproducible. */
function seedOf(labels: Record<string, string>): number {
  let h = 2166136261;
  for (const ch of labelKey(labels)) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h;
}

export class CoreForecaster implements Forecaster {
  historyWindow(a: PredictionAlgorithm): { lengthSeconds: number; stepSeconds: number } {
    const s = a.algorithmType === 'percentile' ? percentileSettingsFromSpec(a.percentile).settings : dspSettingsFromSpec(a.dsp).settings;
    return { lengthSeconds: s.historySeconds, stepSeconds: s.intervalSeconds };
  }

  private config(a: PredictionAlgorithm, w: ForecastWindow, lastTs: number): ForecastConfig {
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
    const own = (a.dsp?.estimators?.fft?.length ?? 0) + (a.dsp?.estimators?.maxValue?.length ?? 0) > 0;
    return {
      algorithm: 'dsp',
      sampleIntervalSeconds: settings.intervalSeconds,
      historySeconds: settings.historySeconds,
      // Crane's horizon (one period per history period) is days long, so one model serves many refreshes.
      estimators: own ? 'crane' : 'auto',
      ...(own ? { craneEstimators: settings.craneEstimators } : {}),
    };
  }

  forecast(history: HistorySeries[], a: PredictionAlgorithm, w: ForecastWindow): HistorySeries[] {
    const out: HistorySeries[] = [];
    const reasons: string[] = [];
    for (const h of history) {
      if (h.timestamps.length === 0) continue;
      try {
        const f = forecast(h, this.config(a, w, h.timestamps[h.timestamps.length - 1] as number), { now: w.nowS, seed: seedOf(h.labels) });
        if (f.samples.length === 0) {
          reasons.push(f.reason ?? 'no prediction');
          continue;
        }
        out.push({ labels: h.labels, timestamps: f.samples.map((s) => s.timestamp), values: f.samples.map((s) => s.value) });
      } catch (e) {
        if (!(e instanceof InvalidSeriesError)) throw e;
        reasons.push(e.message);
      }
    }
    // Nothing to show: say why, so the TSP condition does.
    if (out.length === 0 && reasons.length > 0) throw new Error([...new Set(reasons)].join('; '));
    return out;
  }
}
