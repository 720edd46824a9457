// `node --import tsx bench/simulate-table.ts [--jobs N] [--traces a,b]`:
// for every fixture trace, the `simulate` replay (src/simulate) of its last two days under one set of HPA
// settings, for a plain CPU HPA, an EHPA in crane mode and an EHPA in auto mode (calibrated, default
// coverage 0.9). Reports under-provisioned pod-minutes and replica-hours, the units people pay for.
//
// Settings (the same for every method and trace): CPU Utilization target 50 %, minReplicas 1, maxReplicas
// 1000, tolerance 0.1, 5 min downscale stabilization, prediction window 1 h, history 15 days, HPA sync every
// max(60 s, the trace's interval), forecast retried after an hour when not ready, observed-usage fallback
// when there is no forecast. The traces are in different units (cores, %, taxi rides), so each is scaled to
// cores: its largest value in the replay becomes 5 cores, which needs 10 pods of 1 core at the 50 % target.
// (Scaling the values rather than the request keeps the HPA's millicore rounding meaningful on traces of a
// few hundredths of a core, such as input3.)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EffectiveHorizontalPodAutoscaler } from '../src/api/ehpa.ts';
import { simulate, type SimulationResult } from '../src/simulate/simulate.ts';
import { allTraces } from './eval-rolling.ts';
import { loadTrace, type Trace } from '../test/helpers/traces.ts';

const DAY = 86_400;
const WINDOW = 3600;
const TARGET_UTILIZATION = 50;
const PEAK_PODS = 10;

export interface Row {
  name: string;
  /** Under-provisioned pod-minutes: Σ over steps of the pods missing to serve usage at the target × step minutes. */
  underPodMinutes: Record<'plain' | 'crane' | 'auto', number>;
  replicaHours: Record<'plain' | 'crane' | 'auto', number>;
  stepsWithoutForecast: Record<'crane' | 'auto', number>;
  steps: number;
}

function ehpa(intervalSeconds: number): EffectiveHorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name: 'trace', namespace: 'bench', uid: 'bench' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'trace' },
      minReplicas: 1,
      maxReplicas: 1000,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: TARGET_UTILIZATION } } }],
      prediction: {
        predictionWindowSeconds: WINDOW,
        predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: `${intervalSeconds}s`, historyLength: '15d' } },
      },
    },
  } as EffectiveHorizontalPodAutoscaler;
}

/** Pods missing at the target, × step minutes, summed: usage / per-pod target − replicas in force, when positive. */
export function underPodMinutes(result: SimulationResult, which: 'ehpa' | 'plain', perPodTargetCores: number, stepSeconds: number, initial: number): number {
  let previous = initial;
  let sum = 0;
  for (const s of result.steps) {
    const missing = s.usageCores / perPodTargetCores - previous;
    if (missing > 1e-9) sum += missing * (stepSeconds / 60);
    previous = s[which].replicas;
  }
  return sum;
}

export function simulateTrace(trace: Trace): Row {
  const s = loadTrace(trace);
  const last = s.timestamps[s.timestamps.length - 1] as number;
  const fromS = last - 2 * DAY;
  const step = Math.max(60, trace.intervalSeconds);
  let peak = 0;
  for (let i = 0; i < s.timestamps.length; i++) if ((s.timestamps[i] as number) >= fromS) peak = Math.max(peak, s.values[i] as number);
  const podCpuRequestMilli = 1000;
  const scale = peak > 0 ? (PEAK_PODS * (TARGET_UTILIZATION / 100) * podCpuRequestMilli) / 1000 / peak : 1;
  const history = { timestamps: s.timestamps, values: s.values.map((v) => v * scale) };
  const run = (dspEstimators: 'crane' | 'auto') =>
    simulate({
      ehpa: ehpa(trace.intervalSeconds),
      history,
      fromS,
      toS: last,
      stepSeconds: step,
      podCpuRequestMilli,
      tolerance: 0.1,
      downscaleStabilizationSeconds: 300,
      localZone: 'UTC',
      seed: 1,
      predictionFallback: 'observed',
      forecastRetrySeconds: 3600,
      dspEstimators,
    });
  const crane = run('crane');
  const auto = run('auto');
  const target = crane.summary.perPodTargetCores;
  const init = crane.summary.initialReplicas;
  return {
    name: trace.name.replace(/ \(CC-BY.*\)$/, ''),
    underPodMinutes: {
      plain: underPodMinutes(crane, 'plain', target, step, init),
      crane: underPodMinutes(crane, 'ehpa', target, step, init),
      auto: underPodMinutes(auto, 'ehpa', target, step, init),
    },
    replicaHours: { plain: crane.summary.plain.replicaHours, crane: crane.summary.ehpa.replicaHours, auto: auto.summary.ehpa.replicaHours },
    stepsWithoutForecast: { crane: crane.summary.stepsWithoutForecast ?? 0, auto: auto.summary.stepsWithoutForecast ?? 0 },
    steps: crane.summary.steps,
  };
}

function child(indices: number[]): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--worker', indices.join(',')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    p.stdout.on('data', (d: Buffer) => (text += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(text) as Row[]) : reject(new Error(`worker exited ${code}`))));
  });
}

export function table(rows: readonly Row[]): string {
  const f0 = (x: number) => x.toFixed(0);
  const f1 = (x: number) => x.toFixed(1);
  const out = [
    '| trace | under-provisioned pod-min: plain / crane / auto | replica-hours: plain / crane / auto | steps without forecast: crane / auto (of) |',
    '|---|---|---|---|',
  ];
  const total = { plain: [0, 0], crane: [0, 0], auto: [0, 0] } as Record<'plain' | 'crane' | 'auto', [number, number]>;
  for (const r of rows) {
    out.push(
      `| ${r.name} | ${f0(r.underPodMinutes.plain)} / ${f0(r.underPodMinutes.crane)} / ${f0(r.underPodMinutes.auto)} | ` +
        `${f1(r.replicaHours.plain)} / ${f1(r.replicaHours.crane)} / ${f1(r.replicaHours.auto)} | ${r.stepsWithoutForecast.crane} / ${r.stepsWithoutForecast.auto} (${r.steps}) |`,
    );
    for (const m of ['plain', 'crane', 'auto'] as const) {
      total[m][0] += r.underPodMinutes[m];
      total[m][1] += r.replicaHours[m];
    }
  }
  out.push(`| **total** | ${f0(total.plain[0])} / ${f0(total.crane[0])} / ${f0(total.auto[0])} | ${f1(total.plain[1])} / ${f1(total.crane[1])} / ${f1(total.auto[1])} | |`);
  return out.join('\n');
}

export async function simulateTableMain(argv: string[]): Promise<void> {
  const wi = argv.indexOf('--worker');
  const traces = allTraces();
  if (wi >= 0) {
    const idx = (argv[wi + 1] ?? '').split(',').filter(Boolean).map(Number);
    process.stdout.write(JSON.stringify(idx.map((i) => simulateTrace(traces[i] as Trace))));
    return;
  }
  const ji = argv.indexOf('--jobs');
  const jobs = Math.max(1, ji >= 0 ? Number(argv[ji + 1]) : 2);
  const ti = argv.indexOf('--traces');
  const filter = ti >= 0 ? (argv[ti + 1] ?? '').split(',') : null;
  const chosen = traces.map((t, i) => ({ t, i })).filter(({ t }) => !filter || filter.some((f) => t.name.includes(f)));
  const cost = (t: Trace) => (t.intervalSeconds <= 15 ? 4 : t.intervalSeconds <= 60 ? 1 : 0.1);
  const buckets: number[][] = Array.from({ length: jobs }, () => []);
  const load = new Array<number>(jobs).fill(0);
  for (const { t, i } of [...chosen].sort((a, b) => cost(b.t) - cost(a.t))) {
    const j = load.indexOf(Math.min(...load));
    (buckets[j] as number[]).push(i);
    load[j] = (load[j] as number) + cost(t);
  }
  const started = Date.now();
  const rows = (await Promise.all(buckets.filter((b) => b.length).map(child))).flat();
  const order = new Map(chosen.map(({ t }, k) => [t.name.replace(/ \(CC-BY.*\)$/, ''), k]));
  rows.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
  console.log(table(rows));
  console.error(`(${((Date.now() - started) / 1000).toFixed(0)} s with ${jobs} jobs)`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() as string)) {
  simulateTableMain(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
