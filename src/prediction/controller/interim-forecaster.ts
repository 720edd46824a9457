// INTERIM forecaster, used until the real DSP/percentile forecasters (src/prediction/dsp, percentile) are
// wired in. It is deliberately simple and says so in its name:
//   dsp        → daily seasonal maximum: the value at t is the max of the same time of day over the last
//                (up to 7) days. Needs two days of history, like Crane's DSP needs two periods (§D.9);
//                with less it returns nothing and the TSP stays not ready, as Crane's does.
//   percentile → a constant: the p-th percentile of the history (nearest rank) × (1 + margin) / target
//                utilization (Crane's estimate shape, §E.2, without the histogram).
// History windows follow Crane's configuration rules (§D.5, §E.1).
import { parseDurationMs } from '../../config/duration.ts';
import type { PredictionAlgorithm } from '../../ehpa/types.ts';
import type { HistorySeries } from '../history/types.ts';
import type { ForecastWindow, Forecaster } from './forecaster.ts';

const DAY = 86_400;

function seconds(text: string | undefined): number | undefined {
  if (!text) return undefined;
  try {
    const ms = parseDurationMs(text);
    return ms > 0 ? ms / 1000 : undefined;
  } catch {
    return undefined;
  }
}

function num(text: string | undefined, def: number): number {
  if (!text) return def;
  const x = Number(text);
  return Number.isFinite(x) ? x : def;
}

export class InterimSeasonalForecaster implements Forecaster {
  historyWindow(a: PredictionAlgorithm): { lengthSeconds: number; stepSeconds: number } {
    if (a.algorithmType === 'percentile') {
      const step = seconds(a.percentile?.sampleInterval);
      const length = seconds(a.percentile?.historyLength);
      return step && length ? { lengthSeconds: length, stepSeconds: step } : { lengthSeconds: 7 * DAY, stepSeconds: 60 };
    }
    // Crane: sampleInterval <= 1h and historyLength >= 48h, else the whole block falls back to defaults.
    const step = seconds(a.dsp?.sampleInterval);
    const length = seconds(a.dsp?.historyLength);
    if (step && length && step <= 3600 && length >= 2 * DAY) return { lengthSeconds: length, stepSeconds: step };
    return { lengthSeconds: 15 * DAY, stepSeconds: 60 };
  }

  forecast(history: HistorySeries[], a: PredictionAlgorithm, w: ForecastWindow): HistorySeries[] {
    const { stepSeconds } = this.historyWindow(a);
    const end = w.nowS + w.horizonSeconds;
    return a.algorithmType === 'percentile'
      ? history.flatMap((h) => this.percentile(h, a, w.nowS, end, stepSeconds))
      : history.flatMap((h) => this.seasonal(h, end, stepSeconds));
  }

  private percentile(h: HistorySeries, a: PredictionAlgorithm, nowS: number, end: number, step: number): HistorySeries[] {
    if (h.values.length === 0) return [];
    const p = a.percentile;
    const sorted = [...h.values].sort((x, y) => x - y);
    const q = num(p?.percentile, 0.99);
    const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
    const value = ((sorted[rank] as number) * (1 + num(p?.marginFraction, 0))) / num(p?.targetUtilization, 1);
    const timestamps: number[] = [];
    for (let t = Math.floor(nowS / step) * step; t < end; t += step) timestamps.push(t);
    return [{ labels: h.labels, timestamps, values: timestamps.map(() => value) }];
  }

  private seasonal(h: HistorySeries, end: number, step: number): HistorySeries[] {
    const n = h.timestamps.length;
    if (n < 2) return [];
    const first = h.timestamps[0] as number;
    const last = h.timestamps[n - 1] as number;
    if (last - first < 2 * DAY - step) return [];
    const byTime = new Map<number, number>();
    for (let i = 0; i < n; i++) byTime.set(Math.round((h.timestamps[i] as number) / step) * step, h.values[i] as number);
    const timestamps: number[] = [];
    const values: number[] = [];
    const t0 = Math.round(last / step) * step + step;
    for (let t = t0; t <= end + step; t += step) {
      let best = -Infinity;
      for (let d = 1; d <= 7; d++) {
        const v = byTime.get(t - d * DAY);
        if (v !== undefined && v > best) best = v;
      }
      // Past the last whole day of history, repeat the forecast itself one day later.
      if (best === -Infinity) {
        const i = timestamps.indexOf(t - DAY);
        if (i >= 0) best = values[i] as number;
      }
      if (best === -Infinity) continue;
      timestamps.push(t);
      values.push(best);
    }
    return timestamps.length ? [{ labels: h.labels, timestamps, values }] : [];
  }
}
