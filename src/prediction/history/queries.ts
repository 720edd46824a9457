// PromQL for a TSP metric (docs/crane-behaviour.md §B.4 built-in templates, §D.2 namers): the
// workload's CPU from cAdvisor's container_cpu_usage_seconds_total (cores, workload total), its memory
// from container_memory_working_set_bytes, or the TSP's own expression.
import type { PredictionMetricSpec, TimeSeriesPrediction } from '../../api/prediction.ts';
import { promqlString, regexEscape } from '../../prometheus/promql-text.ts';
import { applyUserPromqlPolicy, PromqlConfinementError, type UserPromqlPolicy } from '../../prometheus/promql-confine.ts';

/** The safe default: user PromQL confined to the object's namespace (--user-promql=namespaced). */
export const NAMESPACED_PROMQL: UserPromqlPolicy = { mode: 'namespaced', unrestrictedNamespaces: new Set() };

export class UnsupportedQueryError extends Error {
  override name = 'UnsupportedQueryError';
}

/** Pod-name regex for a workload kind (Crane's expression_prom_default.go); `name` must already be regex-escaped. */
export function podNameRegex(kind: string, name: string): string {
  switch (kind) {
    case 'Deployment':
      return `^${name}-[a-z0-9]+-[a-z0-9]{5}$`;
    case 'ReplicaSet':
      return `^${name}-[a-z0-9]+$`;
    case 'DaemonSet':
      return `^${name}-[a-z0-9]{5}$`;
    case 'StatefulSet':
      return `^${name}-[0-9]+$`;
    default:
      return `^${name}-.*`;
  }
}

// The workload name is escaped before it goes into the pod regex: a targetRef.name of `.*|x` must match
// that workload's pods, not every pod in the namespace.
export function workloadCpuQuery(namespace: string, kind: string, name: string): string {
  return `sum(irate(container_cpu_usage_seconds_total{namespace=${promqlString(namespace)},pod=~${promqlString(podNameRegex(kind, regexEscape(name)))},container!=""}[3m]))`;
}

export function workloadMemoryQuery(namespace: string, kind: string, name: string): string {
  return `sum(container_memory_working_set_bytes{namespace=${promqlString(namespace)},pod=~${promqlString(podNameRegex(kind, regexEscape(name)))},container!=""})`;
}

/** The PromQL for one TSP metric; throws UnsupportedQueryError for what Crane does not support either. */
export function metricQuery(tsp: TimeSeriesPrediction, m: PredictionMetricSpec, policy: UserPromqlPolicy = NAMESPACED_PROMQL): string {
  const ref = tsp.spec.targetRef;
  const ns = tsp.metadata.namespace;
  // A prediction reads its own namespace only: a targetRef naming another one would put that namespace's
  // usage into this TSP's status, readable by whoever may read this namespace (Crane allowed it).
  if (ref.namespace && ref.namespace !== ns) {
    throw new UnsupportedQueryError(`targetRef.namespace "${ref.namespace}" is not this TimeSeriesPrediction's namespace "${ns}": a prediction reads only its own namespace`);
  }
  switch (m.type) {
    case 'ExpressionQuery':
      if (!m.expressionQuery?.expression) throw new UnsupportedQueryError(`metric ${m.resourceIdentifier}: expressionQuery.expression is empty`);
      // A user's own PromQL reads only the user's namespace unless the cluster admin said otherwise
      // (docs/security.md §3): this is where the EHPA metric-query annotation lands too.
      try {
        return applyUserPromqlPolicy(policy, ns, m.expressionQuery.expression);
      } catch (e) {
        if (e instanceof PromqlConfinementError) throw new UnsupportedQueryError(`metric ${m.resourceIdentifier}: ${e.message}`);
        throw e;
      }
    case 'ResourceQuery':
      if (ref.kind === 'Node') throw new UnsupportedQueryError(`metric ${m.resourceIdentifier}: node targets are not supported`);
      if (m.resourceQuery === 'cpu') return workloadCpuQuery(ns, ref.kind, ref.name);
      if (m.resourceQuery === 'memory') return workloadMemoryQuery(ns, ref.kind, ref.name);
      throw new UnsupportedQueryError(`metric ${m.resourceIdentifier}: unknown resourceQuery "${m.resourceQuery}"`);
    case 'MetricQuery':
      // Crane logs and skips these too (§D.1).
      throw new UnsupportedQueryError(`metric ${m.resourceIdentifier}: MetricQuery is not supported`);
    default:
      throw new UnsupportedQueryError(`metric ${m.resourceIdentifier}: unknown type "${String(m.type)}"`);
  }
}
