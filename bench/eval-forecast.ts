// `npm run eval:forecast`: hold out the last day of every trace (the last week for weekly ones), forecast it
// from the rest in `crane` and in `auto` mode, and print accuracy and provisioning figures as a Markdown
// table (it goes into BENCHMARKS.md under "## forecast accuracy"). `--rolling` runs the rolling-origin
// evaluation of the window maximum instead (bench/eval-rolling.ts).
import { dspForecast, type EstimatorMode } from '../src/prediction/dsp/forecast.ts';
import { printPeriodTable } from './period-table.ts';
import { craneTraces, loadTrace, otherTraces, type Trace } from '../test/helpers/traces.ts';

const DAY = 86_400;
const WEEK = 7 * DAY;

interface Scores {
  mape: number;
  smape: number;
  under: number;
  over: number;
  coverage: number;
  period: number | null;
  estimator: string | null;
}

function score(actualT: number[], actualV: number[], samples: { timestamp: number; value: number }[]): Scores | null {
  const byTime = new Map(samples.map((s) => [s.timestamp, s.value]));
  let n = 0, mape = 0, mapeN = 0, smape = 0, under = 0, overSum = 0, actualSum = 0;
  for (let i = 0; i < actualT.length; i++) {
    const p = byTime.get(actualT[i] as number);
    if (p === undefined) continue;
    const a = actualV[i] as number;
    n++;
    if (a !== 0) {
      mape += Math.abs(p - a) / Math.abs(a);
      mapeN++;
    }
    smape += Math.abs(p) + Math.abs(a) === 0 ? 0 : (2 * Math.abs(p - a)) / (Math.abs(p) + Math.abs(a));
    if (p < a) under++;
    overSum += Math.max(0, p - a);
    actualSum += a;
  }
  if (n === 0) return null;
  return {
    mape: (100 * mape) / Math.max(1, mapeN),
    smape: (100 * smape) / n,
    under: (100 * under) / n,
    over: (100 * overSum) / actualSum,
    coverage: (100 * n) / actualT.length,
    period: null,
    estimator: null,
  };
}

export interface TraceResult {
  trace: Trace;
  holdoutSeconds: number;
  crane: Scores | null;
  auto: Scores | null;
  cranePeriod: number | null;
  autoPeriod: number | null;
}

export function evaluate(trace: Trace, seed = 1): TraceResult {
  const series = loadTrace(trace);
  const holdoutSeconds = trace.label === 'week' ? WEEK : DAY;
  const last = series.timestamps[series.timestamps.length - 1] as number;
  const cut = last - holdoutSeconds;
  const split = series.timestamps.findIndex((t) => t > cut);
  const history = { timestamps: series.timestamps.slice(0, split), values: series.values.slice(0, split) };
  const actualT = series.timestamps.slice(split);
  const actualV = series.values.slice(split);
  const run = (mode: EstimatorMode) =>
    dspForecast(
      history,
      {
        intervalSeconds: trace.intervalSeconds,
        historySeconds: 15 * DAY,
        horizonSeconds: holdoutSeconds,
        estimators: mode,
      },
      seed,
    );
  const c = run('crane');
  const a = run('auto');
  const cs = score(actualT, actualV, c.samples);
  const as = score(actualT, actualV, a.samples);
  if (cs) Object.assign(cs, { period: c.periodSeconds, estimator: c.estimator });
  if (as) Object.assign(as, { period: a.periodSeconds, estimator: a.estimator });
  return { trace, holdoutSeconds, crane: cs, auto: as, cranePeriod: c.periodSeconds, autoPeriod: a.periodSeconds };
}

const f1 = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(1));
const periodName = (p: number | null) => (p === DAY ? 'day' : p === WEEK ? 'week' : 'none');

function main(): void {
  const results = [...craneTraces(), ...otherTraces()].map((t) => evaluate(t));
  console.log('| trace | label | held out | period found (crane / auto) | points scored (crane / auto) | crane MAPE % | auto MAPE % | crane sMAPE % | auto sMAPE % | crane under % | auto under % | crane over-prov. % | auto over-prov. % |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  let periodic = 0, wins = 0, withinOver = 0, both = 0;
  for (const r of results) {
    const c = r.crane ?? undefined;
    const a = r.auto ?? undefined;
    console.log(
      `| ${r.trace.name} | ${r.trace.label ?? '—'} | ${r.holdoutSeconds === WEEK ? '7d' : '1d'} | ${periodName(r.cranePeriod)} / ${periodName(r.autoPeriod)} | ${c ? `${c.coverage.toFixed(0)}%` : '0'} / ${a ? `${a.coverage.toFixed(0)}%` : '0'} | ` +
        `${f1(c?.mape)} | ${f1(a?.mape)} | ${f1(c?.smape)} | ${f1(a?.smape)} | ${f1(c?.under)} | ${f1(a?.under)} | ${f1(c?.over)} | ${f1(a?.over)} |`,
    );
    if (r.cranePeriod !== null) {
      periodic++;
      if (c && a) {
        if (a.under < c.under) wins++;
        if (a.over <= c.over + 5) withinOver++;
        if (a.under < c.under && a.over <= c.over + 5) both++;
      }
    }
  }
  console.log(
    `\nOn the ${periodic} traces where a period was found: auto under-predicts fewer points on ${wins}, ` +
      `over-provisions at most 5 points more on ${withinOver}, both on ${both} (${((100 * both) / Math.max(1, periodic)).toFixed(0)}%).`,
  );
  console.log('\nEstimators chosen by auto:');
  for (const r of results) if (r.auto) console.log(`- ${r.trace.name}: ${r.auto.estimator}`);
  printPeriodTable([...craneTraces(), ...otherTraces()]);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() as string)) {
  // `--rolling`: the window-maximum evaluation (bench/eval-rolling.ts) instead of the held-out day.
  if (process.argv.includes('--rolling')) {
    import('./eval-rolling.ts')
      .then((m) => m.rollingMain(process.argv.slice(2)))
      .catch((e: unknown) => {
        console.error(e);
        process.exitCode = 1;
      });
  }
  else main();
}
