// TimeSeriesPrediction controller (docs/crane-behaviour.md §D.2): when a TSP's status no longer
// covers [now, now + window], fetch history, forecast [now, now + 2·window], write the status. Forecasts
// are cached per (TSP, metric, query, algorithm) and reused while they still cover the horizon, so a
// refresh costs Prometheus queries only when the model is due. Prometheus failures become a not-ready
// condition; they never throw out of the loop.
import type { Logger } from 'pino';
import { resourcePath } from '../../kube/api-client.ts';
import type { CacheReader } from '../../kube/informers.ts';
import type { StatusWriter } from '../../kube/status-writer.ts';
import { metricQuery } from '../history/queries.ts';
import type { HistoryProvider, HistorySeries } from '../../prometheus/series.ts';
import { TSP_API_VERSION, TSP_PLURAL, type PredictionMetricSpec, type TimeSeriesPrediction } from '../../api/prediction.ts';
import type { Forecaster } from './forecaster.ts';
import { buildTspStatus, metricStatus, statusUpToDate, type MetricOutcome } from './tsp-status.ts';

export interface TspReconcilerDeps {
  tsps: CacheReader<TimeSeriesPrediction>;
  history: HistoryProvider;
  forecaster: Forecaster;
  status: Pick<StatusWriter, 'update'>;
  log: Logger;
  now?: () => number;
  /** Crane's --prediction-update-frequency-duration (30 s): how often a TSP is re-checked. */
  updateFrequencyMs: number;
  /** Crane's --model-update-interval (12 h): a cached forecast older than this is rebuilt from fresh history. */
  modelUpdateIntervalMs: number;
}

interface CachedForecast {
  builtAtMs: number;
  series: HistorySeries[];
  /** Last forecast timestamp common to every series (unix s). */
  coversUntilS: number;
}

export class TspReconciler {
  private readonly now: () => number;
  private readonly forecasts = new Map<string, CachedForecast>();
  /** Generation whose spec produced the current status, so a spec change refreshes at once. */
  private readonly computedGeneration = new Map<string, number | undefined>();

  constructor(private readonly d: TspReconcilerDeps) {
    this.now = d.now ?? Date.now;
  }

  /** Number of cached forecasts (metrics, tests). */
  cachedForecasts(): number {
    return this.forecasts.size;
  }

  async reconcile(key: string): Promise<{ requeueAfterMs?: number }> {
    const [namespace, name] = key.split('/') as [string, string];
    const tsp = this.d.tsps.get(namespace, name);
    if (!tsp) {
      for (const k of this.forecasts.keys()) if (k.startsWith(`${key}\u0000`)) this.forecasts.delete(k);
      this.computedGeneration.delete(key);
      return {};
    }
    const requeue = { requeueAfterMs: this.d.updateFrequencyMs };
    const nowMs = this.now();
    const nowS = Math.floor(nowMs / 1000);
    const sameSpec = this.computedGeneration.has(key) && this.computedGeneration.get(key) === tsp.metadata.generation;
    if (sameSpec && statusUpToDate(tsp, nowS)) return requeue;
    if (!this.computedGeneration.has(key) && statusUpToDate(tsp, nowS) && tsp.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) {
      // Written by a previous leader for this spec: trust it until it runs out.
      this.computedGeneration.set(key, tsp.metadata.generation);
      return requeue;
    }
    const log = this.d.log.child({ namespace, name });
    const window = tsp.spec.predictionWindowSeconds;
    const outcomes: MetricOutcome[] = [];
    for (const m of tsp.spec.predictionMetrics ?? []) {
      outcomes.push(await this.predictMetric(key, tsp, m, nowS, window, log));
    }
    const path = resourcePath(TSP_API_VERSION, TSP_PLURAL, namespace, name);
    await this.d.status.update(path, tsp, (obj) => buildTspStatus(obj, outcomes, nowMs));
    this.computedGeneration.set(key, tsp.metadata.generation);
    return requeue;
  }

  private async predictMetric(key: string, tsp: TimeSeriesPrediction, m: PredictionMetricSpec, nowS: number, window: number, log: Logger): Promise<MetricOutcome> {
    const rid = m.resourceIdentifier;
    const algorithm = m.algorithm ?? {};
    const horizonEnd = nowS + 2 * window;
    try {
      const query = metricQuery(tsp, m);
      const cacheKey = `${key}\u0000${rid}\u0000${query}\u0000${JSON.stringify(algorithm)}`;
      let cached = this.forecasts.get(cacheKey);
      const nowMs = nowS * 1000;
      if (!cached || cached.coversUntilS < horizonEnd || nowMs - cached.builtAtMs > this.d.modelUpdateIntervalMs) {
        const { lengthSeconds, stepSeconds } = this.d.forecaster.historyWindow(algorithm);
        const end = Math.floor(nowS / stepSeconds) * stepSeconds;
        const history = await this.d.history.queryRange(query, end - lengthSeconds, end, stepSeconds);
        const usable = history.filter((h) => h.values.length > 0);
        if (usable.length === 0) {
          return { status: { resourceIdentifier: rid, ready: false, prediction: [] }, error: 'no history returned by the query' };
        }
        const series = await this.d.forecaster.forecast(usable, algorithm, { nowS, horizonSeconds: 2 * window });
        const coversUntilS = series.length ? Math.min(...series.map((s) => (s.timestamps.length ? (s.timestamps[s.timestamps.length - 1] as number) : -Infinity))) : -Infinity;
        cached = { builtAtMs: nowMs, series, coversUntilS };
        this.forecasts.set(cacheKey, cached);
        log.debug({ metric: rid, historySeries: usable.length, forecastSeries: series.length }, 'forecast built');
      }
      const status = metricStatus(rid, cached.series, nowS, horizonEnd, nowS + window);
      return status.ready ? { status } : { status, error: cached.series.length ? 'forecast does not cover the window' : 'the algorithm found no prediction in the history' };
    } catch (e) {
      log.warn({ metric: rid, err: (e as Error).message }, 'prediction failed');
      return { status: { resourceIdentifier: rid, ready: false, prediction: [] }, error: (e as Error).message };
    }
  }
}
