// One metric's forecast in a TSP pass, the parts that need no I/O: under which key it is cached, when it
// is refitted, what a fit leaves in the cache, and the metric's status and calibration from it.
import type { PredictionAlgorithm } from '../../api/prediction.ts';
import type { ForecastSeries } from './forecaster.ts';
import { metricStatus, trimForecast, type MetricOutcome } from './tsp-status.ts';
import { stepAsideReason, type MetricCalibration } from './calibration-status.ts';
import { keepForecast, REALIZED_LOOKBACK_SECONDS } from './realized-coverage.ts';
import type { CachedForecast } from './tsp-key-state.ts';

/** auto mode's settings for a TSP: they change its forecast, so they are part of the cache key. */
export interface AutoSettings {
  coverage: number;
  acceptExtraCost: number;
}

/** A forecast is reused only for the same metric, query and algorithm block (and auto mode's settings). */
export function forecastCacheKey(resourceIdentifier: string, query: string, algorithm: PredictionAlgorithm, auto: boolean, s: AutoSettings): string {
  return `${resourceIdentifier}\u0000${query}\u0000${JSON.stringify(algorithm)}\u0000${auto ? `${s.coverage}\u0000${s.acceptExtraCost}` : ''}`;
}

/** A cached forecast is rebuilt when it no longer reaches the end of the horizon or has reached its age limit. */
export function refitDue(cached: CachedForecast, nowS: number, horizonEndS: number, maxAgeMs: number): boolean {
  return cached.coversUntilS < horizonEndS || nowS * 1000 - cached.builtAtMs > maxAgeMs;
}

/** A metric with no forecast: not ready, and why (in the Ready and Calibrated conditions). */
export function failedOutcome(resourceIdentifier: string, auto: boolean, error: string): MetricOutcome {
  return { status: { resourceIdentifier, ready: false, prediction: [] }, error, calibration: { resourceIdentifier, auto, series: [], error } };
}

/**
 * What a fit leaves in the cache. Only what a status can show before the next refit is kept: Crane's DSP
 * horizon is the whole history length (15 days = 21,600 samples a series at 60 s), which at thousands of
 * TSPs held gigabytes (serve died of heap exhaustion at 5,000 EHPAs before this trim).
 */
export function builtForecast(previous: CachedForecast | undefined, fitted: readonly ForecastSeries[], o: { nowS: number; windowSeconds: number; maxAgeMs: number; modelUpdateIntervalMs: number }): CachedForecast {
  const series = fitted.map((s) => trimForecast(s, o.nowS + o.maxAgeMs / 1000 + 2 * o.windowSeconds));
  const coversUntilS = series.length ? Math.min(...series.map((s) => (s.timestamps.length ? (s.timestamps[s.timestamps.length - 1] as number) : -Infinity))) : -Infinity;
  // A forecast stays in force until the next refit: at most the model update interval, or until it runs out.
  const spanSeconds = REALIZED_LOOKBACK_SECONDS + o.modelUpdateIntervalMs / 1000 + o.windowSeconds;
  const kept = keepForecast(previous?.kept ?? [], series, o.nowS, { spanSeconds });
  return { builtAtMs: o.nowS * 1000, series, coversUntilS, kept, ...(previous?.realized ? { realized: previous.realized } : {}) };
}

/**
 * The metric's status over [now, now + 2·window] from its forecast, with what auto mode's calibration chose.
 * auto mode steps aside where its forecast does not pay against a plain HPA (the adapter then serves the
 * observed value); the forecast stays in the status for anyone to watch.
 */
export function forecastOutcome(cached: CachedForecast, o: { resourceIdentifier: string; auto: boolean; nowS: number; windowSeconds: number; enforcePays: boolean }): MetricOutcome {
  const rid = o.resourceIdentifier;
  const status = metricStatus(rid, cached.series, o.nowS, o.nowS + 2 * o.windowSeconds, o.nowS + o.windowSeconds);
  const none = cached.series.length ? undefined : 'the algorithm found no prediction in the history';
  const calibration: MetricCalibration = {
    resourceIdentifier: rid,
    auto: o.auto,
    series: cached.series.map((s) => ({ ...(s.calibration ? { calibration: s.calibration } : {}), ...(s.note !== undefined ? { note: s.note } : {}) })),
    ...(none ? { error: none } : {}),
  };
  const declined = o.enforcePays ? stepAsideReason(calibration) : undefined;
  if (declined) status.stepAside = declined;
  return status.ready ? { status, calibration } : { status, calibration, error: none ?? 'forecast does not cover the window' };
}
