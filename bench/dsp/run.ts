// `npm run bench -- dsp`: forecasts per second for a 15-day, 1-minute series (Crane's default history),
// ours (TypeScript, whole pipeline including preprocessing) against Crane's Go code (gocrane/crane v0.11.0
// findPeriod + bestEstimator + estimate on the already preprocessed signal), same input, same run.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { forecast } from '../../src/prediction/index.ts';
import { preprocess } from '../../src/prediction/dsp/preprocess.ts';
import { buildCraneOracle } from '../../test/oracles/crane-oracle-build.ts';
import { craneTraces, loadTrace } from '../../test/helpers/traces.ts';

const REPEAT = Number(process.env['DSP_BENCH_REPEAT'] ?? 9);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

function main(): void {
  const rows: string[] = [];
  // Two periodic series and one without a period (input5, Crane's label: none), where the permutation test stops early.
  for (const name of ['crane/input9', 'crane/input14', 'crane/input5']) {
    const trace = craneTraces().find((t) => t.name === name);
    if (!trace) throw new Error(`missing ${name}`);
    const full = loadTrace(trace);
    // The last 15 days + 1 hour, as Crane fetches.
    const keep = 15 * 1440 + 60;
    const series = { timestamps: full.timestamps.slice(-keep), values: full.values.slice(-keep) };
    const now = series.timestamps[series.timestamps.length - 1] as number;
    const oracle = buildCraneOracle();
    const pre = preprocess(series, 60);
    const goRequest = JSON.stringify({ op: 'bench', sampleRate: 1 / 60, samples: Array.from(pre.values), repeat: 1 }) + '\n';
    const once = (mode: 'crane' | 'auto', seed: number) => {
      const t0 = performance.now();
      // Auto mode as the controller runs it: calibrated (coverage 0.9 by default, 1 h window) with the pay-or-step-aside verdict.
      const f = forecast(series, { algorithm: 'dsp', sampleIntervalSeconds: 60, estimators: mode }, { now, seed });
      return { ms: performance.now() - t0, period: f.period };
    };
    const goOnce = () => {
      const r = spawnSync(oracle, { input: goRequest, maxBuffer: 1 << 28 });
      return (JSON.parse(r.stdout.toString()) as { nanosPerOp: number[] }).nanosPerOp[0] as number / 1e6;
    };
    // Warm-up (JIT, FFT plans; Go: page cache), then interleave the three so machine load hits all alike.
    once('crane', 0);
    once('auto', 0);
    goOnce();
    const craneTimes: number[] = [];
    const autoTimes: number[] = [];
    const goTimes: number[] = [];
    let period: string | null = null;
    for (let r = 0; r < REPEAT; r++) {
      const c = once('crane', r + 1);
      period = c.period;
      craneTimes.push(c.ms);
      autoTimes.push(once('auto', r + 1).ms);
      goTimes.push(goOnce());
    }
    const crane = { ms: median(craneTimes), period };
    const auto = { ms: median(autoTimes) };
    const goMs = median(goTimes);
    const fps = (ms: number) => (1000 / ms).toFixed(2);
    rows.push(
      `| ${name} (15d, 1m, period ${crane.period}) | ${crane.ms.toFixed(0)} ms (${fps(crane.ms)}/s) | ${auto.ms.toFixed(0)} ms (${fps(auto.ms)}/s) | ` +
        `${Number.isNaN(goMs) ? 'n/a (no Go toolchain)' : `${goMs.toFixed(0)} ms (${fps(goMs)}/s)`} | ` +
        `${Number.isNaN(goMs) ? '—' : `${(goMs / crane.ms).toFixed(2)}x`} | ${Number.isNaN(goMs) ? '—' : `${(goMs / auto.ms).toFixed(2)}x`} |`,
    );
  }
  console.log(`median of ${REPEAT} interleaved forecasts each (node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(1)})\n`);
  console.log('| series | ours, crane mode | ours, auto mode | Crane (Go) | speed-up crane mode | speed-up auto mode |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main();
