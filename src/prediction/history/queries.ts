// PromQL for a TSP metric (docs/crane-behaviour.md §B.4 built-in templates, §D.2 namers): the
// workload's CPU from cAdvisor's container_cpu_usage_seconds_total (cores, workload total), its memory
// from container_memory_working_set_bytes, a node's CPU and memory from node-exporter, or the TSP's own
// expression.
import type { PredictionMetricSpec, TimeSeriesPrediction } from '../../api/prediction.ts';
import { promqlString, regexEscape } from '../../prometheus/promql-text.ts';
import { applyUserPromqlPolicy, isUnrestrictedNamespace, NAMESPACED_PROMQL, PromqlConfinementError, type UserPromqlPolicy } from '../../prometheus/promql-confine.ts';

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

// A node by the `instance` label node-exporter reports, with or without a port (Crane's built-in node
// templates, gocrane/crane pkg/utils/expression_prom_default.go NodeCpuUsageExprTemplate and
// NodeMemUsageExprTemplate, 3m irate): cores in use and bytes in use. The node name is regex-escaped, so a
// dot in it matches a dot only (Crane interpolates it as is).
function nodeInstance(node: string): string {
  return promqlString(`(${regexEscape(node)})(:\\d+)?`);
}

export function nodeCpuQuery(node: string): string {
  const sel = `node_cpu_seconds_total{mode="idle",instance=~${nodeInstance(node)}}`;
  return `sum(count(${sel}) by (mode, cpu)) - sum(irate(${sel}[3m]))`;
}

export function nodeMemoryQuery(node: string): string {
  const inst = nodeInstance(node);
  return `sum(node_memory_MemTotal_bytes{instance=~${inst}} - node_memory_MemAvailable_bytes{instance=~${inst}})`;
}

/** The `--user-promql` value that gives `policy`, as an admin would write it. */
function userPromqlFlagText(policy: UserPromqlPolicy): string {
  if (policy.mode !== 'unrestricted' || policy.unrestrictedNamespaces.size === 0) return policy.mode;
  return `unrestricted=${[...policy.unrestrictedNamespaces].join(',')}`;
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
      if (ref.kind === 'Node') {
        // A node is cluster-wide: its usage is every tenant's, so only a namespace the admin lets read any
        // series (--user-promql=unrestricted[=<ns>,...]) may predict it.
        // The message names the policy in force and the admin's remedy: it is all a tenant sees (status only).
        if (!isUnrestrictedNamespace(policy, ns)) {
          throw new UnsupportedQueryError(
            `metric ${m.resourceIdentifier}: a Node target reads cluster-wide series, which namespace "${ns}" may not under --user-promql=${userPromqlFlagText(policy)}; ` +
            `a cluster admin allows node predictions here by listing the namespace in serve's --user-promql=unrestricted=<ns>,... (docs/operations.md, "Node predictions")`,
          );
        }
        if (m.resourceQuery === 'cpu') return nodeCpuQuery(ref.name);
        if (m.resourceQuery === 'memory') return nodeMemoryQuery(ref.name);
        throw new UnsupportedQueryError(`metric ${m.resourceIdentifier}: unknown resourceQuery "${m.resourceQuery}"`);
      }
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
