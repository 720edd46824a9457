// Which of an EHPA's metrics get a forecast, under which TSP resourceIdentifier and from which PromQL
// (docs/crane-behaviour.md §B.3, §B.4). One pure answer shared by the TSP builder (one predictionMetrics
// entry per predicted metric), the HPA builder (one predicted metric beside each original) and the status
// (metrics that cannot be predicted are named in a condition, never dropped silently).
//
// Identifiers are Crane HEAD's (gocrane/crane pkg/utils/ehpa.go GetPredictionMetricIdentifier:
// `resource.memory`, `container-resource.cpu`, `pods.<name>`, `external.<name>`), except Resource cpu, which
// keeps the v0.2–v0.7 `crane_pod_cpu_usage` this project has always written (the adapter reads either).
// The query comes from the `metric-query.autoscaling.crane.io/<id>` annotation in either Crane form (HEAD
// `<type>.<name>`, v0.6–v0.7 the bare `<name>`), else from a built-in query where Crane has one (cpu and
// memory of the workload, gocrane/crane pkg/utils/expression_prom_default.go). Pods and External metrics
// have no built-in query under v0.7's defaults, as in Crane v0.7: the annotation is asked for, and the
// condition says so. Under HEAD's defaults (--hpa-shape=head) they get HEAD's `sum(<name>{selector})`,
// pinned to the EHPA's namespace (default-metric-query.ts).
import type { V2MetricSpec } from '@kubernetes/client-node';
import { BOUNDS } from '../api/bounds.ts';
import type { PredictionMetricSpec } from '../api/prediction.ts';
import { predictionEnabled, type EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { POD_CPU_USAGE_IDENTIFIER, predictionIdentifier } from '../api/names.ts';
import { promqlString, regexEscape } from '../prometheus/promql-text.ts';
import { podNameRegex } from '../prediction/history/queries.ts';
import { defaultMetricQuery } from './default-metric-query.ts';

/** User PromQL override, Crane's `metric-query.autoscaling.crane.io/<metricIdentifier>` (§B.4). */
export const METRIC_QUERY_ANNOTATION_PREFIX = 'metric-query.autoscaling.crane.io/';

export type PredictedMetricType = 'Resource' | 'ContainerResource' | 'Pods' | 'External';

/**
 * Whose defaults fill in a query the annotations do not give (§B.4): Crane v0.7's (Pods and External need
 * the annotation) or HEAD's (they get a default query). --hpa-shape picks it (§C.9).
 */
export type QueryDefaults = 'v0.7' | 'head';

export type PredictionQuery =
  | { type: 'ResourceQuery'; resource: 'cpu' | 'memory' }
  | { type: 'ExpressionQuery'; expression: string };

export interface PredictedMetric {
  /** Position of the original metric in spec.metrics. */
  index: number;
  type: PredictedMetricType;
  /** Resource name (Resource, ContainerResource) or metric name (Pods, External). */
  name: string;
  /** ContainerResource only. */
  container?: string;
  resourceIdentifier: string;
  query: PredictionQuery;
  /** The annotation the query came from, if any. */
  annotation?: string;
}

export interface UnpredictedMetric {
  index: number;
  type: PredictedMetricType;
  name: string;
  reason: 'MetricQueryMissing' | 'DefaultQueryRefused' | 'DuplicateIdentifier' | 'TooManyPredictionMetrics';
  message: string;
}

function identity(m: V2MetricSpec): { type: PredictedMetricType; name: string; container?: string } | undefined {
  switch (m.type) {
    case 'Resource':
      return m.resource?.name ? { type: 'Resource', name: m.resource.name } : undefined;
    case 'ContainerResource':
      return m.containerResource?.name ? { type: 'ContainerResource', name: m.containerResource.name, container: m.containerResource.container } : undefined;
    case 'Pods':
      return m.pods?.metric?.name ? { type: 'Pods', name: m.pods.metric.name } : undefined;
    case 'External':
      return m.external?.metric?.name ? { type: 'External', name: m.external.metric.name } : undefined;
    default:
      // Object metrics are not predicted by any Crane generation.
      return undefined;
  }
}

/** Annotation keys that may carry this metric's query, most specific first. */
export function annotationKeys(type: PredictedMetricType, name: string): string[] {
  if (type === 'Resource' && name === 'cpu') return [POD_CPU_USAGE_IDENTIFIER, 'resource.cpu'];
  const head = predictionIdentifier(type, name);
  // v0.6–v0.7 keyed Pods and External queries by the bare metric name.
  return type === 'Pods' || type === 'External' ? [head, name] : [head];
}

/**
 * Crane's ContainerResource template has no `sum`, so it yields one series per pod and is never ready with
 * more than one pod (§B.4); we sum over the workload's pods, the same shape as the Resource queries.
 */
export function containerResourceQuery(namespace: string, kind: string, workload: string, resource: 'cpu' | 'memory', container: string): string {
  const sel = `namespace=${promqlString(namespace)},pod=~${promqlString(podNameRegex(kind, regexEscape(workload)))},container=${promqlString(container)}`;
  return resource === 'cpu'
    ? `sum(irate(container_cpu_usage_seconds_total{${sel}}[3m]))`
    : `sum(container_memory_working_set_bytes{${sel}})`;
}

function builtIn(ehpa: EffectiveHorizontalPodAutoscaler, m: V2MetricSpec, id: { type: PredictedMetricType; name: string; container?: string }, defaults: QueryDefaults): PredictionQuery | { refused: string } | undefined {
  if (defaults === 'head' && (id.type === 'Pods' || id.type === 'External')) {
    const q = defaultMetricQuery(id.name, (m.pods ?? m.external)?.metric.selector, ehpa.metadata.namespace);
    return q.ok ? { type: 'ExpressionQuery', expression: q.expression } : { refused: q.message };
  }
  if (id.name !== 'cpu' && id.name !== 'memory') return undefined;
  if (id.type === 'Resource') return { type: 'ResourceQuery', resource: id.name };
  if (id.type === 'ContainerResource' && id.container) {
    const ref = ehpa.spec.scaleTargetRef;
    return { type: 'ExpressionQuery', expression: containerResourceQuery(ehpa.metadata.namespace, ref.kind, ref.name, id.name, id.container) };
  }
  return undefined;
}

/** A predicted metric as a TSP metric entry: its identifier and query (the algorithm is the caller's). */
export function predictionMetricEntry(p: PredictedMetric): PredictionMetricSpec {
  return p.query.type === 'ExpressionQuery'
    ? { resourceIdentifier: p.resourceIdentifier, type: 'ExpressionQuery', expressionQuery: { expression: p.query.expression } }
    : { resourceIdentifier: p.resourceIdentifier, type: 'ResourceQuery', resourceQuery: p.query.resource };
}

/** The EHPA's predicted metrics in spec order, and the ones it asks for that cannot be predicted. */
export function predictedMetrics(ehpa: EffectiveHorizontalPodAutoscaler, defaults: QueryDefaults = 'v0.7'): { predicted: PredictedMetric[]; unpredicted: UnpredictedMetric[] } {
  const predicted: PredictedMetric[] = [];
  const unpredicted: UnpredictedMetric[] = [];
  if (!predictionEnabled(ehpa.spec)) return { predicted, unpredicted };
  const annotations = ehpa.metadata.annotations ?? {};
  const seen = new Set<string>();
  for (const [index, m] of (ehpa.spec.metrics ?? []).entries()) {
    const id = identity(m);
    if (!id) continue;
    const label = `${id.type} ${id.name}${id.container ? ` (container ${id.container})` : ''}`;
    const rid = id.type === 'Resource' && id.name === 'cpu' ? POD_CPU_USAGE_IDENTIFIER : predictionIdentifier(id.type, id.name);
    if (seen.has(rid)) {
      // Crane's identifier leaves out the container, so a second metric on the same resource would read
      // the first one's forecast; we predict the first and say so.
      unpredicted.push({ index, ...id, reason: 'DuplicateIdentifier', message: `${label}: resourceIdentifier ${rid} is already predicted for an earlier metric` });
      continue;
    }
    const key = annotationKeys(id.type, id.name).find((k) => annotations[METRIC_QUERY_ANNOTATION_PREFIX + k]);
    const query = key
      ? { type: 'ExpressionQuery' as const, expression: annotations[METRIC_QUERY_ANNOTATION_PREFIX + key] as string }
      : builtIn(ehpa, m, id, defaults);
    if (query && 'refused' in query) {
      const keys = annotationKeys(id.type, id.name).map((k) => METRIC_QUERY_ANNOTATION_PREFIX + k).join(' or ');
      unpredicted.push({ index, ...id, reason: 'DefaultQueryRefused', message: `${label} is not predicted: ${query.refused}; set annotation ${keys}` });
      continue;
    }
    if (!query) {
      const keys = annotationKeys(id.type, id.name).map((k) => METRIC_QUERY_ANNOTATION_PREFIX + k).join(' or ');
      unpredicted.push({ index, ...id, reason: 'MetricQueryMissing', message: `${label} is not predicted: no query, set annotation ${keys}` });
      continue;
    }
    if (predicted.length >= BOUNDS.predictionMetrics) {
      unpredicted.push({ index, ...id, reason: 'TooManyPredictionMetrics', message: `${label} is not predicted: a TimeSeriesPrediction holds at most ${BOUNDS.predictionMetrics} metrics` });
      continue;
    }
    seen.add(rid);
    predicted.push({ index, ...id, resourceIdentifier: rid, query, ...(key ? { annotation: METRIC_QUERY_ANNOTATION_PREFIX + key } : {}) });
  }
  return { predicted, unpredicted };
}
