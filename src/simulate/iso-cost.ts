// One EHPA against the plain HPAs its user could buy instead (lower CPU targets, no prediction), replayed on
// the same history and judged by one rule (src/simulate/frontier.ts): what `simulate --frontier` prints.
// Pure: it only runs `simulate` several times.
import type { V2MetricSpec } from '@kubernetes/client-node';
import type { EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { PLAIN_TARGETS_AT_50 } from '../prediction/dsp/value-replay.ts';
import { SimulationInputError } from './ehpa-input.ts';
import { fixedRuleScore, frontierCostAt, frontierShortAt, verdict, type FrontierPoint, type ValuePoint, type Verdict } from './frontier.ts';
import { simulate, type SimulationOptions } from './simulate.ts';
import type { SimulationSummary } from './summary.ts';
import { quantityMilli } from '../quantity/index.ts';

/** The plain targets as shares of the EHPA's own CPU target (the product's judge uses the same grid). */
export const FRONTIER_SHARES: readonly number[] = PLAIN_TARGETS_AT_50.map((t) => t / 50);

export interface IsoCostResult {
  /** The one shortage threshold: the EHPA's per-pod CPU target, cores. */
  perPodCores: number;
  /** The EHPA's own CPU target as the user wrote it (e.g. "50%" or "500m/pod"). */
  ownTarget: string;
  ehpa: ValuePoint;
  /** Plain HPAs, `target` as a percentage of the EHPA's own (100, 98, … 40). */
  frontier: FrontierPoint[];
  /** Each plain HPA's CPU target as a user would write it (e.g. "49%" or "490m/pod"). */
  frontierTargets: string[];
  verdict: Verdict;
  /** The frontier's short minutes at the EHPA's replica-hours, and its replica-hours at the EHPA's short minutes. */
  frontierShortAtCost: number | 'off' | 'below';
  frontierCostAtShort: number | 'unreachable' | 'above';
  summary: SimulationSummary;
}

function cpuMetricIndex(ehpa: EffectiveHorizontalPodAutoscaler): number {
  const i = (ehpa.spec.metrics ?? []).findIndex((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
  const t = i >= 0 ? ehpa.spec.metrics?.[i]?.resource?.target : undefined;
  if (!t || !((t.type === 'Utilization' && t.averageUtilization != null) || (t.type === 'AverageValue' && t.averageValue != null))) {
    throw new SimulationInputError('the plain-HPA frontier lowers the EHPA\'s CPU target: it needs a Resource cpu metric with a Utilization or AverageValue target');
  }
  return i;
}

/** The EHPA as a plain HPA at `share` of its CPU target: no prediction, the other metrics as they are. */
function plainAt(ehpa: EffectiveHorizontalPodAutoscaler, index: number, share: number): EffectiveHorizontalPodAutoscaler {
  const metrics = (ehpa.spec.metrics ?? []).map((m, i): V2MetricSpec => {
    if (i !== index || !m.resource) return m;
    const t = m.resource.target;
    const target =
      t.type === 'Utilization'
        ? { type: 'Utilization', averageUtilization: (t.averageUtilization as number) * share }
        : { type: 'AverageValue', averageValue: `${(cpuMilli(String(t.averageValue)) * share).toFixed(3)}m` };
    return { ...m, resource: { ...m.resource, target } };
  });
  const { prediction: _prediction, ...spec } = ehpa.spec;
  return { ...ehpa, spec: { ...spec, metrics } };
}

function cpuMilli(q: string): number {
  const m = quantityMilli(q);
  if (m === undefined || !(m > 0)) throw new SimulationInputError(`the CPU target ${q} is not a positive CPU quantity (like 500m or 0.5)`);
  return m;
}

/** Replays the EHPA and the plain frontier on the same history; `options.ehpa` is the EHPA as written. */
export function isoCost(options: SimulationOptions, onPolicy?: (done: number, total: number) => void): IsoCostResult {
  const index = cpuMetricIndex(options.ehpa);
  const t = options.ehpa.spec.metrics?.[index]?.resource?.target;
  const ownTarget = t?.type === 'Utilization' ? `${t.averageUtilization}%` : `${String(t?.averageValue)}/pod`;
  const round = (x: number) => String(Math.round(x * 10) / 10);
  const frontierTargets = FRONTIER_SHARES.map((share) => (t?.type === 'Utilization' ? `${round((t.averageUtilization as number) * share)}%` : `${round(cpuMilli(String(t?.averageValue)) * share)}m/pod`));
  const total = FRONTIER_SHARES.length + 1;
  const own = simulate(options);
  onPolicy?.(1, total);
  const perPodCores = own.summary.perPodTargetCores;
  const ehpa = fixedRuleScore(own.steps, 'ehpa', perPodCores, options.stepSeconds);
  const frontier = FRONTIER_SHARES.map((share, k) => {
    // The EHPA's own replay already holds the plain HPA at its target (its original metrics on usage).
    if (share === 1) {
      onPolicy?.(k + 2, total);
      return { target: 100, ...fixedRuleScore(own.steps, 'plain', perPodCores, options.stepSeconds) };
    }
    const { onProgress: _quiet, ...quiet } = options;
    const r = simulate({ ...quiet, ehpa: plainAt(options.ehpa, index, share) });
    onPolicy?.(k + 2, total);
    // The plain replay of this variant is the original metrics at the lowered target, reacting to usage.
    return { target: Math.round(share * 1000) / 10, ...fixedRuleScore(r.steps, 'plain', perPodCores, options.stepSeconds) };
  });
  return {
    perPodCores,
    ownTarget,
    ehpa,
    frontier,
    frontierTargets,
    verdict: verdict(ehpa, frontier),
    frontierShortAtCost: frontierShortAt(frontier, ehpa.replicaHours),
    frontierCostAtShort: frontierCostAt(frontier, ehpa.shortMinutes),
    summary: own.summary,
  };
}

const f0 = (x: number) => x.toFixed(0);
const f1 = (x: number) => x.toFixed(1);

/** The comparison as a Markdown table a user reads in a terminal. */
export function isoCostTable(r: IsoCostResult): string {
  const own = r.frontier[0] as FrontierPoint;
  const rows = [
    `Short: usage > ready replicas × ${Number(r.perPodCores.toPrecision(4))} core (the EHPA's per-pod target); replica-hours count starting pods too.`,
    '',
    '| policy | CPU target | short min | replica-h | replica-h ÷ plain at its target |',
    '|---|---|---|---|---|',
    `| EHPA as written | ${r.ownTarget} | ${f0(r.ehpa.shortMinutes)} | ${f1(r.ehpa.replicaHours)} | ${(r.ehpa.replicaHours / Math.max(own.replicaHours, Number.MIN_VALUE)).toFixed(2)} |`,
    ...r.frontier.map((p, i) => `| plain HPA | ${r.frontierTargets[i]} | ${f0(p.shortMinutes)} | ${f1(p.replicaHours)} | ${(p.replicaHours / Math.max(own.replicaHours, Number.MIN_VALUE)).toFixed(2)} |`),
    '',
  ];
  const at = r.frontierShortAtCost;
  const cost = r.frontierCostAtShort;
  rows.push(
    `At the EHPA's replica-hours the plain HPAs are short ${at === 'off' ? '— (the EHPA costs more than every one)' : at === 'below' ? '— (the EHPA costs less than every one)' : `${f0(at)} min`}; ` +
      `as short as the EHPA, they cost ${cost === 'unreachable' ? '— (none is that rarely short)' : cost === 'above' ? '— (every one is short less)' : `${f1(cost)} replica-h`}.`,
    `Verdict: ${r.verdict.pays ? 'prediction pays' : 'prediction does not pay'} (${r.verdict.why}).`,
  );
  return rows.join('\n') + '\n';
}
