// One metric of a TSP pass, with its I/O: the cached forecast when it still serves, else a refit (history
// from Prometheus, the status-size bound, the realized coverage of what was published, the fit). It
// reports whether a refit failed; when that refit is tried again is the work queue's backoff (tsp-retry.ts).
import type { Logger } from 'pino';
import { BOUNDS } from '../../api/bounds.ts';
import type { PredictionMetricSpec, TimeSeriesPrediction } from '../../api/prediction.ts';
import type { UserPromqlPolicy } from '../../prometheus/promql-confine.ts';
import type { HistoryProvider } from '../../prometheus/series.ts';
import { metricQuery } from '../history/queries.ts';
import { NAMESPACED_PROMQL } from '../../prometheus/promql-confine.ts';
import { statusSizeProblem } from '../spec-bounds.ts';
import { calibratesWindowMax, fitSeriesCount, seriesToFit } from './algorithm-block.ts';
import type { Forecaster } from './forecaster.ts';
import { builtForecast, failedOutcome, forecastCacheKey, forecastOutcome, refitDue, type AutoSettings } from './metric-forecast.ts';
import { judgeKept, judgeStrideSeconds } from './realized-coverage.ts';
import { refitAgeMs } from './refit-spread.ts';
import type { CachedForecast } from './tsp-key-state.ts';
import type { MetricOutcome } from './tsp-status.ts';

/** A metric's query answered with more series than the TSP's status can hold forecasts for: the pass stops. */
export class StatusTooLargeError extends Error {}

export interface MetricPredictorDeps {
  history: HistoryProvider;
  forecaster: Forecaster;
  modelUpdateIntervalMs: number;
  refitSpread?: number;
  userPromql?: UserPromqlPolicy;
  /** False only reports whether a forecast pays; true steps aside where it does not. */
  enforcePays: boolean;
}

/** One pass over a TSP, as its metrics see it. */
export interface MetricPass {
  tsp: TimeSeriesPrediction;
  nowS: number;
  windowSeconds: number;
  auto: AutoSettings;
  /** The TSP's cached forecasts, updated in place by refits. */
  cache: Map<string, CachedForecast>;
  /** Cache keys this pass asked for (the others belong to an older spec). */
  used: Set<string>;
  log: Logger;
  signal: AbortSignal;
}

export interface MetricResult {
  outcome: MetricOutcome;
  /** A refit ran and gave no ready forecast: the pass asks for the work queue's backoff. */
  refitFailed: boolean;
}

export class MetricPredictor {
  constructor(private readonly d: MetricPredictorDeps) {}

  /** `field` says where the metric is in the spec, `before` how many samples the metrics before it put in the status. */
  async predict(p: MetricPass, m: PredictionMetricSpec, field: string, before: number): Promise<MetricResult> {
    const rid = m.resourceIdentifier;
    let query: string | undefined;
    try {
      query = metricQuery(p.tsp, m, this.d.userPromql ?? NAMESPACED_PROMQL);
      return await this.fromCacheOrRefit(p, m, query, field, before);
    } catch (e) {
      if (e instanceof StatusTooLargeError) throw e;
      const outcome = failedOutcome(rid, calibratesWindowMax(m.algorithm ?? {}), (e as Error).message);
      if (p.signal.aborted) return { outcome, refitFailed: false };
      p.log.warn({ metric: rid, err: (e as Error).message }, 'prediction failed');
      // A refusal before any query (e.g. another namespace's target) costs nothing to repeat: no backoff.
      return { outcome, refitFailed: query !== undefined };
    }
  }

  private async fromCacheOrRefit(p: MetricPass, m: PredictionMetricSpec, query: string, field: string, before: number): Promise<MetricResult> {
    const rid = m.resourceIdentifier;
    const algorithm = m.algorithm ?? {};
    const auto = calibratesWindowMax(algorithm);
    const key = forecastCacheKey(rid, query, algorithm, auto, p.auto);
    p.used.add(key);
    const maxAgeMs = refitAgeMs(`${p.tsp.metadata.namespace}/${p.tsp.metadata.name}\u0000${rid}`, this.d.modelUpdateIntervalMs, this.d.refitSpread);
    let cached = p.cache.get(key);
    const refitted = !cached || refitDue(cached, p.nowS, p.nowS + 2 * p.windowSeconds, maxAgeMs);
    if (refitted) {
      const fresh = await this.refit(p, m, query, field, before, cached, maxAgeMs);
      if ('error' in fresh) return { outcome: failedOutcome(rid, auto, fresh.error), refitFailed: true };
      p.cache.set(key, (cached = fresh));
    }
    const outcome = forecastOutcome(cached as CachedForecast, { resourceIdentifier: rid, auto, nowS: p.nowS, windowSeconds: p.windowSeconds, enforcePays: this.d.enforcePays });
    // A refit that left a forecast short of the window (or none at all) is shown as it is, and tried again with the backoff.
    return { outcome, refitFailed: refitted && !outcome.status.ready };
  }

  private async refit(p: MetricPass, m: PredictionMetricSpec, query: string, field: string, before: number, previous: CachedForecast | undefined, maxAgeMs: number): Promise<CachedForecast | { error: string }> {
    const algorithm = m.algorithm ?? {};
    const { lengthSeconds, stepSeconds } = this.d.forecaster.historyWindow(algorithm);
    const end = Math.floor(p.nowS / stepSeconds) * stepSeconds;
    const history = await this.d.history.queryRange(query, end - lengthSeconds, end, stepSeconds, { signal: p.signal, maxSeries: BOUNDS.seriesPerQuery });
    const usable = history.filter((h) => h.values.length > 0);
    if (usable.length === 0) return { error: 'no history returned by the query' };
    // The status-size bound from the series count alone, before merging or fitting anything.
    const tooBig = statusSizeProblem({ field: `${field} (${m.resourceIdentifier})`, series: fitSeriesCount(usable.length, algorithm), windowSeconds: p.windowSeconds, stepSeconds, before });
    if (tooBig) throw new StatusTooLargeError(tooBig);
    const toFit = seriesToFit(usable, algorithm);
    // The forecasts published so far against what happened, from the history this refit reads anyway.
    if (previous) previous.realized = judgeKept(previous.kept, toFit, { now: p.nowS, windowSeconds: p.windowSeconds, strideSeconds: judgeStrideSeconds(p.windowSeconds, stepSeconds) });
    const { coverage, acceptExtraCost } = p.auto;
    const window = { nowS: p.nowS, horizonSeconds: 2 * p.windowSeconds, coverage, coverageWindowSeconds: p.windowSeconds, acceptExtraCost };
    const fitted = await this.d.forecaster.forecast(toFit, algorithm, window, { signal: p.signal, tenant: p.tsp.metadata.namespace });
    const built = builtForecast(previous, fitted, { nowS: p.nowS, windowSeconds: p.windowSeconds, maxAgeMs, modelUpdateIntervalMs: this.d.modelUpdateIntervalMs });
    p.log.debug({ metric: m.resourceIdentifier, historySeries: usable.length, forecastSeries: built.series.length }, 'forecast built');
    return built;
  }
}
