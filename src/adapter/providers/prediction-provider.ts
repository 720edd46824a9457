// `crane_autoscaling_prediction` (Crane v0.8+, docs/crane-behaviour.md §C.2), so HPAs written by newer
// Crane keep working: the largest forecast over the window for the TSP of the target named by the selector.
// Unlike Crane we do not truncate the value to an integer (2.7 cores stays 2700m): Crane's craned exporter
// does not truncate either, and truncation makes CPU forecasts under one core read as zero. The float32
// reading is trimmed back to float32's 7 significant digits so "2.70000" is 2700m, not 2701m.
import { maxForecastInWindow, readyPredictionSeries } from '../../metric-values/forecast-window.ts';
import { toMilli } from '../../metric-values/milli-quantity.ts';
import type { TimeSeriesPrediction } from '../../api/prediction.ts';
import type { AdapterMetrics } from '../adapter-metrics.ts';
import { badRequest, notFound, unavailable } from '../status.ts';
import type { ExternalMetricProvider, ExternalQuery, ExternalValue } from './provider.ts';
import type { AdapterSources, FallbackListener } from './sources.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../../api/ehpa.ts';
import { ehpaTsps, observedQueryFor, predictedTotal } from './predicted-metric-value.ts';

export const PREDICTION_METRIC_HEAD = 'crane_autoscaling_prediction';

const KEYS = ['targetKind', 'targetName', 'targetNamespace', 'resourceIdentifier'] as const;

/** The target the selector names: an EHPA's scaleTargetRef and namespace. */
export interface PredictionTarget {
  kind: string;
  name: string;
  namespace: string;
}

export type PredictionAnswer =
  | { ok: true; milli: bigint; tsp: TimeSeriesPrediction }
  | { ok: false; status: 404; message: string }
  | { ok: false; status: 503; reason: 'PredictionMissing' | 'PredictionNotReady' | 'PredictionOutdated'; message: string };

/**
 * The value `crane_autoscaling_prediction{target…, resourceIdentifier}` has at `nowMs`, from the TSPs of one
 * namespace. Pure; shared by the adapter (which answers it) and the exporter (which publishes it for
 * prometheus-adapter), so both paths give the HPA the same number.
 */
export function predictionAnswer(tsps: readonly TimeSeriesPrediction[], target: PredictionTarget, rid: string, nowMs: number): PredictionAnswer {
  const { kind, name, namespace } = target;
  const candidates = tsps.filter((t) => tspTargets(t, kind, name, namespace));
  // Crane reads the first match only; we prefer the one that forecasts this resourceIdentifier.
  const tsp = candidates.find((t) => t.status?.predictionMetrics?.some((m) => m.resourceIdentifier === rid)) ?? candidates[0];
  if (!tsp) return { ok: false, status: 404, message: `there is no TimeSeriesPrediction for ${kind} ${namespace}/${name}` };
  const fail = (reason: 'PredictionMissing' | 'PredictionNotReady' | 'PredictionOutdated', message: string): PredictionAnswer =>
    ({ ok: false, status: 503, reason, message: `TimeSeriesPrediction ${tsp.metadata.namespace}/${tsp.metadata.name}: ${message}` });
  const series = readyPredictionSeries(tsp, rid);
  if (!series.ok) return fail(series.problem.reason === 'NotReady' ? 'PredictionNotReady' : 'PredictionMissing', series.problem.message);
  const r = maxForecastInWindow(series.metric, nowMs, tsp.spec.predictionWindowSeconds);
  if (!r.ok) return fail('PredictionOutdated', r.problem.message);
  return { ok: true, milli: toMilli(Number(r.largest.toPrecision(7))), tsp };
}

/** The EHPA in `namespace` whose target is `kind name` and that predicts `rid` (the last one, as for cron). */
async function predictingEhpa(sources: AdapterSources, namespace: string, kind: string, name: string, rid: string): Promise<EffectiveHorizontalPodAutoscaler | undefined> {
  const matches = (await sources.listEhpas(namespace)).filter(
    (e) => e.spec.scaleTargetRef.kind === kind && e.spec.scaleTargetRef.name === name && observedQueryDefined(e, rid),
  );
  return matches[matches.length - 1];
}

function observedQueryDefined(e: EffectiveHorizontalPodAutoscaler, rid: string): boolean {
  try {
    return observedQueryFor(e, rid) !== undefined;
  } catch {
    // A query the confinement refuses still belongs to this EHPA: predictedTotal reports why.
    return true;
  }
}

/** Whether `t` forecasts the workload `kind namespace/name` (by the EHPA's labels or its targetRef). */
export function tspTargets(t: TimeSeriesPrediction, kind: string, name: string, namespace: string): boolean {
  const l = t.metadata.labels ?? {};
  if (l['app.kubernetes.io/target-kind'] === kind && l['app.kubernetes.io/target-name'] === name && l['app.kubernetes.io/target-namespace'] === namespace) return true;
  const ref = t.spec?.targetRef;
  return !!ref && ref.kind === kind && ref.name === name && (ref.namespace ?? t.metadata.namespace) === namespace;
}

/**
 * With `fallback: 'observed'` (what the adapter runs with by default, --prediction-fallback), an unusable
 * forecast answers the observed value of the same query, found through the EHPA of the target that predicts
 * this resourceIdentifier (predicted-metric-value.ts), as crane_pod_cpu_usage does; without it, or with no
 * such EHPA, the answer is Crane's: 503 (or 404 when there is no TSP).
 */
export function predictionProvider(opts: { sources: AdapterSources; metrics?: AdapterMetrics; fallback?: 'observed' | 'error'; onFallback?: FallbackListener }): ExternalMetricProvider {
  return {
    listed: () => [PREDICTION_METRIC_HEAD],
    owns: async (_ns, metric) => metric === PREDICTION_METRIC_HEAD,
    async values(q: ExternalQuery): Promise<ExternalValue[]> {
      const want = KEYS.map((k) => q.selector.exactValue(k));
      const missing = KEYS.filter((_, i) => want[i] === undefined);
      if (missing.length) throw badRequest(`metric ${PREDICTION_METRIC_HEAD} needs labelSelector with ${missing.map((k) => `${k}=…`).join(', ')}`);
      const [kind, name, namespace, rid] = want as [string, string, string, string];
      const a = predictionAnswer(await opts.sources.listTsps(q.namespace), { kind, name, namespace }, rid, q.nowMs);
      if (!a.ok && opts.fallback) {
        const ehpa = namespace === q.namespace ? await predictingEhpa(opts.sources, namespace, kind, name, rid) : undefined;
        if (ehpa) {
          const { fallback, sources, metrics, onFallback } = opts;
          const r = await predictedTotal({ fallback, sources, ...(metrics ? { metrics } : {}), ...(onFallback ? { onFallback } : {}) }, ehpa, await ehpaTsps(sources, ehpa), rid, PREDICTION_METRIC_HEAD, q.nowMs);
          return [{ labels: q.selector.toLabelSelector()?.matchLabels ?? {}, milli: r.observed ? toMilli(r.total) : toMilli(Number(r.total.toPrecision(7))) }];
        }
      }
      if (!a.ok && a.status === 404) throw notFound(a.message);
      if (!a.ok) {
        opts.metrics?.fallbacks.inc({ metric: PREDICTION_METRIC_HEAD, reason: a.reason, outcome: 'error' });
        throw unavailable(a.message);
      }
      return [{ labels: q.selector.toLabelSelector()?.matchLabels ?? {}, milli: a.milli }];
    },
  };
}
