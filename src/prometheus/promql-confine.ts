// Confine user-supplied PromQL to one Kubernetes namespace, the way prom-label-proxy confines a tenant:
// every vector selector — wherever it sits (inside a range, a subquery, a function argument, either side
// of a binary operator, under an aggregation, with `offset` or `@`) — gets a `namespace="<ns>"` matcher.
// A selector that already asks for another namespace (different value, `!=`, `=~`, `!~`) cannot be
// confined without changing what it means, so it is refused rather than silently narrowed.
//
// The query is parsed with the Prometheus project's own grammar (@prometheus-io/lezer-promql, the one
// the Prometheus web UI uses) and rewritten by inserting text at syntax-node positions, so the rest of
// the query — spacing, comments, literals — is left byte for byte as the user wrote it.
//
// Where lezer and Prometheus's own lexer (promql/parser/lex.go) could read the same text differently,
// we refuse instead of guessing, because a selector Prometheus sees and we do not would escape the
// namespace:
// - lezer's string token accepts a literal with no closing quote and lets `\` escape anything; every
//   string literal is therefore checked against Prometheus's rules (unquotePromqlString);
// - Prometheus ends a `#` comment at `\r` as well as `\n` (lex.go isEndOfLine), lezer only at `\n`, so
//   `x # \r or secret` hides a selector from lezer: a comment holding `\r` is refused.
// Parsing is lezer's LR parser in strict mode (no error recovery), one pass over the tree, one pass to
// splice: linear in the query's length (test/unit/prometheus/promql-confine.test.ts measures it).
// Pure.
import { parser } from '@prometheus-io/lezer-promql';
import * as terms from '@prometheus-io/lezer-promql';
import type { SyntaxNode } from '@lezer/common';
import { promqlString, unquotePromqlString } from './promql-text.ts';
import { costRefusal, DEFAULT_PROMQL_COST_BOUNDS, type PromqlCostBounds } from './promql-cost.ts';

export class PromqlConfinementError extends Error {
  override name = 'PromqlConfinementError';
}

/** The longest user query the policy parses (the CRD's maxLength uses the same number). */
export const MAX_USER_PROMQL_LENGTH = 4096;

/** The label a namespace-confined query is pinned on (kube-state-metrics and cAdvisor both use it). */
const NAMESPACE_LABEL = 'namespace';

// Strict mode throws at the first token that does not fit instead of repairing the tree, which is
// both the answer we want (refuse) and cheaper than error recovery on hostile input.
const strictParser = parser.configure({ strict: true });

interface Insertion {
  at: number;
  text: string;
}

function where(query: string, pos: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = query.indexOf('\n'); i !== -1 && i < pos; i = query.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `position ${pos} (line ${line}, column ${pos - lineStart + 1})`;
}

function excerpt(query: string, from: number, to: number): string {
  const text = query.slice(from, to);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function doesNotParse(query: string, pos: number, why?: string): PromqlConfinementError {
  const near = excerpt(query, pos, Math.min(query.length, pos + 20));
  return new PromqlConfinementError(`query does not parse: ${why ?? 'unexpected input'} at ${where(query, pos)}${near ? ` near ${JSON.stringify(near)}` : ''}`);
}

function stringValue(query: string, node: SyntaxNode): string {
  try {
    return unquotePromqlString(query.slice(node.from, node.to));
  } catch (e) {
    throw doesNotParse(query, node.from, (e as Error).message);
  }
}

/** The label name of a matcher node (bare, or a quoted Prometheus 3 UTF-8 name). */
function matcherLabel(query: string, nameNode: SyntaxNode): string {
  if (nameNode.type.id === terms.QuotedLabelName) {
    const lit = nameNode.firstChild;
    return lit ? stringValue(query, lit) : '';
  }
  return query.slice(nameNode.from, nameNode.to);
}

/** Where and what to insert into one VectorSelector, or undefined when it is already confined. */
function confineSelector(query: string, sel: SyntaxNode, namespace: string): Insertion | undefined {
  let ident: SyntaxNode | null = null;
  let matchers: SyntaxNode | null = null;
  for (let c = sel.firstChild; c; c = c.nextSibling) {
    if (c.type.id === terms.Identifier) ident = c;
    else if (c.type.id === terms.LabelMatchers) matchers = c;
  }
  const ours = `${NAMESPACE_LABEL}=${promqlString(namespace)}`;
  if (!matchers) {
    if (!ident) throw doesNotParse(query, sel.from, 'selector without a name or matchers');
    return { at: ident.to, text: `{${ours}}` };
  }
  let last: SyntaxNode | null = null;
  let confined = false;
  for (let m = matchers.firstChild; m; m = m.nextSibling) {
    const id = m.type.id;
    if (id === terms.QuotedLabelName) {
      last = m; // `{"metric.name"}`: a metric name inside the braces
      continue;
    }
    if (id !== terms.UnquotedLabelMatcher && id !== terms.QuotedLabelMatcher) continue;
    last = m;
    const nameNode = m.firstChild;
    const opNode = m.getChild('MatchOp');
    const valueNode = m.lastChild;
    if (!nameNode || !opNode || !valueNode || valueNode.type.id !== terms.StringLiteral) {
      throw doesNotParse(query, m.from, 'incomplete label matcher');
    }
    if (matcherLabel(query, nameNode) !== NAMESPACE_LABEL) continue;
    const op = query.slice(opNode.from, opNode.to);
    const value = stringValue(query, valueNode);
    const selector = excerpt(query, sel.from, sel.to);
    if (op !== '=') {
      throw new PromqlConfinementError(`selector ${selector} at ${where(query, sel.from)} matches the namespace with "${op}": only namespace="${namespace}" may be queried here, so the namespace must be matched with "=" or not at all`);
    }
    if (value !== namespace) {
      throw new PromqlConfinementError(`selector ${selector} at ${where(query, sel.from)} asks for namespace ${promqlString(value)}: only namespace ${promqlString(namespace)} may be queried here`);
    }
    confined = true;
  }
  if (!ident && !last) {
    // Prometheus refuses `{}` too ("vector selector must contain at least one non-empty matcher"); with
    // our matcher added it would suddenly select every series of the namespace.
    throw new PromqlConfinementError(`selector {} at ${where(query, sel.from)} has neither a metric name nor a matcher`);
  }
  if (confined) return undefined;
  // After the last matcher rather than before `}`: a trailing comma or a comment may follow it.
  if (!last) return { at: matchers.from + 1, text: ours };
  return { at: last.to, text: `,${ours}` };
}

/**
 * `query` with `namespace="<namespace>"` enforced on every vector selector, the rest of the text
 * unchanged. A selector that already has exactly that matcher is left as it is. Throws
 * PromqlConfinementError for an empty query, one that does not parse, or a selector that matches
 * the namespace label any other way; with `bounds`, also for a range or subquery that costs more than
 * they allow (promql-cost.ts), judged in the same walk over the same tree.
 */
export function confineToNamespace(query: string, namespace: string, bounds?: PromqlCostBounds): string {
  if (namespace === '') {
    // namespace="" selects the series that have no namespace label: cluster-wide data.
    throw new PromqlConfinementError('cannot confine a query to the empty namespace');
  }
  if (query.trim() === '') throw new PromqlConfinementError('the query is empty');
  let tree;
  try {
    tree = strictParser.parse(query);
  } catch (e) {
    if (e instanceof SyntaxError) {
      const m = /No parse at (\d+)/.exec(e.message);
      const pos = m ? Number(m[1]) : 0;
      // lezer bounds the depth of the trees it builds (stack depth, long left-associative chains) and,
      // in strict mode, stops there: such a query is refused, never half-read.
      const deep = pos >= 2000 ? 'unexpected input, or nesting or operator chains deeper than the parser accepts,' : undefined;
      throw doesNotParse(query, pos, deep);
    }
    if (e instanceof RangeError) throw new PromqlConfinementError(`query is nested too deeply to check (${e.message})`);
    throw e;
  }
  const inserts: Insertion[] = [];
  const cursor = tree.cursor();
  do {
    const type = cursor.type;
    if (type.isError) throw doesNotParse(query, cursor.from);
    switch (type.id) {
      case terms.VectorSelector: {
        const ins = confineSelector(query, cursor.node, namespace);
        if (ins) inserts.push(ins);
        break;
      }
      case terms.MatrixSelector:
      case terms.SubqueryExpr: {
        const refusal = bounds && costRefusal(query, cursor.node, bounds);
        if (refusal) throw new PromqlConfinementError(`${refusal.message}, at ${where(query, refusal.at)}`);
        break;
      }
      case terms.StringLiteral:
        stringValue(query, cursor.node);
        break;
      case terms.LineComment:
        if (query.slice(cursor.from, cursor.to).includes('\r')) {
          throw doesNotParse(query, cursor.from, 'carriage return inside a comment (Prometheus ends the comment there, so the rest of the line would be read as query)');
        }
        break;
    }
  } while (cursor.next());
  if (inserts.length === 0) return query;
  // Selectors never nest, and the cursor walks in document order, so the insertions are ascending.
  const parts: string[] = [];
  let pos = 0;
  for (const ins of inserts) {
    parts.push(query.slice(pos, ins.at), ins.text);
    pos = ins.at;
  }
  parts.push(query.slice(pos));
  return parts.join('');
}

/** How a cluster treats PromQL its users write (the `--user-promql` flag). */
export type UserPromqlMode = 'namespaced' | 'unrestricted' | 'off';

export interface UserPromqlPolicy {
  mode: UserPromqlMode;
  /** With mode `unrestricted`: when non-empty, only these namespaces are unrestricted, the rest namespaced. */
  unrestrictedNamespaces: ReadonlySet<string>;
  /** What a confined query may cost (default DEFAULT_PROMQL_COST_BOUNDS); unrestricted namespaces are trusted as written. */
  bounds?: PromqlCostBounds;
}

/** The safe default: user PromQL confined to the object's namespace (--user-promql=namespaced). */
export const NAMESPACED_PROMQL: UserPromqlPolicy = { mode: 'namespaced', unrestrictedNamespaces: new Set() };

/** True when objects in `namespace` may read any series (the admin's `unrestricted` list, or all of them). */
export function isUnrestrictedNamespace(policy: UserPromqlPolicy, namespace: string): boolean {
  return policy.mode === 'unrestricted' && (policy.unrestrictedNamespaces.size === 0 || policy.unrestrictedNamespaces.has(namespace));
}

/**
 * The query to run for a user-written `query` from an object in `namespace`, under `policy`; throws
 * PromqlConfinementError when the policy refuses it.
 */
export function applyUserPromqlPolicy(policy: UserPromqlPolicy, namespace: string, query: string): string {
  if (policy.mode === 'off') throw new PromqlConfinementError('user PromQL is disabled on this cluster (--user-promql=off)');
  if (isUnrestrictedNamespace(policy, namespace)) return query;
  if (query.length > MAX_USER_PROMQL_LENGTH) {
    throw new PromqlConfinementError(`query is ${query.length} characters long; at most ${MAX_USER_PROMQL_LENGTH} are accepted`);
  }
  return confineToNamespace(query, namespace, policy.bounds ?? DEFAULT_PROMQL_COST_BOUNDS);
}

// A DNS-1123 label: what a Kubernetes namespace name must be.
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Parses a `--user-promql` value: `namespaced`, `off`, `unrestricted` or `unrestricted=ns1,ns2`. */
export function parseUserPromqlFlag(text: string): UserPromqlPolicy {
  const value = text.trim();
  if (value === 'namespaced' || value === 'off' || value === 'unrestricted') return { mode: value, unrestrictedNamespaces: new Set() };
  if (value.startsWith('unrestricted=')) {
    const names = value.slice('unrestricted='.length).split(',').map((n) => n.trim());
    if (names.length === 0 || names.some((n) => n === '')) {
      throw new Error(`--user-promql=${text}: "unrestricted=" needs a comma-separated list of namespaces without empty entries`);
    }
    const bad = names.find((n) => n.length > 63 || !NAMESPACE_NAME.test(n));
    if (bad !== undefined) throw new Error(`--user-promql=${text}: "${bad}" is not a valid namespace name`);
    return { mode: 'unrestricted', unrestrictedNamespaces: new Set(names) };
  }
  throw new Error(`--user-promql=${text}: expected namespaced, off, unrestricted or unrestricted=<ns>[,<ns>...]`);
}
