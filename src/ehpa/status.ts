// The EHPA status a reconcile wants to write (docs/crane-behaviour.md §A.2, §B.1). Unlike Crane,
// a condition keeps its lastTransitionTime while its status is unchanged, so an unchanged reconcile
// writes nothing, and lastScaleTime follows the HPA in Auto mode too (Crane leaves it unset, §A.2).
import type { HorizontalPodAutoscaler } from '../api/autoscaling.ts';
import { boundedMessage, metaTime, upsertCondition, type Condition } from '../api/meta.ts';
import type { EffectiveHorizontalPodAutoscaler, EhpaStatus } from '../api/ehpa.ts';
import type { TimeSeriesPrediction } from '../api/prediction.ts';
import { stepsAside, type ForecastValue } from '../metric-values/forecast-value.ts';

export const READY = 'Ready';
export const PREDICTION_READY = 'PredictionReady';
/** Mirrors the TSP's condition of that name (prediction/controller/calibration-status.ts). */
export const PREDICTION_PAYS = 'PredictionPays';
/** True while the adapter answers predicted CPU (crane_pod_cpu_usage, or crane_autoscaling_prediction resource.cpu) from observed usage because the forecast is unusable. */
export const PREDICTION_FALLBACK = 'PredictionFallback';
/** Whether every metric the EHPA predicts got a forecast query; False names each one left on its original. */
export const METRICS_PREDICTED = 'MetricsPredicted';
export const READY_REASON = 'EffectiveHorizontalPodAutoscalerReady';
export const READY_MESSAGE = 'Effective HPA is ready';


export interface StatusInput {
  ehpa: EffectiveHorizontalPodAutoscaler;
  nowMs: number;
  /** Ready=True, or why not. */
  failure?: { reason: string; message: string };
  /** Observed backing HPA (from the cache or the last write). */
  hpa?: HorizontalPodAutoscaler;
  /** Observed TSP, when prediction is on. */
  tsp?: TimeSeriesPrediction;
  /** Overrides the HPA's currentReplicas (scaling disabled: 0; after a manual scale: the scale's replicas). */
  currentReplicas?: number;
  /** Set when this reconcile scaled the target through /scale (Preview with specificReplicas). */
  scaledNow?: boolean;
  /**
   * Whether the forecast behind crane_pod_cpu_usage is usable now (the adapter's own test): present when the
   * backing HPA reads that metric, and turned into the PredictionFallback condition.
   */
  cpuForecast?: ForecastValue;
  /** The metric name the HPA reads that forecast under (default crane_pod_cpu_usage; --hpa-shape=head: crane_autoscaling_prediction). */
  cpuForecastMetric?: string;
  /** Metrics the EHPA asks to predict that get no forecast (no query, duplicate, over the bound); present
   *  when prediction is on, turned into the MetricsPredicted condition. */
  unpredicted?: readonly { reason: string; message: string }[];
}


// metav1.Condition requires a reason matching this pattern; HPA conditions always have one, but a copy
// from an object someone else wrote must not make our status write fail validation.
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

export function buildStatus(input: StatusInput): EhpaStatus {
  const { ehpa, nowMs, hpa, tsp } = input;
  const prev = ehpa.status;
  const preview = ehpa.spec.scaleStrategy === 'Preview';
  const out: EhpaStatus = {};
  const expect = hpa?.status?.desiredReplicas ?? prev?.expectReplicas;
  if (expect != null) out.expectReplicas = expect;
  const current = input.currentReplicas ?? hpa?.status?.currentReplicas ?? prev?.currentReplicas;
  if (current != null) out.currentReplicas = current;
  // In Preview the HPA only "scales" the Substitute, so its lastScaleTime says nothing about the target.
  const lastScale = input.scaledNow ? metaTime(nowMs) : preview ? prev?.lastScaleTime : (hpa?.status?.lastScaleTime ?? prev?.lastScaleTime);
  if (lastScale) out.lastScaleTime = lastScale;

  const conditions: Condition[] = [];
  const ready = input.failure
    ? { type: READY, status: 'False' as const, reason: input.failure.reason, message: input.failure.message }
    : { type: READY, status: 'True' as const, reason: READY_REASON, message: READY_MESSAGE };
  conditions.push(upsertCondition(prev?.conditions, ready, nowMs));
  const tspReady = tsp?.status?.conditions?.find((c) => c.type === 'Ready');
  if (tspReady?.reason && REASON.test(tspReady.reason)) {
    conditions.push(
      upsertCondition(prev?.conditions, { type: PREDICTION_READY, status: tspReady.status, reason: tspReady.reason, message: tspReady.message ?? '' }, nowMs),
    );
  }
  // auto mode's verdict on its own forecast, where the user looks: the EHPA.
  const tspPays = tsp?.status?.conditions?.find((c) => c.type === PREDICTION_PAYS);
  if (tspPays?.reason && REASON.test(tspPays.reason)) {
    conditions.push(upsertCondition(prev?.conditions, { type: PREDICTION_PAYS, status: tspPays.status, reason: tspPays.reason, message: tspPays.message ?? '' }, nowMs));
  }
  if (input.cpuForecast) {
    const f = input.cpuForecast;
    const name = input.cpuForecastMetric ?? 'crane_pod_cpu_usage';
    const fallback = f.ok
      ? { type: PREDICTION_FALLBACK, status: 'False' as const, reason: 'ForecastServed', message: `${name} is served from the forecast` }
      : {
          type: PREDICTION_FALLBACK,
          status: 'True' as const,
          reason: f.reason,
          message: stepsAside(f.reason)
            ? `${name} reads 0 while the forecast steps aside, so the HPA scales on its other metrics as a plain HPA would: ${f.message}`
            : `${name} falls back to observed usage (unless --prediction-fallback=unavailable): ${f.message}`,
        };
    conditions.push(upsertCondition(prev?.conditions, fallback, nowMs));
  }
  if (input.unpredicted) {
    const u = input.unpredicted;
    const c = u.length === 0
      ? { type: METRICS_PREDICTED, status: 'True' as const, reason: 'AllMetricsPredicted', message: 'every metric is predicted' }
      : { type: METRICS_PREDICTED, status: 'False' as const, reason: (u[0] as (typeof u)[number]).reason, message: u.map((x) => x.message).join('; ') };
    conditions.push(upsertCondition(prev?.conditions, c, nowMs));
  }
  for (const c of hpa?.status?.conditions ?? []) {
    if (c.type === READY || c.type === PREDICTION_READY || c.type === PREDICTION_PAYS || c.type === PREDICTION_FALLBACK || c.type === METRICS_PREDICTED || !c.reason || !REASON.test(c.reason)) continue;
    conditions.push({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: boundedMessage(c.message ?? ''),
      // The HPA's own transition time is the truthful one.
      lastTransitionTime: c.lastTransitionTime ?? upsertCondition(prev?.conditions, { ...c, reason: c.reason, message: c.message ?? '' }, nowMs).lastTransitionTime,
    });
  }
  out.conditions = conditions;
  return out;
}
