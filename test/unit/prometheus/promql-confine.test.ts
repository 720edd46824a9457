import { expect } from 'chai';
import { parser } from '@prometheus-io/lezer-promql';
import {
  applyUserPromqlPolicy,
  confineToNamespace,
  MAX_USER_PROMQL_LENGTH,
  parseUserPromqlFlag,
  PromqlConfinementError,
  type UserPromqlPolicy,
} from '../../../src/prometheus/promql-confine.ts';
import { promqlString, regexEscape, unquotePromqlString } from '../../../src/prometheus/promql-text.ts';
import { workloadCpuQuery, workloadMemoryQuery } from '../../../src/prediction/history/queries.ts';
import { observedCpuQuery } from '../../../src/adapter/observed-usage.ts';
import { mulberry32 } from '../../helpers/seeded-random.ts';
import { CONFINE_CASES, NS, REJECT_CASES } from '../../helpers/promql-confine-cases.ts';

interface SelectorSummary {
  text: string;
  /** Every matcher on the namespace label: its operator and decoded value. */
  namespaceMatchers: { op: string; value: string }[];
}

/**
 * An independent reading of a query: parse it with lezer (error recovery on, so errors show up as ⚠
 * nodes rather than exceptions) and list each vector selector's namespace matchers.
 */
function selectors(query: string): { errors: number; selectors: SelectorSummary[] } {
  const tree = parser.parse(query);
  let errors = 0;
  const out: SelectorSummary[] = [];
  tree.iterate({
    enter(n) {
      if (n.type.isError) errors++;
      if (n.name !== 'VectorSelector') return;
      const ms = n.node.getChild('LabelMatchers');
      const namespaceMatchers: SelectorSummary['namespaceMatchers'] = [];
      for (const m of ms ? [...ms.getChildren('UnquotedLabelMatcher'), ...ms.getChildren('QuotedLabelMatcher')] : []) {
        const nameNode = m.firstChild!;
        const name = nameNode.name === 'LabelName' ? query.slice(nameNode.from, nameNode.to) : unquotePromqlString(query.slice(nameNode.from, nameNode.to));
        if (name !== 'namespace') continue;
        const op = m.getChild('MatchOp')!;
        const v = m.lastChild!;
        namespaceMatchers.push({ op: query.slice(op.from, op.to), value: unquotePromqlString(query.slice(v.from, v.to)) });
      }
      out.push({ text: query.slice(n.from, n.to), namespaceMatchers });
    },
  });
  return { errors, selectors: out };
}

/** The property every confined query must have: it parses cleanly and every selector has exactly namespace="ns". */
function expectConfined(output: string, namespace: string): void {
  const r = selectors(output);
  expect(r.errors, `error nodes in ${JSON.stringify(output)}`).to.equal(0);
  for (const s of r.selectors) {
    expect(s.namespaceMatchers, `selector ${s.text} in ${JSON.stringify(output)}`).to.deep.equal([{ op: '=', value: namespace }]);
  }
}

function rejection(f: () => unknown): PromqlConfinementError {
  try {
    f();
  } catch (e) {
    expect(e).to.be.instanceOf(PromqlConfinementError);
    return e as PromqlConfinementError;
  }
  return expect.fail('expected a PromqlConfinementError');
}

// A small PromQL generator: selectors in every position the grammar has, with whitespace, comments and
// literals around them. Everything it makes is valid PromQL for lezer.
function randomQuery(rnd: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const ws = () => pick(['', '', ' ', ' ', '\n', '\t', ' # note {x="y"} namespace="z"\n']);
  const names = ['up', 'http_requests_total', 'a', 'job:rate5m:sum', 'x_1', 'container_cpu_usage_seconds_total'];
  const matchers = ['job="api"', 'pod=~"web-.*"', 'container!=""', '"quoted.label"="v"', "le='0.5'", 'x!~`a|b`', `namespace="${NS}"`, `namespace='${NS}'`];
  const selector = (): string => {
    const name = rnd() < 0.8 ? pick(names) : '';
    if (name && rnd() < 0.4) return name;
    const n = name ? Math.floor(rnd() * 3) : 1 + Math.floor(rnd() * 2);
    // Distinct matchers, at most one on the namespace (two equal ones are the user's own duplicate).
    const ms: string[] = [];
    while (ms.length < n) {
      const m = pick(matchers);
      if (!ms.includes(m) && !(m.startsWith('namespace') && ms.some((x) => x.startsWith('namespace')))) ms.push(m);
    }
    if (!name && rnd() < 0.3) ms.unshift(pick(['"quoted.metric"', '__name__="up"']));
    return `${name}{${ws()}${ms.join(`,${ws()}`)}${ms.length && rnd() < 0.2 ? ',' : ''}${ws()}}`;
  };
  const dur = () => pick(['5m', '1h', '30s', '1h30m']);
  const gen = (depth: number): string => {
    if (depth <= 0) return rnd() < 0.85 ? selector() : pick(['1', '2.5', 'vector(1)', 'time()']);
    const d = depth - 1;
    switch (Math.floor(rnd() * 12)) {
      case 0:
        return `${pick(['rate', 'irate', 'increase', 'max_over_time'])}(${ws()}${selector()}[${dur()}]${ws()})`;
      case 1:
        return `${pick(['sum', 'max', 'count', 'avg'])}${pick(['', ' by (pod)', ' without(job)'])}${ws()}(${gen(d)})`;
      case 2:
        return `${gen(d)}${ws()} ${pick(['+', '-', '*', '/', '%', 'and', 'or', 'unless', '>', '== bool'])} ${ws()}${pick(['', 'on(pod) ', 'ignoring(job) '])}${gen(d)}`;
      case 3:
        return `(${ws()}${gen(d)}${ws()})`;
      case 4:
        return `max_over_time(${gen(d)}[${dur()}:${pick(['', '1m'])}])`;
      case 5:
        return `${selector()} offset ${dur()}`;
      case 6:
        return `${selector()} @ ${pick(['100', 'start()', 'end()'])}`;
      case 7:
        return `-${gen(d)}`;
      case 8:
        return `label_replace(${gen(d)}, "dst", "{namespace=\\"x\\"}", "src", "(.*)")`;
      case 9:
        return `topk(${pick(['3', 'scalar(a)'])}, ${gen(d)})`;
      case 10:
        return `histogram_quantile(0.9, ${gen(d)})`;
      default:
        return `${gen(d)} # trailing {comment}\n`;
    }
  };
  return gen(2 + Math.floor(rnd() * 4));
}

describe('confineToNamespace (prom-label-proxy-style confinement)', () => {
  describe('rewrites every selector, leaving the rest of the text as written', () => {
    for (const c of CONFINE_CASES) {
      it(`${c.name}: ${JSON.stringify(c.query)}`, () => {
        const out = confineToNamespace(c.query, NS);
        expect(out).to.equal(c.want);
        expectConfined(out, NS);
        // Confining a confined query changes nothing.
        expect(confineToNamespace(out, NS)).to.equal(out);
      });
    }
  });

  describe('refuses what it cannot confine, saying which selector and why', () => {
    for (const c of REJECT_CASES) {
      it(`${c.name}: ${JSON.stringify(c.query)}`, () => {
        expect(rejection(() => confineToNamespace(c.query, NS)).message).to.match(c.error);
      });
    }
    it('refuses to confine to the empty namespace (namespace="" selects series without the label)', () => {
      expect(rejection(() => confineToNamespace('up', '')).message).to.match(/empty namespace/);
    });
  });

  it('confines a few hundred generated queries: each parses again with no error node and every selector has exactly one namespace="ns"', () => {
    const rnd = mulberry32(20261124);
    let selectorsSeen = 0;
    for (let i = 0; i < 500; i++) {
      const q = randomQuery(rnd);
      expect(selectors(q).errors, `generator made a bad query: ${JSON.stringify(q)}`).to.equal(0);
      const out = confineToNamespace(q, NS);
      expectConfined(out, NS);
      expect(selectors(out).selectors.length).to.equal(selectors(q).selectors.length);
      selectorsSeen += selectors(out).selectors.length;
      expect(confineToNamespace(out, NS)).to.equal(out);
      // Only insertions: with the namespace matchers taken out of both, the texts are the same.
      const strip = (t: string) => t.replaceAll(`,namespace="${NS}"`, '').replaceAll(`{namespace="${NS}"`, '{').replaceAll('{}', '');
      expect(strip(out)).to.equal(strip(q));
      // The same query with another namespace already in it is refused.
      if (q.includes(`namespace="${NS}"`)) {
        expect(() => confineToNamespace(q.replace(`namespace="${NS}"`, 'namespace="other"'), NS)).to.throw(PromqlConfinementError, /asks for namespace "other"/);
      }
    }
    expect(selectorsSeen).to.be.greaterThan(500);
  });

  it('escapes the namespace as a PromQL string', () => {
    const ns = 'a"b\\c\nd';
    const out = confineToNamespace('x{y="z"}', ns);
    expect(out).to.equal('x{y="z",namespace="a\\"b\\\\c\\nd"}');
    expectConfined(out, ns);
  });

});

describe('applyUserPromqlPolicy', () => {
  const policy = (mode: UserPromqlPolicy['mode'], unrestricted: string[] = []): UserPromqlPolicy => ({ mode, unrestrictedNamespaces: new Set(unrestricted) });

  it('off: refuses every query', () => {
    const e = rejection(() => applyUserPromqlPolicy(policy('off'), 'a', 'up'));
    expect(e.message).to.equal('user PromQL is disabled on this cluster (--user-promql=off)');
  });

  it('namespaced: confines to the object\'s namespace', () => {
    expect(applyUserPromqlPolicy(policy('namespaced'), 'a', 'sum(up)')).to.equal('sum(up{namespace="a"})');
    expect(rejection(() => applyUserPromqlPolicy(policy('namespaced'), 'a', 'up{namespace="b"}')).message).to.match(/asks for namespace "b"/);
  });

  it('unrestricted: the query runs as written', () => {
    expect(applyUserPromqlPolicy(policy('unrestricted'), 'a', 'up{namespace="b"}')).to.equal('up{namespace="b"}');
  });

  it('unrestricted for some namespaces: those run as written, the rest are confined', () => {
    const p = policy('unrestricted', ['monitoring']);
    expect(applyUserPromqlPolicy(p, 'monitoring', 'up{namespace="b"}')).to.equal('up{namespace="b"}');
    expect(applyUserPromqlPolicy(p, 'a', 'up')).to.equal('up{namespace="a"}');
    expect(() => applyUserPromqlPolicy(p, 'a', 'up{namespace="b"}')).to.throw(PromqlConfinementError);
  });

  it(`refuses a query longer than MAX_USER_PROMQL_LENGTH (${MAX_USER_PROMQL_LENGTH}) before parsing it`, () => {
    expect(MAX_USER_PROMQL_LENGTH).to.equal(4096);
    const fits = `up${' '.repeat(MAX_USER_PROMQL_LENGTH - 2)}`;
    expect(applyUserPromqlPolicy(policy('namespaced'), 'a', fits)).to.equal(`up{namespace="a"}${' '.repeat(MAX_USER_PROMQL_LENGTH - 2)}`);
    const e = rejection(() => applyUserPromqlPolicy(policy('namespaced'), 'a', `${fits} `));
    expect(e.message).to.equal(`query is ${MAX_USER_PROMQL_LENGTH + 1} characters long; at most ${MAX_USER_PROMQL_LENGTH} are accepted`);
    // A megabyte is refused by its length in well under the time parsing it would take.
    const t0 = performance.now();
    expect(() => applyUserPromqlPolicy(policy('namespaced'), 'a', 'a + '.repeat(250_000))).to.throw(PromqlConfinementError, /characters long/);
    expect(performance.now() - t0).to.be.below(50);
  });
});

describe('parseUserPromqlFlag', () => {
  it('reads the four forms', () => {
    expect(parseUserPromqlFlag('namespaced')).to.deep.equal({ mode: 'namespaced', unrestrictedNamespaces: new Set() });
    expect(parseUserPromqlFlag('off')).to.deep.equal({ mode: 'off', unrestrictedNamespaces: new Set() });
    expect(parseUserPromqlFlag('unrestricted')).to.deep.equal({ mode: 'unrestricted', unrestrictedNamespaces: new Set() });
    expect(parseUserPromqlFlag('unrestricted=monitoring, team-a')).to.deep.equal({ mode: 'unrestricted', unrestrictedNamespaces: new Set(['monitoring', 'team-a']) });
  });

  for (const [text, error] of [
    ['', /expected namespaced, off, unrestricted or unrestricted=<ns>/],
    ['Namespaced', /expected namespaced/],
    ['on', /expected namespaced/],
    ['unrestricted=', /comma-separated list of namespaces without empty entries/],
    ['unrestricted=a,,b', /without empty entries/],
    ['unrestricted=Team_A', /"Team_A" is not a valid namespace name/],
    [`unrestricted=${'a'.repeat(64)}`, /is not a valid namespace name/],
  ] as const) {
    it(`refuses ${JSON.stringify(text)}`, () => {
      expect(() => parseUserPromqlFlag(text)).to.throw(Error, error);
    });
  }
});

describe('promql-text', () => {
  it('promqlString escapes backslash, double quote and newline, and reads back to the same value', () => {
    expect(promqlString('plain')).to.equal('"plain"');
    expect(promqlString('a"b\\c\nd')).to.equal('"a\\"b\\\\c\\nd"');
    const rnd = mulberry32(7);
    const alphabet = ['a', '"', '\\', '\n', "'", '`', 'é', '☃', '\t', '{', '}', '\r', '𝄞'];
    for (let i = 0; i < 500; i++) {
      const v = Array.from({ length: Math.floor(rnd() * 12) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
      expect(unquotePromqlString(promqlString(v))).to.equal(v);
    }
  });

  it('unquotePromqlString reads Go escapes the way Prometheus does, and refuses what it refuses', () => {
    expect(unquotePromqlString('"a\\x2db"')).to.equal('a-b');
    expect(unquotePromqlString('"\\303\\251"')).to.equal('é'); // octal escapes are bytes, as in Go
    expect(unquotePromqlString('"\\u00e9\\U0001d11e"')).to.equal('é𝄞');
    expect(unquotePromqlString("'it\\'s'")).to.equal("it's");
    expect(unquotePromqlString('`raw \\n`')).to.equal('raw \\n');
    for (const bad of ['"abc', '"a\nb"', '"\\q"', '"\\xZZ"', '"\\ud800"', '"\\xff"', "'\\\"'", '"\\', '"']) {
      expect(() => unquotePromqlString(bad), JSON.stringify(bad)).to.throw(Error);
    }
  });

  it('regexEscape makes a regex that matches exactly the text', () => {
    for (const t of ['.*|x', 'a.b', '^$()[]{}+?\\', 'web-1']) {
      expect(new RegExp(`^${regexEscape(t)}$`).test(t), t).to.equal(true);
    }
    expect(new RegExp(`^${regexEscape('a.b')}$`).test('axb')).to.equal(false);
    expect(regexEscape('.*|x')).to.equal('\\.\\*\\|x');
  });

  it('workload queries escape the workload name inside the pod regex (a name of `.*|x` matched every pod)', () => {
    for (const q of [workloadCpuQuery('ns', 'Deployment', '.*|x'), workloadMemoryQuery('ns', 'Deployment', '.*|x')]) {
      const literal = /pod=~("(?:[^"\\]|\\.)*")/.exec(q)![1]!;
      const re = new RegExp(unquotePromqlString(literal));
      expect(re.test('web-5d8f7c9b4-abcde'), q).to.equal(false);
      expect(re.test('.*|x-5d8f7c9b4-abcde'), q).to.equal(true);
      expectConfined(q, 'ns');
    }
    expect(workloadCpuQuery('a"b', 'StatefulSet', 'db')).to.contain('namespace="a\\"b",pod=~"^db-[0-9]+$"');
  });

  it('the observed-usage query quotes its namespace and pod regex with the same escaper', () => {
    const q = observedCpuQuery('a"b', ['web.1']);
    expect(q).to.contain('namespace="a\\"b",pod=~"web\\\\.1"');
    expectConfined(q, 'a"b');
  });
});
