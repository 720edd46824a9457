// The query Crane HEAD predicts a Pods or External metric on when the EHPA has no metric-query annotation
// (docs/crane-behaviour.md §B.4, selected by --hpa-shape=head, §C.9). HEAD (gocrane/crane pkg/utils/ehpa.go
// GetExpressionQueryDefault, the last resort in pkg/controller/ehpa/predict.go after the annotation and a
// prometheus-adapter rule) writes `sum(<name>{k="v",...})` from the selector's matchLabels, pasted as text.
// We keep that shape and change what a tenant could abuse:
// - the EHPA's own namespace is always a matcher, so the query reads that namespace whatever
//   --user-promql says, and passes the TSP controller's confinement unchanged (promql-confine.ts);
// - a selector requirement on `namespace` that the EHPA's namespace does not satisfy is refused, not
//   dropped: it asks for another namespace's series;
// - the metric name and label names must be Prometheus names, values are quoted (promql-text.ts): nothing
//   the user wrote reaches the query as syntax;
// - matchExpressions become matchers too (HEAD ignores them, and so would sum series the HPA's own metric
//   leaves out). Pure.
import type { V1LabelSelector } from '@kubernetes/client-node';
import { MAX_USER_PROMQL_LENGTH } from '../prometheus/promql-confine.ts';
import { promqlString, regexEscape } from '../prometheus/promql-text.ts';

// Prometheus's metric and label name grammar (the classic one: Prometheus 2 cannot read quoted names).
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const NAMESPACE_LABEL = 'namespace';

export type DefaultQuery = { ok: true; expression: string } | { ok: false; message: string };

type Requirement = { key: string; operator: string; values: string[] };

function requirements(selector: V1LabelSelector | undefined): Requirement[] {
  const fromLabels = Object.entries(selector?.matchLabels ?? {})
    // Sorted: Go's map order is random, ours must be stable or the TSP would be rewritten on every pass.
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ key, operator: 'In', values: [value] }));
  const fromExpressions = (selector?.matchExpressions ?? []).map((e) => ({ key: e.key, operator: e.operator, values: e.values ?? [] }));
  return [...fromLabels, ...fromExpressions];
}

/** Whether a series labelled namespace=`ns` satisfies `r` (what pinning the namespace leaves of `r`). */
function namespaceSatisfies(r: Requirement, ns: string): boolean | undefined {
  switch (r.operator) {
    case 'In': return r.values.includes(ns);
    case 'NotIn': return !r.values.includes(ns);
    case 'Exists': return true;
    case 'DoesNotExist': return false;
    default: return undefined;
  }
}

/** One PromQL matcher for `r`, or the reason there is none. */
function matcher(r: Requirement): string | { refused: string } {
  switch (r.operator) {
    case 'In':
    case 'NotIn': {
      if (r.values.length === 0) return { refused: `selector ${r.operator} on ${JSON.stringify(r.key)} has no values` };
      // One value stays an equality matcher, as HEAD writes matchLabels; several become an exact-text
      // alternation (Prometheus anchors the regex at both ends).
      if (r.values.length === 1) return `${r.key}${r.operator === 'In' ? '=' : '!='}${promqlString(r.values[0] as string)}`;
      return `${r.key}${r.operator === 'In' ? '=~' : '!~'}${promqlString(r.values.map(regexEscape).join('|'))}`;
    }
    // A series without the label reads as the empty value in PromQL.
    case 'Exists': return `${r.key}!=""`;
    case 'DoesNotExist': return `${r.key}=""`;
    default: return { refused: `selector operator ${JSON.stringify(r.operator)} on ${JSON.stringify(r.key)} is not one of In, NotIn, Exists, DoesNotExist` };
  }
}

/**
 * The default query of the Pods or External metric `name` with `selector`, for an EHPA in `namespace`; or,
 * when it cannot be written safely, why (the caller names the metric in a condition).
 */
export function defaultMetricQuery(name: string, selector: V1LabelSelector | undefined, namespace: string): DefaultQuery {
  if (!METRIC_NAME.test(name)) return { ok: false, message: `${JSON.stringify(name)} is not a Prometheus metric name, so no default query is built` };
  const matchers = [`${NAMESPACE_LABEL}=${promqlString(namespace)}`];
  for (const r of requirements(selector)) {
    if (!LABEL_NAME.test(r.key) || r.key.startsWith('__')) {
      return { ok: false, message: `selector label ${JSON.stringify(r.key)} is not a Prometheus label name, so no default query is built` };
    }
    if (r.key === NAMESPACE_LABEL) {
      const ok = namespaceSatisfies(r, namespace);
      if (ok === undefined) return { ok: false, message: (matcher(r) as { refused: string }).refused };
      if (!ok) return { ok: false, message: `selector on "namespace" does not select the EHPA's own namespace ${JSON.stringify(namespace)}; a prediction reads only its own namespace` };
      continue; // already pinned to the EHPA's namespace, which satisfies it
    }
    const m = matcher(r);
    if (typeof m !== 'string') return { ok: false, message: m.refused };
    matchers.push(m);
  }
  const expression = `sum(${name}{${matchers.join(',')}})`;
  if (expression.length > MAX_USER_PROMQL_LENGTH) {
    return { ok: false, message: `the default query would be ${expression.length} characters long; at most ${MAX_USER_PROMQL_LENGTH} are accepted` };
  }
  return { ok: true, expression };
}
