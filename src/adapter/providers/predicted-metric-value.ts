// The value of one predicted metric of an EHPA (any resourceIdentifier: `resource.memory`,
// `container-resource.cpu`, `pods.<name>`, `external.<name>`, ...), shared by every name it is served under:
// the v0.6–v0.7 `crane_custom.pods_<name>` / `crane_external_<name>` and HEAD's `crane_autoscaling_prediction`.
// Same semantics as crane_pod_cpu_usage (pod-cpu-provider.ts): the largest forecast in the prediction
// window; while it is missing, not ready or stale, the observed value of the same query (reported with the
// reason), or 503 with --prediction-fallback=unavailable.
import { EHPA_UID_LABEL, type EffectiveHorizontalPodAutoscaler } from '../../api/ehpa.ts';
import type { LabelSelector } from '../../selectors/label-selector.ts';
import { tspsOfEhpa } from '../../metric-values/tsp-lookup.ts';
import type { TimeSeriesPrediction } from '../../api/prediction.ts';
import { observedQueryFor } from '../../ehpa/observed-query.ts';
import { PREDICTION_METRIC } from '../../api/names.ts';
import { NAMESPACED_PROMQL } from '../../prometheus/promql-confine.ts';
import type { PromqlCostBounds } from '../../prometheus/promql-cost.ts';
import { ehpaForecastValue, STEPPED_ASIDE_VALUE, stepsAside } from '../../metric-values/forecast-value.ts';
import type { AdapterMetrics } from '../adapter-metrics.ts';
import { badRequest, notFound, unavailable } from '../status.ts';
import type { AdapterSources, FallbackListener, FallbackOutcome } from './sources.ts';

/**
 * The EHPA a metric request names by its uid label (`selector`: the metricLabelSelector of a custom metric,
 * the labelSelector of an external one), in the request's namespace only.
 */
export async function ehpaByUid(sources: AdapterSources, ns: string, metric: string, selector: LabelSelector, selectorName = 'label selector'): Promise<EffectiveHorizontalPodAutoscaler> {
  const uid = selector.exactValue(EHPA_UID_LABEL);
  if (uid === undefined) throw badRequest(`metric ${metric} needs ${selectorName} ${EHPA_UID_LABEL}=<uid of the EffectiveHorizontalPodAutoscaler>`);
  const ehpa = (await sources.listEhpas(ns)).find((e) => e.metadata.uid === uid);
  if (!ehpa) throw notFound(`no EffectiveHorizontalPodAutoscaler with uid ${uid} in namespace ${ns}`);
  return ehpa;
}

/** The EHPA's own TSPs, from its namespace's list (metric-values/tsp-lookup.ts). */
export async function ehpaTspsIn(sources: AdapterSources, ehpa: EffectiveHorizontalPodAutoscaler): Promise<TimeSeriesPrediction[]> {
  return tspsOfEhpa(await sources.listTsps(ehpa.metadata.namespace ?? ''), ehpa);
}

export interface PredictedValueOptions {
  sources: AdapterSources;
  fallback: 'observed' | 'error';
  metrics?: AdapterMetrics;
  onFallback?: FallbackListener;
  /**
   * What the observed query may cost (--user-promql-max-range, --user-promql-min-subquery-step). The adapter
   * confines every namespace's query, whatever --user-promql leaves unrestricted for the TSP controller.
   */
  promqlBounds?: PromqlCostBounds;
}

/**
 * The workload total of `rid` for `ehpa` at `nowMs` (in the metric's own unit: cores, bytes, requests/s),
 * from the forecast or, failing that, from observation. `family` names the served metric in the fallback
 * counter and event (bounded: one value per provider, not per EHPA).
 */
export async function predictedTotal(
  opts: PredictedValueOptions,
  ehpa: EffectiveHorizontalPodAutoscaler,
  tsps: readonly TimeSeriesPrediction[],
  rid: string,
  family: string,
  nowMs: number,
): Promise<{ total: number; observed: boolean }> {
  const forecast = ehpaForecastValue(tsps, ehpa, rid, nowMs);
  if (forecast.ok) return { total: forecast.largest, observed: false };
  const ns = ehpa.metadata.namespace;
  const report = (outcome: FallbackOutcome) => {
    opts.metrics?.fallbacks.inc({ metric: family, reason: forecast.reason, outcome });
    opts.onFallback?.({
      namespace: ns, ehpaName: ehpa.metadata.name, ...(ehpa.metadata.uid ? { ehpaUid: ehpa.metadata.uid } : {}),
      metric: `${family} ${rid}`, reason: forecast.reason, message: forecast.message, outcome,
    });
  };
  if (stepsAside(forecast.reason)) {
    report('stepped-aside');
    return { total: STEPPED_ASIDE_VALUE, observed: false };
  }
  if (opts.fallback === 'error') {
    report('error');
    throw unavailable(forecast.message);
  }
  let promql: string | undefined;
  try {
    // An HPA reading crane_autoscaling_prediction is HEAD's shape, whose TSP predicts Pods/External metrics
    // without an annotation on HEAD's default query (crane-behaviour.md §B.4, §C.9): fall back to that one.
    const defaults = family === PREDICTION_METRIC ? 'head' : 'v0.7';
    promql = observedQueryFor(ehpa, rid, opts.promqlBounds ? { ...NAMESPACED_PROMQL, bounds: opts.promqlBounds } : NAMESPACED_PROMQL, defaults);
  } catch (e) {
    // The query is refused by the namespace confinement or its cost bounds: no observation either, and the
    // reason says why.
    report('error');
    throw unavailable(`${forecast.message}; observed ${rid} unavailable: ${(e as Error).message}`);
  }
  if (promql === undefined || !opts.sources.observedQueryTotal) {
    report('error');
    throw unavailable(`${forecast.message}; no observed value of ${rid} to fall back to`);
  }
  let total: number | undefined;
  try {
    total = await opts.sources.observedQueryTotal(ns, promql);
  } catch (e) {
    report('error');
    throw unavailable(`${forecast.message}; observed ${rid} unavailable: ${(e as Error).message}`);
  }
  if (total === undefined || !Number.isFinite(total)) {
    report('error');
    throw unavailable(`${forecast.message}; no observed value of ${rid} to fall back to`);
  }
  report('observed');
  return { total: Math.max(0, total), observed: true };
}
