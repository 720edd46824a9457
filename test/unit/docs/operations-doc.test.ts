// docs/operations.md and docs/grafana-dashboard.json stay true to the code: the generated flag and metric
// tables are current, every condition/event reason the code can emit is documented, and every dashboard
// query reads only metrics the process exports. When one fails after adding a flag or metric, run
// `node --import tsx scripts/gen-flag-docs.ts` (and document new reasons / update the dashboard).
import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  OPERATIONS_DOC,
  ROOT,
  defaultMetricDefinitions,
  exposedSeries,
  regenerate,
  renderFlagDocs,
  scanMetricDefinitions,
} from '../../../scripts/gen-flag-docs.ts';
import { COMMANDS } from '../../../src/cli/commands.ts';

const doc = readFileSync(OPERATIONS_DOC, 'utf8');

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

/** Condition and event reasons as they are written in the controllers' and adapter's sources. */
function reasonsInCode(): Map<string, string> {
  const found = new Map<string, string>();
  const add = (reason: string, file: string) => {
    if (!found.has(reason)) found.set(reason, file.slice(ROOT.length));
  };
  // The served value's reasons are decided in metric-values/forecast-value.ts (forecast-window.ts's are internal).
  const files = [...['src/ehpa', 'src/prediction/controller', 'src/adapter'].flatMap((dir) => [...tsFiles(join(ROOT, dir))]), join(ROOT, 'src/metric-values/forecast-value.ts')];
  {
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const line of text.split('\n')) {
        const ev = /\.event\(\s*\w+,\s*'(?:Normal|Warning)',(.*)$/.exec(line);
        if (ev) for (const m of (ev[1] as string).matchAll(/'([A-Z][A-Za-z]+)'/g)) add(m[1] as string, file);
      }
      for (const m of text.matchAll(/new Failure\('([A-Za-z]+)'/g)) add(m[1] as string, file);
      // `reason: 'X'` and unions `reason: 'X' | 'Y'` (SpecProblem, MetricProblem, fallback reasons).
      for (const m of text.matchAll(/\breason\??:\s*((?:'[A-Z][A-Za-z]+'\s*\|?\s*)+)/g)) {
        for (const r of (m[1] as string).matchAll(/'([A-Za-z]+)'/g)) add(r[1] as string, file);
      }
      for (const m of text.matchAll(/export const (?:PREDICT_\w+|READY_REASON)\s*=\s*'([A-Za-z]+)'/g)) add(m[1] as string, file);
    }
  }
  return found;
}

describe('docs/operations.md', () => {
  it('the generated flag and metric tables are up to date (else: node --import tsx scripts/gen-flag-docs.ts)', () => {
    expect(regenerate(doc) === doc, 'docs/operations.md is stale').to.equal(true);
  });

  it('lists every flag of every command with its default', () => {
    const flags = renderFlagDocs();
    for (const c of COMMANDS) {
      expect(doc).to.include(`### \`ehpa-adapter ${c.name}\``);
      for (const f of c.flags) {
        expect(flags).to.include(`| \`--${f.name}\` |`);
        if (f.default !== undefined) expect(doc).to.include(`| \`--${f.name}\` | ${f.type === 'enum' ? (f.values ?? []).join(' \\| ') : f.type} | \`${String(f.default)}\``);
      }
    }
  });

  it('documents every ehpa_adapter_ metric defined in src/', () => {
    const defs = scanMetricDefinitions();
    expect(defs.length).to.be.at.least(8);
    for (const d of defs) {
      // Ours, and Crane's series exported under Crane's names (gocrane/crane pkg/metrics/autoscaling.go).
      expect(d.name).to.match(/^(ehpa_adapter|crane_autoscaling)_[a-z0-9_]+$/);
      expect(d.help, d.name).to.not.equal('');
      expect(doc).to.include(`| \`${d.name}\` | ${d.type} |`);
    }
  });

  it('documents every condition and event reason the controllers and the adapter emit', () => {
    const reasons = reasonsInCode();
    // A sanity floor, so a broken scan cannot pass vacuously.
    for (const r of ['HPACreated', 'FailedGetScale', 'InvalidCron', 'PredictSucceed', 'PredictionOutdated', 'MissingCPURequests', 'EffectiveHorizontalPodAutoscalerReady']) {
      expect([...reasons.keys()]).to.include(r);
    }
    const missing = [...reasons].filter(([r]) => !doc.includes(`\`${r}\``)).map(([r, f]) => `${r} (${f})`);
    expect(missing, 'reasons missing from docs/operations.md').to.deep.equal([]);
  });

  it('is linked from README.md', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).to.include('docs/operations.md');
  });
});

describe('docs/grafana-dashboard.json', () => {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'docs', 'grafana-dashboard.json'), 'utf8')) as {
    title: string;
    panels: { type: string; title: string; targets?: { expr: string }[] }[];
    templating: { list: { query?: { query: string } | string }[] };
  };

  it('parses and has panels with queries', () => {
    expect(dashboard.title).to.equal('ehpa-adapter');
    const withQueries = dashboard.panels.filter((p) => p.type !== 'row');
    expect(withQueries.length).to.be.at.least(8);
    for (const p of withQueries) expect(p.targets?.length ?? 0, p.title).to.be.greaterThan(0);
  });

  it('every query reads ehpa_adapter_ series that the process exports', async () => {
    const known = new Set([...scanMetricDefinitions(), ...(await defaultMetricDefinitions())].flatMap(exposedSeries));
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
    for (const v of dashboard.templating.list) {
      const q = typeof v.query === 'string' ? v.query : v.query?.query;
      if (q) exprs.push({ panel: 'templating', expr: q });
    }
    const used = new Set<string>();
    for (const { panel, expr } of exprs) {
      const names = expr.match(/\behpa_adapter_[a-z0-9_]+/g) ?? [];
      expect(names.length, `${panel}: ${expr}`).to.be.greaterThan(0);
      for (const n of names) {
        expect(known.has(n), `${panel}: unknown metric ${n}`).to.equal(true);
        used.add(n);
      }
    }
    // The adapter's and controllers' own series are on the dashboard, not just process metrics.
    expect([...used].filter((n) => scanMetricDefinitions().some((d) => exposedSeries(d).includes(n))).length).to.be.at.least(6);
  });
});
