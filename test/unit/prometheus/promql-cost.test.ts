import { expect } from 'chai';
import { applyUserPromqlPolicy, confineToNamespace, PromqlConfinementError, type UserPromqlPolicy } from '../../../src/prometheus/promql-confine.ts';
import { DEFAULT_PROMQL_COST_BOUNDS, formatPromqlDuration, parsePromqlDuration } from '../../../src/prometheus/promql-cost.ts';
import { metricQuery, UnsupportedQueryError } from '../../../src/prediction/history/queries.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import { parseFlags } from '../../../src/config/flags.ts';
import { promqlCostBoundsFromFlags, TENANT_PROMQL_FLAGS } from '../../../src/prometheus/flags.ts';
import { COST_CASES, CONFINE_CASES, NS } from '../../helpers/promql-confine-cases.ts';

const NAMESPACED: UserPromqlPolicy = { mode: 'namespaced', unrestrictedNamespaces: new Set() };

function refusal(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  return expect.fail('expected a refusal');
}

describe('user PromQL cost bounds (range length, subquery resolution)', () => {
  describe('at the defaults (1h, 10s)', () => {
    for (const c of COST_CASES) {
      it(`${c.error ? 'refuses' : 'accepts'} ${c.name}: ${JSON.stringify(c.query)}`, () => {
        if (!c.error) {
          // Accepted means confined exactly as without bounds: the cost check changes no text.
          expect(applyUserPromqlPolicy(NAMESPACED, NS, c.query)).to.equal(confineToNamespace(c.query, NS));
          return;
        }
        const e = refusal(() => applyUserPromqlPolicy(NAMESPACED, NS, c.query));
        expect(e).to.be.instanceOf(PromqlConfinementError);
        expect(e.message).to.match(c.error);
        expect(e.message).to.match(/at position \d+ \(line \d+, column \d+\)/);
      });
    }
  });

  it('leaves every query of the confinement table alone (none is over the defaults)', () => {
    for (const c of CONFINE_CASES) expect(applyUserPromqlPolicy(NAMESPACED, NS, c.query), c.name).to.equal(c.want);
  });

  it('points at the offending duration', () => {
    const q = 'sum(rate(a[5m]))\n/ max_over_time(rate(b[1m])[30d:1s])';
    const e = refusal(() => applyUserPromqlPolicy(NAMESPACED, NS, q));
    expect(e.message).to.match(/subquery range \[30d\].*at position 45 \(line 2, column 29\)/);
    expect(q.slice(45, 48)).to.equal('30d');
  });

  it('takes its numbers from the policy, and names them in the refusal', () => {
    const wide: UserPromqlPolicy = { ...NAMESPACED, bounds: { maxRangeMs: 31 * 86_400_000, minSubqueryStepMs: 1000 } };
    expect(applyUserPromqlPolicy(wide, NS, 'max_over_time(rate(x[1m])[30d:1s])')).to.equal(`max_over_time(rate(x{namespace="${NS}"}[1m])[30d:1s])`);
    const narrow: UserPromqlPolicy = { ...NAMESPACED, bounds: { maxRangeMs: 5 * 60_000, minSubqueryStepMs: 60_000 } };
    expect(refusal(() => applyUserPromqlPolicy(narrow, NS, 'rate(x[10m])')).message).to.match(/longer than the 5m user PromQL/);
    expect(refusal(() => applyUserPromqlPolicy(narrow, NS, 'max_over_time(x[5m:30s])')).message).to.match(/finer than the 1m user PromQL/);
  });

  it('does not judge an unrestricted namespace (the admin trusts it as written)', () => {
    const policy: UserPromqlPolicy = { mode: 'unrestricted', unrestrictedNamespaces: new Set(['ops']) };
    expect(applyUserPromqlPolicy(policy, 'ops', 'x[30d:1s]')).to.equal('x[30d:1s]');
    expect(() => applyUserPromqlPolicy(policy, NS, 'x[30d:1s]')).to.throw(/--user-promql-max-range/);
  });

  it('a TSP expression over the bound is an UnsupportedQueryError naming the metric and the flag', () => {
    const tsp = { metadata: { namespace: NS, name: 't' }, spec: { targetRef: { kind: 'Deployment', name: 'web' } } } as TimeSeriesPrediction;
    const m = { resourceIdentifier: 'qps', type: 'ExpressionQuery' as const, expressionQuery: { expression: 'max_over_time(rate(x[1m])[30d:1s])' } };
    const e = refusal(() => metricQuery(tsp, m));
    expect(e).to.be.instanceOf(UnsupportedQueryError);
    expect(e.message).to.match(/^metric qps: subquery range \[30d\] is longer than the 1h .*--user-promql-max-range/);
  });

  it("serve's flags default to the same bounds, and a value given reaches the policy", () => {
    expect(promqlCostBoundsFromFlags(parseFlags(TENANT_PROMQL_FLAGS, []))).to.deep.equal(DEFAULT_PROMQL_COST_BOUNDS);
    const given = promqlCostBoundsFromFlags(parseFlags(TENANT_PROMQL_FLAGS, ['--user-promql-max-range=2h', '--user-promql-min-subquery-step=30s']));
    expect(given).to.deep.equal({ maxRangeMs: 7_200_000, minSubqueryStepMs: 30_000 });
    expect(() => parseFlags(TENANT_PROMQL_FLAGS, ['--user-promql-max-range=0s'])).to.throw(/at least 1000ms/);
  });

  it('reads durations the way Prometheus does', () => {
    expect(parsePromqlDuration('1h30m')).to.equal(5_400_000);
    expect(parsePromqlDuration('1y2w3d4h5m6s7ms')).to.equal(365 * 86_400_000 + 14 * 86_400_000 + 3 * 86_400_000 + 4 * 3_600_000 + 5 * 60_000 + 6000 + 7);
    expect(parsePromqlDuration('90')).to.equal(90_000);
    expect(parsePromqlDuration('1.5')).to.equal(1500);
    // Units out of order, repeated, unknown or empty are not durations.
    for (const bad of ['', '5m1h', '1h1h', '5x', 'h', '1.5m', '-5m', '0x10', '1 h']) expect(parsePromqlDuration(bad), bad).to.equal(undefined);
    expect(formatPromqlDuration(DEFAULT_PROMQL_COST_BOUNDS.maxRangeMs)).to.equal('1h');
    expect(formatPromqlDuration(DEFAULT_PROMQL_COST_BOUNDS.minSubqueryStepMs)).to.equal('10s');
    expect(formatPromqlDuration(5_400_500)).to.equal('1h30m500ms');
  });
});
