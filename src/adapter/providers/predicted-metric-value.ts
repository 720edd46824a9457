// The value of one predicted metric of an EHPA (any resourceIdentifier: `resource.memory`,
// `container-resource.cpu`, `pods.<name>`, `external.<name>`, ...), shared by every name it is served under:
// the v0.6–v0.7 `crane_custom.pods_<name>` / `crane_external_<name>` and HEAD's `crane_autoscaling_prediction`.
// Same semantics as crane_pod_cpu_usage (pod-cpu-provider.ts): the largest forecast in the prediction
// window; while it is missing, not ready or stale, the observed value of the same query (reported with the
// reason), or 503 with --prediction-fallback=unavailable.
import { EHPA_UID_LABEL, type EffectiveHorizontalPodAutoscaler } from '../../api/ehpa.ts';
import type { TimeSeriesPrediction } from '../../api/prediction.ts';
import { POD_CPU_USAGE_IDENTIFIER, ownedObjectName } from '../../api/names.ts';
import { buildDesiredTsp } from '../../ehpa/desired-tsp.ts';
import { maxForecastInWindow, readyPredictionSeries } from '../../metric-values/forecast-window.ts';
import { metricQuery } from '../../prediction/history/queries.ts';
import type { AdapterMetrics } from '../adapter-metrics.ts';
import { unavailable } from '../status.ts';
import type { AdapterSources, FallbackListener } from './sources.ts';

export type FallbackReason = 'PredictionMissing' | 'PredictionNotReady' | 'PredictionOutdated';

export interface PredictedValueOptions {
  sources: AdapterSources;
  fallback: 'observed' | 'error';
  metrics?: AdapterMetrics;
  onFallback?: FallbackListener;
}

/** The EHPA's own TSPs: by uid label, else by name (the same lookup as crane_pod_cpu_usage). */
export async function ehpaTsps(sources: AdapterSources, ehpa: EffectiveHorizontalPodAutoscaler): Promise<TimeSeriesPrediction[]> {
  const ns = ehpa.metadata.namespace;
  const uid = ehpa.metadata.uid;
  const byLabel = (await sources.listTsps(ns)).filter((t) => uid !== undefined && t.metadata.labels?.[EHPA_UID_LABEL] === uid);
  if (byLabel.length > 0) return byLabel;
  const byName = await sources.getTsp(ns, ownedObjectName(ehpa.metadata.name));
  return byName ? [byName] : [];
}

/** HEAD names workload CPU `resource.cpu`; this project's TSPs keep the v0.7 `crane_pod_cpu_usage`. */
function identifiers(rid: string): string[] {
  return rid === 'resource.cpu' ? [rid, POD_CPU_USAGE_IDENTIFIER] : rid === POD_CPU_USAGE_IDENTIFIER ? [rid, 'resource.cpu'] : [rid];
}

/** Largest forecast of `rid` in the window from the EHPA's TSPs, or why there is none. */
export function forecastOf(
  tsps: readonly TimeSeriesPrediction[],
  ehpa: EffectiveHorizontalPodAutoscaler,
  rid: string,
  nowMs: number,
): { ok: true; largest: number } | { ok: false; reason: FallbackReason; message: string } {
  const ns = ehpa.metadata.namespace;
  if (tsps.length !== 1) {
    const message = tsps.length === 0
      ? `no TimeSeriesPrediction for EffectiveHorizontalPodAutoscaler ${ns}/${ehpa.metadata.name}`
      : `only one TimeSeriesPrediction should match EffectiveHorizontalPodAutoscaler ${ns}/${ehpa.metadata.name}, found ${tsps.length}`;
    return { ok: false, reason: 'PredictionMissing', message };
  }
  const tsp = tsps[0] as TimeSeriesPrediction;
  const prefix = `TimeSeriesPrediction ${tsp.metadata.namespace}/${tsp.metadata.name}: `;
  let first: { reason: FallbackReason; message: string } | undefined;
  for (const id of identifiers(rid)) {
    const series = readyPredictionSeries(tsp, id);
    if (!series.ok) {
      first ??= { reason: series.problem.reason === 'NotReady' ? 'PredictionNotReady' : 'PredictionMissing', message: prefix + series.problem.message };
      continue;
    }
    const window = tsp.spec?.predictionWindowSeconds ?? ehpa.spec.prediction?.predictionWindowSeconds ?? 3600;
    const r = maxForecastInWindow(series.metric, nowMs, window);
    if (r.ok) return r;
    return { ok: false, reason: 'PredictionOutdated', message: prefix + r.problem.message };
  }
  return { ok: false, ...(first as { reason: FallbackReason; message: string }) };
}

/**
 * The PromQL the EHPA's forecast of `rid` is built from, as the TSP controller would run it (confined to
 * the namespace, --user-promql=namespaced): derived from the EHPA itself, so it is there even when the TSP
 * was deleted. Undefined when the EHPA does not predict `rid`.
 */
export function observedQueryFor(ehpa: EffectiveHorizontalPodAutoscaler, rid: string): string | undefined {
  const tsp = buildDesiredTsp(ehpa);
  const ids = identifiers(rid);
  const entry = tsp?.spec.predictionMetrics.find((m) => ids.includes(m.resourceIdentifier));
  if (!tsp || !entry) return undefined;
  return metricQuery(tsp, entry);
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
  const forecast = forecastOf(tsps, ehpa, rid, nowMs);
  if (forecast.ok) return { total: forecast.largest, observed: false };
  const ns = ehpa.metadata.namespace;
  const report = (outcome: 'observed' | 'error') => {
    opts.metrics?.fallbacks.inc({ metric: family, reason: forecast.reason, outcome });
    opts.onFallback?.({
      namespace: ns, ehpaName: ehpa.metadata.name, ...(ehpa.metadata.uid ? { ehpaUid: ehpa.metadata.uid } : {}),
      metric: `${family} ${rid}`, reason: forecast.reason, message: forecast.message, outcome,
    });
  };
  if (opts.fallback === 'error') {
    report('error');
    throw unavailable(forecast.message);
  }
  let promql: string | undefined;
  try {
    promql = observedQueryFor(ehpa, rid);
  } catch (e) {
    // The query is refused by the namespace confinement: no observation either, and the reason says why.
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
