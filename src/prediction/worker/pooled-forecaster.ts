// The controller's Forecaster with every fit in the worker pool: the same per-series fit and the same
// answer as CoreForecaster, but the calling thread only copies columns into Float64Arrays and back.
// A series that overruns the fit budget, or a worker that dies, fails the whole call with that reason
// (which the TSP's Ready condition shows); its sibling fits are then cancelled, not left to run.
import type { PredictionAlgorithm } from '../../api/prediction.ts';
import type { HistorySeries } from '../../prometheus/series.ts';
import { collectForecasts, forecastSeries, historyWindowOf } from '../controller/core-forecaster.ts';
import type { ForecastSeries, ForecastWindow, Forecaster } from '../controller/forecaster.ts';
import type { ForecastPool } from './forecast-pool.ts';

export class PooledForecaster implements Forecaster {
  constructor(private readonly pool: ForecastPool) {}

  historyWindow(a: PredictionAlgorithm): { lengthSeconds: number; stepSeconds: number } {
    return historyWindowOf(a);
  }

  async forecast(history: HistorySeries[], algorithm: PredictionAlgorithm, window: ForecastWindow, options?: { signal?: AbortSignal; tenant?: string }): Promise<ForecastSeries[]> {
    options?.signal?.throwIfAborted();
    const series = history.filter((h) => h.timestamps.length > 0);
    // One signal for this call's fits: the caller's cancellation, or the first failure among them.
    const siblings = new AbortController();
    const onAbort = () => siblings.abort(options?.signal?.reason);
    options?.signal?.addEventListener('abort', onAbort, { once: true });
    let failure: Error | undefined;
    try {
      const fits = await Promise.allSettled(
        series.map((h) =>
          this.pool
            .fit({ labels: h.labels, timestamps: Float64Array.from(h.timestamps), values: Float64Array.from(h.values), algorithm, window }, siblings.signal, options?.tenant)
            .catch((e: Error) => {
              failure ??= e;
              siblings.abort(e);
              throw e;
            }),
        ),
      );
      if (failure) throw failure;
      const out: ForecastSeries[] = [];
      const reasons: string[] = [];
      fits.forEach((r, i) => {
        if (r.status !== 'fulfilled') return;
        const v = r.value;
        if ('reason' in v) reasons.push(v.reason);
        else out.push(forecastSeries((series[i] as HistorySeries).labels, v));
      });
      return collectForecasts(out, reasons);
    } finally {
      options?.signal?.removeEventListener('abort', onAbort);
    }
  }
}
