// What a tenant's PromQL may cost Prometheus, judged from its text before it is sent. Confinement
// (promql-confine.ts) decides which series a query may read; this decides how much work reading them
// may take. The work of a PromQL query grows with two things the text chooses:
// - a range selector `x[d]` reads d worth of samples at every evaluation step: a `[30d]` range in a
//   query evaluated every minute reads 30 days per step;
// - a subquery `e[d:r]` evaluates `e` at every r over the whole span of the outer query plus d
//   (Prometheus evaluates a subquery once, from start - d to end, at resolution r): `[30d:1s]` is 2.6
//   million evaluations of `e` even for an instant query. Nested subqueries add their spans.
// So both ranges (`d`, of a range selector or a subquery) are bounded by one length, and a subquery's
// resolution has a floor: with the defaults a subquery has at most 1h / 10s = 360 points, and it costs
// at most (span of the outer query + 1h) / 10s evaluations. `offset` and `@` move the window without
// widening it, so they are not bounded.
//
// Durations are read the way Prometheus reads them (model.ParseDuration: units y w d h m s ms, each at
// most once, largest first; or a plain number of seconds). A duration written as an expression
// (Prometheus 3's `[5m*2]`, `[step()]`) is refused rather than evaluated here: what we cannot read
// exactly, we cannot bound. Pure.
import * as terms from '@prometheus-io/lezer-promql';
import type { SyntaxNode } from '@lezer/common';

export interface PromqlCostBounds {
  /** Longest range `[d]` of a range selector or a subquery, in milliseconds (--user-promql-max-range). */
  maxRangeMs: number;
  /** Finest resolution `[d:r]` of a subquery, in milliseconds (--user-promql-min-subquery-step). */
  minSubqueryStepMs: number;
}

/**
 * The defaults. One hour covers every range a forecast input needs (Crane's templates use 3m; `rate`
 * wants four scrape intervals), and an hourly maximum or average still fits. Ten seconds is finer than
 * any common scrape interval (15s–1m): a resolution below it evaluates the same samples again.
 */
export const DEFAULT_PROMQL_COST_BOUNDS: PromqlCostBounds = { maxRangeMs: 3_600_000, minSubqueryStepMs: 10_000 };

const UNIT_MS: Record<string, number> = { y: 365 * 86_400_000, w: 7 * 86_400_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
// model.ParseDuration's pattern: each unit at most once, in this order.
const DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const UNITS = ['y', 'w', 'd', 'h', 'm', 's', 'ms'] as const;
// Prometheus 3 also takes a number of seconds where a duration goes (`[300]`, `[1.5]`).
const SECONDS = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Milliseconds of a PromQL duration literal (`1h30m`, `5m`, `300`); undefined for anything else. */
export function parsePromqlDuration(text: string): number | undefined {
  if (text === '') return undefined;
  if (SECONDS.test(text)) {
    const ms = Number(text) * 1000;
    return Number.isFinite(ms) ? ms : undefined;
  }
  const m = DURATION.exec(text);
  if (!m) return undefined;
  let ms = 0;
  UNITS.forEach((u, i) => {
    if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * (UNIT_MS[u] as number);
  });
  return Number.isFinite(ms) ? ms : undefined;
}

/** A duration in Prometheus' own notation, for messages (3600000 → "1h", 5400000 → "1h30m"). */
export function formatPromqlDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = ms;
  let out = '';
  for (const u of UNITS) {
    const size = UNIT_MS[u] as number;
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${u}`;
      rest %= size;
    }
  }
  return out || `${ms}ms`;
}

/** Where a refusal points: the caller turns it into its own error type with the position in the query. */
export interface CostRefusal {
  at: number;
  message: string;
}

/** The literal milliseconds of one DurationExpr node, or a refusal when it is not a single literal. */
function literalMs(query: string, node: SyntaxNode, what: string): number | CostRefusal {
  const only = node.firstChild;
  const text = query.slice(node.from, node.to);
  if (!only || only.nextSibling || only.type.id !== terms.NumberDurationLiteralInDurationContext) {
    return { at: node.from, message: `${what} [${text}] is a duration expression: write it as a plain duration such as 5m, so its cost can be checked` };
  }
  const ms = parsePromqlDuration(text);
  if (ms === undefined) return { at: node.from, message: `${what} [${text}] is not a duration Prometheus reads (e.g. 5m, 1h30m)` };
  return ms;
}

/**
 * Why a MatrixSelector or SubqueryExpr node costs more than `bounds` allow, or undefined when it does
 * not. Only the node's own durations are judged: a nested one is its own node.
 */
export function costRefusal(query: string, node: SyntaxNode, bounds: PromqlCostBounds): CostRefusal | undefined {
  const durations = node.getChildren(terms.DurationExpr);
  const range = durations[0];
  if (!range) return undefined;
  const kind = node.type.id === terms.SubqueryExpr ? 'subquery range' : 'range';
  const rangeMs = literalMs(query, range, kind);
  if (typeof rangeMs !== 'number') return rangeMs;
  if (rangeMs > bounds.maxRangeMs) {
    return {
      at: range.from,
      message: `${kind} [${query.slice(range.from, range.to)}] is longer than the ${formatPromqlDuration(bounds.maxRangeMs)} user PromQL may read at once (--user-promql-max-range)`,
    };
  }
  if (node.type.id !== terms.SubqueryExpr) return undefined;
  const step = durations[1];
  // `[d:]` runs at Prometheus' own evaluation interval (global.evaluation_interval, 1m unless the
  // Prometheus admin lowered it): not the tenant's choice, so not refused here.
  if (!step) return undefined;
  const stepMs = literalMs(query, step, 'subquery resolution');
  if (typeof stepMs !== 'number') return stepMs;
  if (stepMs < bounds.minSubqueryStepMs) {
    return {
      at: step.from,
      message: `subquery resolution [${query.slice(range.from, range.to)}:${query.slice(step.from, step.to)}] is finer than the ${formatPromqlDuration(bounds.minSubqueryStepMs)} user PromQL may use (--user-promql-min-subquery-step)`,
    };
  }
  return undefined;
}
