// The one place that decides what an HPA is served for a predicted metric, and why not: every served name
// (crane_pod_cpu_usage, crane_custom.pods_*, crane_external_*, crane_autoscaling_prediction), the exporter
// for prometheus-adapter and the EHPA's PredictionFallback condition call these functions, so they cannot
// disagree about "is this forecast usable". Pure: the TSPs and the time come in.
import type { EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import type { TimeSeriesPrediction } from '../api/prediction.ts';
import { maxForecastInWindow, readyPredictionSeries } from './forecast-window.ts';
import { toMilli } from './milli-quantity.ts';
import { resourceAliases, tspForTarget, type PredictionTarget } from './tsp-lookup.ts';

/**
 * Why a forecast is not served (the observed fallback, or the 503, says this reason). PredictionSteppedAside:
 * `auto` mode judged the forecast not worth its cost (value-replay.ts), so the metric serves
 * STEPPED_ASIDE_VALUE whatever --prediction-fallback says, and the HPA behaves as a plain one.
 */
export type ForecastReason = 'PredictionMissing' | 'PredictionNotReady' | 'PredictionOutdated' | 'PredictionSteppedAside';

/** Whether a reason is a decision not to serve the forecast (not a failure of it): the metric then serves STEPPED_ASIDE_VALUE. */
export function stepsAside(reason: ForecastReason): boolean {
  return reason === 'PredictionSteppedAside';
}

/**
 * What a metric whose forecast stepped aside serves: 0. The HPA scales to the largest count any of its metrics
 * asks for, and a metric at 0 asks for none, so the HPA scales exactly as a plain one on the EHPA's other
 * metrics. Serving the observed usage instead had the HPA take the larger of two readings of the same usage
 * (the CPU metric's whole-percent utilization and this metric's millicores, each with its own tolerance band):
 * 1-2 % more replica-hours than the plain HPA for no fewer short minutes (npm run eval:value).
 */
export const STEPPED_ASIDE_VALUE = 0;

export type ForecastValue = { ok: true; largest: number } | { ok: false; reason: ForecastReason; message: string };

const DEFAULT_WINDOW_SECONDS = 3600;

/**
 * The largest forecast of `rid` (or its alias) in [now, now + window] from one TSP, in the metric's own unit,
 * or why there is none. The window is the TSP's own (`fallbackWindowSeconds` when it has none).
 */
export function forecastValue(tsp: TimeSeriesPrediction, rid: string, nowMs: number, fallbackWindowSeconds = DEFAULT_WINDOW_SECONDS): ForecastValue {
  const prefix = `TimeSeriesPrediction ${tsp.metadata.namespace}/${tsp.metadata.name}: `;
  let first: { reason: ForecastReason; message: string } | undefined;
  for (const id of resourceAliases(rid)) {
    const series = readyPredictionSeries(tsp, id);
    if (!series.ok) {
      // A series that exists but is not ready says more than an alias that has none, whichever is asked first.
      if (series.problem.reason === 'NotReady') first = { reason: 'PredictionNotReady', message: prefix + series.problem.message };
      else first ??= { reason: 'PredictionMissing', message: prefix + series.problem.message };
      continue;
    }
    if (series.metric.stepAside) return { ok: false, reason: 'PredictionSteppedAside', message: `${prefix}the forecast of ${id} steps aside: ${series.metric.stepAside}` };
    const r = maxForecastInWindow(series.metric, nowMs, tsp.spec?.predictionWindowSeconds ?? fallbackWindowSeconds);
    if (r.ok) return r;
    return { ok: false, reason: 'PredictionOutdated', message: prefix + r.problem.message };
  }
  return { ok: false, ...(first as { reason: ForecastReason; message: string }) };
}

/** forecastValue for an EHPA from its TSPs (tsp-lookup.ts `tspsOfEhpa`): exactly one must exist. */
export function ehpaForecastValue(tsps: readonly TimeSeriesPrediction[], ehpa: EffectiveHorizontalPodAutoscaler, rid: string, nowMs: number): ForecastValue {
  if (tsps.length !== 1) {
    const ns = ehpa.metadata.namespace;
    const message = tsps.length === 0
      ? `no TimeSeriesPrediction for EffectiveHorizontalPodAutoscaler ${ns}/${ehpa.metadata.name}`
      : `only one TimeSeriesPrediction should match EffectiveHorizontalPodAutoscaler ${ns}/${ehpa.metadata.name}, found ${tsps.length}`;
    return { ok: false, reason: 'PredictionMissing', message };
  }
  return forecastValue(tsps[0] as TimeSeriesPrediction, rid, nowMs, ehpa.spec.prediction?.predictionWindowSeconds ?? DEFAULT_WINDOW_SECONDS);
}

export type PredictionAnswer =
  | { ok: true; milli: bigint; tsp: TimeSeriesPrediction }
  | { ok: false; status: 404; message: string }
  | { ok: false; status: 503; reason: ForecastReason; message: string; tsp: TimeSeriesPrediction };

/**
 * `crane_autoscaling_prediction{target…, resourceIdentifier}` at `nowMs` from one namespace's TSPs: the
 * forecastValue of the TSP that targets the workload, in milli. Unlike Crane the value is not truncated to an
 * integer (2.7 cores stays 2700m: truncation reads a CPU forecast under one core as zero); the float32
 * reading is trimmed back to float32's 7 significant digits so "2.70000" is 2700m, not 2701m.
 */
export function predictionAnswer(tsps: readonly TimeSeriesPrediction[], target: PredictionTarget, rid: string, nowMs: number): PredictionAnswer {
  const tsp = tspForTarget(tsps, target, rid);
  if (!tsp) return { ok: false, status: 404, message: `there is no TimeSeriesPrediction for ${target.kind} ${target.namespace}/${target.name}` };
  const v = forecastValue(tsp, rid, nowMs);
  if (!v.ok) return { ok: false, status: 503, reason: v.reason, message: v.message, tsp };
  return { ok: true, milli: toMilli(Number(v.largest.toPrecision(7))), tsp };
}
