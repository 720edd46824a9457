// The value a forecast contributes to scaling: the largest predicted point inside the prediction window,
// as Crane's metric adapter computes it (docs/crane-behaviour.md §C.2, §C.3). Pure: `nowMs` comes in.
import type { PredictionMetricStatus, TimeSeriesPrediction } from '../api/prediction.ts';

export type ForecastProblem =
  | { reason: 'NotReady'; message: string }
  | { reason: 'NoSeries'; message: string }
  | { reason: 'Outdated'; message: string };

export type ForecastResult = { ok: true; largest: number } | { ok: false; problem: ForecastProblem };

/**
 * The series of `resourceIdentifier` that Crane's GetReadyPredictionMetric accepts: the entry must be
 * ready and hold exactly one predicted series.
 */
export function readyPredictionSeries(
  tsp: TimeSeriesPrediction,
  resourceIdentifier: string,
): { ok: true; metric: PredictionMetricStatus } | { ok: false; problem: ForecastProblem } {
  const metric = tsp.status?.predictionMetrics?.find((m) => m.resourceIdentifier === resourceIdentifier);
  if (!metric || (metric.prediction?.length ?? 0) !== 1) {
    return { ok: false, problem: { reason: 'NoSeries', message: `TimeSeries not matched, resourceIdentifier ${resourceIdentifier}` } };
  }
  if (!metric.ready) {
    return { ok: false, problem: { reason: 'NotReady', message: `TimeSeries is not ready, resourceIdentifier ${resourceIdentifier}` } };
  }
  return { ok: true, metric };
}

/**
 * Maximum sample value with timestamp in [now, now + window] (unix seconds, both ends inclusive), read at
 * float32 precision as Crane's ParseFloat(s, 32) does. Unlike Crane, a window whose samples are all ≤ 0
 * yields 0 rather than "outdated": a forecast of zero is still a forecast.
 */
export function maxForecastInWindow(
  metric: PredictionMetricStatus,
  nowMs: number,
  windowSeconds: number,
): ForecastResult {
  const now = Math.floor(nowMs / 1000);
  const end = now + windowSeconds;
  let largest = -Infinity;
  for (const s of metric.prediction?.[0]?.samples ?? []) {
    if (s.timestamp < now || s.timestamp > end) continue;
    const v = Math.fround(Number.parseFloat(s.value));
    if (Number.isFinite(v) && v > largest) largest = v;
  }
  if (largest === -Infinity) {
    return { ok: false, problem: { reason: 'Outdated', message: `TimeSeries is outdated: no forecast point in [${now}, ${end}]` } };
  }
  return { ok: true, largest: Math.max(0, largest) };
}

/**
 * The first forecast point at or after now (unix seconds), as craned's `crane_prediction_tsp` publishes it
 * (§C.6): its value read at float64 as Crane does there, and its own, future, timestamp. Unlike Crane, a
 * point whose value is not a finite number is skipped (Crane skips only unparseable ones and exports NaN),
 * and a negative value is 0 (usage cannot be negative; the window maximum never goes below 0 either).
 */
export function nextForecastPoint(metric: PredictionMetricStatus, nowMs: number): { value: number; timestampMs: number } | undefined {
  const now = Math.floor(nowMs / 1000);
  let best: { value: number; timestamp: number } | undefined;
  // One pass, not a sort: statuses are written in time order, but a sort would cost n log n per scrape.
  for (const s of metric.prediction?.[0]?.samples ?? []) {
    if (s.timestamp < now || (best && s.timestamp >= best.timestamp)) continue;
    const v = Number.parseFloat(s.value);
    if (Number.isFinite(v)) best = { value: Math.max(0, v), timestamp: s.timestamp };
  }
  return best && { value: best.value, timestampMs: best.timestamp * 1000 };
}

/** Crane v0.2–v0.7: each available pod gets round(total × 1000 / pods) millicores (§C.3). */
export function perPodMillis(totalCores: number, availablePods: number): number {
  if (availablePods <= 0) throw new RangeError('no available pods to split the forecast over');
  return Math.round((totalCores * 1000) / availablePods);
}
