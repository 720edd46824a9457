// The period table printed by `npm run eval:forecast` (BENCHMARKS.md, "period confirmation"): per trace,
// Crane's period, auto's period (Crane's, kept only when it passes the out-of-sample confirmation) and the
// label, with the confirmation skill. Three windows: Crane's labelling protocol (signal_test.go: raw values,
// the last whole weeks), the product's (`forecast` on the whole file: 15 days of history, Crane's
// preprocessing) and the evaluation's (the same with the held-out day or week removed).
import { dspForecast } from '../src/prediction/dsp/forecast.ts';
import { forecast } from '../src/prediction/index.ts';
import { DEFAULT_PERIOD_CONFIRMATION, findConfirmedPeriod, periodName } from '../src/prediction/dsp/period-confirmation.ts';
import { truncateToPeriods, WEEK_SECONDS } from '../src/prediction/dsp/signal.ts';
import { loadTrace, type Trace } from '../test/helpers/traces.ts';

export interface PeriodRow {
  trace: Trace;
  /** Crane's labelling protocol; null for traces Crane never labelled. */
  labelling: { crane: string; auto: string; skill: number | null } | null;
  product: { crane: string; auto: string; skill: number | null };
  evaluation: { crane: string; auto: string; skill: number | null };
}

const LABEL_NAME = { day: '24h', week: '168h', none: 'none' } as const;

export function periodRow(trace: Trace, seed = 1): PeriodRow {
  const series = loadTrace(trace);
  let labelling: PeriodRow['labelling'] = null;
  if (trace.label !== null) {
    const weeks = truncateToPeriods({ sampleRate: 1 / trace.intervalSeconds, samples: Float64Array.from(series.values) }, WEEK_SECONDS);
    if (!weeks) throw new Error(`${trace.name} is shorter than a week`);
    const c = findConfirmedPeriod(weeks.signal, seed);
    labelling = { crane: periodName(c.cranePeriodSeconds), auto: periodName(c.periodSeconds), skill: c.confirmation?.skill ?? null };
  }
  const now = series.timestamps[series.timestamps.length - 1] as number;
  const run = (estimators: 'crane' | 'auto') =>
    forecast(series, { algorithm: 'dsp', sampleIntervalSeconds: trace.intervalSeconds, estimators, horizonSeconds: 3600 }, { now, seed });
  const auto = run('auto');
  const pc = auto.backtest['periodConfirmation'] as { skill: number } | undefined;
  // The evaluation's history (bench/eval-forecast.ts): everything up to the held-out day or week.
  const cut = now - (trace.label === 'week' ? 7 * 86_400 : 86_400);
  const split = series.timestamps.findIndex((t) => t > cut);
  const held = { timestamps: series.timestamps.slice(0, split), values: series.values.slice(0, split) };
  const runHeld = (estimators: 'crane' | 'auto') =>
    dspForecast(held, { intervalSeconds: trace.intervalSeconds, historySeconds: 15 * 86_400, horizonSeconds: 3600, estimators }, seed);
  const heldAuto = runHeld('auto');
  const hpc = heldAuto.backtest['periodConfirmation'] as { skill: number } | undefined;
  return {
    trace,
    labelling,
    product: { crane: run('crane').period ?? 'none', auto: auto.period ?? 'none', skill: pc?.skill ?? null },
    evaluation: {
      crane: periodName(runHeld('crane').periodSeconds),
      auto: periodName(heldAuto.periodSeconds),
      skill: hpc?.skill ?? null,
    },
  };
}

const skillText = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(3));

export function printPeriodTable(traces: readonly Trace[]): void {
  console.log(`\nPeriod confirmation (seed 1; a period is kept when skill >= ${DEFAULT_PERIOD_CONFIRMATION.minSkill}; skill = 1 - MAE(previous period's hourly profile) / MAE(previous period's mean), every whole period forecast from the one before):\n`);
  console.log('| trace | label | labelling protocol: crane / auto (skill) | product `forecast`: crane / auto (skill) | evaluation history: crane / auto (skill) |');
  console.log('|---|---|---|---|---|');
  for (const t of traces) {
    const r = periodRow(t);
    const l = r.labelling;
    const label = t.label === null ? '—' : LABEL_NAME[t.label];
    console.log(
      `| ${t.name.split(' ')[0]} | ${label} | ${l ? `${l.crane} / ${l.auto} (${skillText(l.skill)})` : '—'} | ${r.product.crane} / ${r.product.auto} (${skillText(r.product.skill)}) | ` +
        `${r.evaluation.crane} / ${r.evaluation.auto} (${skillText(r.evaluation.skill)}) |`,
    );
  }
}
