// `crane_autoscaling_prediction` (Crane v0.8+, docs/crane-behaviour.md §C.2), so HPAs written by newer
// Crane keep working: the largest forecast over the window for the TSP of the target named by the selector,
// valued by metric-values/forecast-value.ts `predictionAnswer` (the exporter calls the same function).
import { predictionAnswer } from '../../metric-values/forecast-value.ts';
import { toMilli } from '../../metric-values/milli-quantity.ts';
import { observedQueryFor } from '../../ehpa/observed-query.ts';
import type { AdapterMetrics } from '../adapter-metrics.ts';
import { badRequest, notFound, unavailable } from '../status.ts';
import type { ExternalMetricProvider, ExternalQuery, ExternalValue } from './provider.ts';
import type { AdapterSources, FallbackListener } from './sources.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../../api/ehpa.ts';
import { ehpaTspsIn, predictedTotal } from './predicted-metric-value.ts';

export const PREDICTION_METRIC_HEAD = 'crane_autoscaling_prediction';

const KEYS = ['targetKind', 'targetName', 'targetNamespace', 'resourceIdentifier'] as const;

/** The EHPA in `namespace` whose target is `kind name` and that predicts `rid` (the last one, as for cron). */
async function predictingEhpa(sources: AdapterSources, namespace: string, kind: string, name: string, rid: string): Promise<EffectiveHorizontalPodAutoscaler | undefined> {
  const matches = (await sources.listEhpas(namespace)).filter(
    (e) => e.spec.scaleTargetRef.kind === kind && e.spec.scaleTargetRef.name === name && observedQueryDefined(e, rid),
  );
  return matches[matches.length - 1];
}

function observedQueryDefined(e: EffectiveHorizontalPodAutoscaler, rid: string): boolean {
  try {
    // This metric is HEAD's, so HEAD's default queries count (crane-behaviour.md §B.4).
    return observedQueryFor(e, rid, undefined, 'head') !== undefined;
  } catch {
    // A query the confinement refuses still belongs to this EHPA: predictedTotal reports why.
    return true;
  }
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
          const r = await predictedTotal({ fallback, sources, ...(metrics ? { metrics } : {}), ...(onFallback ? { onFallback } : {}) }, ehpa, await ehpaTspsIn(sources, ehpa), rid, PREDICTION_METRIC_HEAD, q.nowMs);
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
