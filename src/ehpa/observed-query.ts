// The PromQL behind one predicted metric of an EHPA, for the adapter's observed fallback: derived from the
// EHPA's own predicted-metric entry (predicted-metrics.ts), so it exists even while the TSP is missing, and
// confined to the EHPA's namespace exactly as the TSP controller confines it (prediction/history/queries.ts).
import type { EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import type { TimeSeriesPrediction } from '../api/prediction.ts';
import { metricQuery } from '../prediction/history/queries.ts';
import { NAMESPACED_PROMQL } from '../prometheus/promql-confine.ts';
import type { UserPromqlPolicy } from '../prometheus/promql-confine.ts';
import { resourceAliases } from '../metric-values/tsp-lookup.ts';
import { predictedMetrics, predictionMetricEntry, type QueryDefaults } from './predicted-metrics.ts';
import { POD_CPU_USAGE_IDENTIFIER } from '../api/names.ts';

/**
 * The query the forecast of `rid` (or its alias) is fitted on; undefined when the EHPA does not predict it.
 * `defaults` are those of the HPA shape that asks (HEAD's predict Pods/External metrics without an
 * annotation, §B.4). Throws, with the reason, when the namespace confinement or the cost bounds of `policy`
 * refuse the query.
 */
export function observedQueryFor(ehpa: EffectiveHorizontalPodAutoscaler, rid: string, policy: UserPromqlPolicy = NAMESPACED_PROMQL, defaults: QueryDefaults = 'v0.7'): string | undefined {
  const ids = resourceAliases(rid);
  const p = predictedMetrics(ehpa, defaults).predicted.find((m) => ids.includes(m.resourceIdentifier));
  if (!p) return undefined;
  // Only the target and the namespace of the TSP the query runs for matter to it.
  const ref = ehpa.spec.scaleTargetRef;
  const where = { metadata: { namespace: ehpa.metadata.namespace }, spec: { targetRef: { kind: ref.kind, name: ref.name } } } as TimeSeriesPrediction;
  return metricQuery(where, predictionMetricEntry(p), policy);
}

/**
 * The PromQL of the workload's total CPU in cores, as the TSP controller would fit it: the EHPA's own CPU
 * prediction query (a metric-query annotation included) when it predicts CPU, else the built-in workload
 * CPU query for its scale target. Throws, with the reason, when the namespace confinement refuses it.
 */
export function workloadCpuQuery(ehpa: EffectiveHorizontalPodAutoscaler): string {
  const own = observedQueryFor(ehpa, POD_CPU_USAGE_IDENTIFIER);
  if (own !== undefined) return own;
  const ref = ehpa.spec.scaleTargetRef;
  const where = { metadata: { namespace: ehpa.metadata.namespace }, spec: { targetRef: { kind: ref.kind, name: ref.name } } } as TimeSeriesPrediction;
  return metricQuery(where, { resourceIdentifier: POD_CPU_USAGE_IDENTIFIER, type: 'ResourceQuery', resourceQuery: 'cpu' });
}
