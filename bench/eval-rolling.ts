// `npm run eval:forecast -- --rolling [--jobs N] [--traces substring,...]`: the rolling-origin evaluation
// (bench/rolling-origin.ts) over every fixture trace, one Markdown table per prediction window (it goes
// into BENCHMARKS.md under "## forecast window maximum"). Traces are spread over N child processes
// (default 2); the numbers do not depend on N.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { scoreWindows, type WindowPair } from '../src/prediction/dsp/window-coverage.ts';
import { DEFAULT_ROLLING, METHODS, rollingPairs, type Method, type TracePairs } from './rolling-origin.ts';
import { craneTraces, loadTrace, otherTraces, type Trace } from '../test/helpers/traces.ts';

export function allTraces(): Trace[] {
  return [...craneTraces(), ...otherTraces()];
}

const pct = (x: number) => (Number.isFinite(x) ? (100 * x).toFixed(0) : '∞');

interface TraceResult {
  name: string;
  result: TracePairs;
}

function runWorker(indices: number[]): void {
  const traces = allTraces();
  const out: TraceResult[] = [];
  for (const i of indices) {
    const t = traces[i] as Trace;
    const s = loadTrace(t);
    out.push({ name: t.name, result: rollingPairs(s, { ...DEFAULT_ROLLING, intervalSeconds: t.intervalSeconds }) });
  }
  process.stdout.write(JSON.stringify(out));
}

function child(indices: number[]): Promise<TraceResult[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--worker', indices.join(',')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    p.stdout.on('data', (d: Buffer) => (text += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(text) as TraceResult[]) : reject(new Error(`worker exited ${code}`))));
  });
}

export interface RollingSummary {
  window: number;
  /** Traces where calibrated auto reached ≥ 90 % coverage. */
  autoCovered: number;
  /** Traces where auto's slack at 90 % coverage is below crane's and every baseline's. */
  autoLeastSlack: number;
  traces: number;
}

export function tables(results: readonly TraceResult[], windows: readonly number[]): { text: string; summaries: RollingSummary[] } {
  const lines: string[] = [];
  const summaries: RollingSummary[] = [];
  const short = (n: string) => n.replace(/ \(CC-BY.*\)$/, '');
  for (const w of windows) {
    lines.push(`\n### window ${w / 60} min\n`);
    lines.push('Each cell: coverage % / slack % / slack % at 90 % coverage (multiplier). Bold: auto\'s slack at 90 % is the lowest of all methods but auto (before).\n');
    lines.push(`| trace | ${METHODS.join(' | ')} |`);
    lines.push(`|---|${METHODS.map(() => '---').join('|')}|`);
    let autoCovered = 0;
    let autoLeastSlack = 0;
    for (const r of results) {
      const byMethod = r.result.pairs[w] as Record<Method, WindowPair[]>;
      const scores = Object.fromEntries(METHODS.map((m) => [m, scoreWindows(byMethod[m])])) as Record<Method, ReturnType<typeof scoreWindows>>;
      const auto = scores['auto'];
      if (auto.coverage >= 0.9) autoCovered++;
      const rivals = METHODS.filter((m) => m !== 'auto' && m !== 'auto (before)');
      const least = rivals.every((m) => auto.slackAtLevel < scores[m].slackAtLevel || (scores[m].windows === 0));
      if (least) autoLeastSlack++;
      const cell = (m: Method) => {
        const s = scores[m];
        if (s.windows === 0) return '—';
        const text = `${pct(s.coverage)} / ${pct(s.slack)} / ${pct(s.slackAtLevel)} (×${Number.isFinite(s.multiplierAtLevel) ? s.multiplierAtLevel.toFixed(2) : '∞'})`;
        return m === 'auto' && least ? `**${text}**` : text;
      };
      lines.push(`| ${short(r.name)} | ${METHODS.map(cell).join(' | ')} |`);
    }
    summaries.push({ window: w, autoCovered, autoLeastSlack, traces: results.length });
    lines.push(
      `\nauto ≥ 90 % coverage on ${autoCovered}/${results.length} traces; auto's slack at 90 % coverage below crane's and every baseline's on ${autoLeastSlack}/${results.length} (${pct(autoLeastSlack / results.length)} %).`,
    );
  }
  lines.push('\nCrane mode forecast nothing (served the last value) at:');
  for (const r of results) lines.push(`- ${short(r.name)}: ${r.result.craneEmpty}/${r.result.cuts} cut points`);
  lines.push('\nForecasts calibrated auto chose (cut points per method):');
  for (const r of results) {
    const per = windows.map((w) => `${w / 60} min: ${Object.entries(r.result.autoMethods[w] ?? {}).map(([m, n]) => `${m} ${n}`).join(', ')}`);
    lines.push(`- ${short(r.name)}: ${per.join('; ')}`);
  }
  return { text: lines.join('\n'), summaries };
}

export async function rollingMain(argv: string[]): Promise<void> {
  const wi = argv.indexOf('--worker');
  if (wi >= 0) {
    runWorker((argv[wi + 1] ?? '').split(',').filter(Boolean).map(Number));
    return;
  }
  const ji = argv.indexOf('--jobs');
  const jobs = Math.max(1, ji >= 0 ? Number(argv[ji + 1]) : 2);
  const ti = argv.indexOf('--traces');
  const filter = ti >= 0 ? (argv[ti + 1] ?? '').split(',') : null;
  const traces = allTraces();
  const chosen = traces.map((t, i) => ({ t, i })).filter(({ t }) => !filter || filter.some((f) => t.name.includes(f)));
  // Deal the traces out largest first (input15 is four times the others) to balance the workers.
  const cost = (t: Trace) => (t.intervalSeconds <= 15 ? 4 : t.intervalSeconds <= 60 ? 1 : 0.1);
  const order = [...chosen].sort((a, b) => cost(b.t) - cost(a.t));
  const buckets: number[][] = Array.from({ length: jobs }, () => []);
  const load = new Array<number>(jobs).fill(0);
  for (const { t, i } of order) {
    const j = load.indexOf(Math.min(...load));
    (buckets[j] as number[]).push(i);
    load[j] = (load[j] as number) + cost(t);
  }
  const started = Date.now();
  const parts = await Promise.all(buckets.filter((b) => b.length).map(child));
  const byName = new Map(parts.flat().map((r) => [r.name, r]));
  const results = chosen.map(({ t }) => byName.get(t.name) as TraceResult);
  const { text } = tables(results, DEFAULT_ROLLING.windowsSeconds);
  console.log(
    `Rolling origin: cut points every ${DEFAULT_ROLLING.strideSeconds / 3600}h over the last ${DEFAULT_ROLLING.spanSeconds / 86_400} days, ` +
      `history up to ${DEFAULT_ROLLING.historySeconds / 86_400} days, auto coverage target ${DEFAULT_ROLLING.coverage}, seed ${DEFAULT_ROLLING.seed}.`,
  );
  console.log(text);
  console.error(`(${((Date.now() - started) / 1000).toFixed(0)} s with ${jobs} jobs)`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() as string)) {
  rollingMain(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
