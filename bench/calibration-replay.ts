// Replays the window-maximum calibration (src/prediction/dsp/window-calibration.ts) on recorded inputs, so a
// variant of it is judged on the rolling-origin evaluation (bench/rolling-origin.ts, docs/forecast-evaluation.md)
// in a minute or two instead of refitting every cut point (17 minutes on 2 cores):
//
//   node --import tsx bench/calibration-replay.ts record --dir DIR [--jobs 2] [--traces input1,nab] [--span-days 2]
//   node --import tsx bench/calibration-replay.ts replay --dir DIR [--calibration path/to/variant.ts] [--rows]
//   node --import tsx bench/calibration-replay.ts replay --dir DIR --candidates [--rows]
//   node --import tsx bench/calibration-replay.ts replay --dir DIR --stability [--calibration variant.ts] [--rows]
//
// `--span-days` widens the evaluation's span of cut points (default 2 days), for a count on
// more windows; a trace keeps its own length, so its first cut points then have less history behind them.
// `record` fits every cut point once and stores, per trace, what calibrateWindowMax is given for each window,
// the uncalibrated forecast's window maxima (served when the calibration has too little history), the actual
// window maxima, crane mode's and the baselines'. `replay` runs calibrateWindowMax, or the export of that
// name in the module --calibration names, on those inputs and prints the rolling-origin summary: with the
// shipped calibration it reproduces the `auto` column of `npm run eval:forecast -- --rolling` exactly
// (test/slow/calibration-replay.test.ts). `--candidates` instead scores every candidate as if
// it were served alone at every cut point (× its own multiplier): the best of them in hindsight is the most
// any choice among these candidates can reach. `--stability` asks how much each trace's verdict (auto's slack
// at 90 % below every rival's; coverage ≥ 90 %) owes to which windows happened to be scored: the verdict on
// each half of the cut points (the two days, at the default span), and how often it holds over block-bootstrap
// resamples of the cut points. The pure parts are recordTrace, replayTrace, replayCandidates and
// verdictStability.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { dspCalibrationInputs, dspForecast, type ForecastSample } from '../src/prediction/dsp/forecast.ts';
import { SeededRandom } from '../src/prediction/dsp/seeded-random.ts';
import { calibrateWindowMax, type CalibrationInput } from '../src/prediction/dsp/window-calibration.ts';
import { coverage, scoreWindows, type WindowPair } from '../src/prediction/dsp/window-coverage.ts';
import { allTraces } from './eval-rolling.ts';
import { baselineMax, cutInput, cutPoints, DEFAULT_ROLLING, forecastMax, maxIn, type RollingOptions, type Series } from './rolling-origin.ts';
import { loadTrace } from '../test/helpers/traces.ts';

/** The rivals auto is compared with in the evaluation's "least slack" count. */
export const RIVALS = ['crane', 'last value', 'max last hour', 'same window yesterday', 'max(last hour, yesterday)'] as const;
type Rival = (typeof RIVALS)[number];

export interface RecordedCut {
  cut: number;
  lastValue: number;
  /** Timestamp of the forecast's first sample. */
  first: number;
  intervalSeconds: number;
  coverage: number;
  windows: {
    windowSeconds: number;
    /** Undefined when the trace ends before the window does. */
    actualMax: number | undefined;
    input: CalibrationInput;
    /** Window maximum of the uncalibrated forecast (what is served when the calibration returns null). */
    uncalibratedMax: number | undefined;
    rivals: Partial<Record<Rival, number>>;
  }[];
}

/** Fits every cut point of the rolling-origin evaluation once and keeps what the calibration needs. */
export function recordTrace(s: Series, o: RollingOptions): RecordedCut[] {
  const longest = Math.max(...o.windowsSeconds);
  const out: RecordedCut[] = [];
  for (const cut of cutPoints(s, { spanSeconds: o.spanSeconds, strideSeconds: o.strideSeconds, longestWindowSeconds: longest })) {
    const { history, base } = cutInput(s, cut, o);
    const crane = dspForecast(history, { ...base, estimators: 'crane' }, o.seed);
    const rec = dspCalibrationInputs(history, { ...base, estimators: 'auto' }, o.seed, o.windowsSeconds.map((w) => ({ target: o.coverage, windowSeconds: w })));
    const lastValue = history.values[history.values.length - 1] as number;
    out.push({
      cut,
      lastValue,
      first: rec.first,
      intervalSeconds: o.intervalSeconds,
      coverage: o.coverage,
      windows: o.windowsSeconds.map((w, i) => {
        const rivals: Partial<Record<Rival, number>> = { crane: forecastMax(crane.samples, cut, w) ?? lastValue };
        for (const [name, v] of Object.entries(baselineMax(s, cut, w))) if (v !== undefined) rivals[name as Rival] = v;
        return { windowSeconds: w, actualMax: maxIn(s, cut, cut + w), input: rec.inputs[i] as CalibrationInput, uncalibratedMax: forecastMax(rec.uncalibrated.samples, cut, w), rivals };
      }),
    });
  }
  return out;
}

export type Calibrate = typeof calibrateWindowMax;

/** pairs[window]['auto' | rival]: the rolling-origin pairs, with auto's from `calibrate` on the recorded inputs. */
export function replayTrace(cuts: readonly RecordedCut[], calibrate: Calibrate = calibrateWindowMax): Record<number, Record<'auto' | Rival, WindowPair[]>> {
  const pairs: Record<number, Record<'auto' | Rival, WindowPair[]>> = {};
  for (const c of cuts) {
    for (const win of c.windows) {
      const w = win.windowSeconds;
      const p = (pairs[w] ??= Object.fromEntries(['auto', ...RIVALS].map((m) => [m, [] as WindowPair[]])) as Record<'auto' | Rival, WindowPair[]>);
      if (win.actualMax === undefined) continue;
      const actualMax = win.actualMax;
      const calibrated = calibrate(win.input, { target: c.coverage, windowSeconds: w });
      const samples: ForecastSample[] = calibrated ? Array.from(calibrated.values, (value, h) => ({ timestamp: c.first + h * c.intervalSeconds, value })) : [];
      const auto = calibrated ? forecastMax(samples, c.cut, w) : win.uncalibratedMax;
      p.auto.push({ forecastMax: auto ?? c.lastValue, actualMax });
      for (const r of RIVALS) {
        const v = win.rivals[r];
        if (v !== undefined) p[r].push({ forecastMax: v, actualMax });
      }
    }
  }
  return pairs;
}

/** A candidate's family: blends differ only in their weights. */
const family = (method: string) => (method.startsWith('blend(') ? 'blend' : method);

/**
 * pairs[window][family]: what serving each candidate (× its own multiplier) at every cut point would have
 * given, for the families scored at every cut point of the trace. The best of them in hindsight bounds what
 * any choice among these candidates can reach.
 */
export function replayCandidates(cuts: readonly RecordedCut[], calibrate: Calibrate = calibrateWindowMax): Record<number, Record<string, WindowPair[]>> {
  const out: Record<number, Record<string, WindowPair[]>> = {};
  const scored: Record<number, number> = {};
  for (const c of cuts) {
    for (const win of c.windows) {
      if (win.actualMax === undefined) continue;
      const w = win.windowSeconds;
      const byFamily = (out[w] ??= {});
      scored[w] = (scored[w] ?? 0) + 1;
      const calibrated = calibrate(win.input, { target: c.coverage, windowSeconds: w });
      for (const cand of calibrated?.summary.candidates ?? []) {
        (byFamily[family(cand.method)] ??= []).push({ forecastMax: cand.multiplier * cand.windowMax, actualMax: win.actualMax });
      }
    }
  }
  for (const [w, byFamily] of Object.entries(out)) {
    for (const f of Object.keys(byFamily)) if (byFamily[f]?.length !== scored[Number(w)]) delete byFamily[f];
  }
  return out;
}

/** Whether auto's slack at 90 % coverage is below every rival's on the windows at `idx` (a rival never scored does not count). */
export function autoLeast(pairs: Record<'auto' | Rival, WindowPair[]>, idx: readonly number[]): boolean {
  const at = (m: 'auto' | Rival) => scoreWindows(idx.map((i) => pairs[m][i] as WindowPair)).slackAtLevel;
  const auto = at('auto');
  return RIVALS.every((r) => pairs[r].length === 0 || auto < at(r));
}

export interface VerdictStability {
  /** auto has the least slack at 90 % on all the windows, on the first half of them, on the second half. */
  least: boolean;
  leastFirstHalf: boolean;
  leastSecondHalf: boolean;
  /** Share of bootstrap resamples on which auto has the least slack at 90 %, and on which its coverage is ≥ 90 %. */
  leastShare: number;
  coveredShare: number;
}

/**
 * How much one trace's verdict depends on the windows scored. The cut points are in time order, every rival
 * scored at each (the rolling-origin evaluation's pairs). Halves: the two days at the default span. Bootstrap:
 * moving blocks of `block` consecutive cut points (Künsch 1989, "The jackknife and the bootstrap for general
 * stationary observations"), since neighbouring windows share load; resampled to the same number of windows,
 * `resamples` times, from a fixed seed.
 */
export function verdictStability(pairs: Record<'auto' | Rival, WindowPair[]>, opts: { block?: number; resamples?: number; seed?: number } = {}): VerdictStability {
  const n = pairs.auto.length;
  if (n < 2) throw new RangeError('verdictStability needs at least 2 windows');
  if (RIVALS.some((r) => pairs[r].length !== 0 && pairs[r].length !== n)) throw new RangeError('every rival must be scored on the same windows as auto');
  const block = Math.max(1, Math.min(n, opts.block ?? 4));
  const resamples = opts.resamples ?? 500;
  const rng = new SeededRandom(opts.seed ?? 1);
  const all = Array.from({ length: n }, (_, i) => i);
  const half = Math.floor(n / 2);
  let least = 0;
  let covered = 0;
  for (let r = 0; r < resamples; r++) {
    const idx: number[] = [];
    while (idx.length < n) {
      const from = rng.intn(n - block + 1);
      for (let k = 0; k < block && idx.length < n; k++) idx.push(from + k);
    }
    if (autoLeast(pairs, idx)) least++;
    if (coverage(idx.map((i) => pairs.auto[i] as WindowPair)) >= 0.9) covered++;
  }
  return {
    least: autoLeast(pairs, all),
    leastFirstHalf: autoLeast(pairs, all.slice(0, half)),
    leastSecondHalf: autoLeast(pairs, all.slice(half)),
    leastShare: least / resamples,
    coveredShare: covered / resamples,
  };
}

async function record(dir: string, jobs: number, filter: string[] | null, spanSeconds: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const traces = allTraces()
    .map((t, i) => ({ t, i }))
    .filter(({ t }) => !filter || filter.some((f) => t.name.includes(f)));
  const queues: number[][] = Array.from({ length: jobs }, () => []);
  traces.forEach(({ i }, k) => (queues[k % jobs] as number[]).push(i));
  await Promise.all(
    queues
      .filter((q) => q.length > 0)
      .map(
        (q) =>
          new Promise<void>((done, fail) => {
            const p = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), 'record-worker', dir, q.join(','), String(spanSeconds)], { stdio: 'inherit' });
            p.on('error', fail);
            p.on('close', (code) => (code === 0 ? done() : fail(new Error(`record worker exited ${code}`))));
          }),
      ),
  );
}

function recordWorker(dir: string, indices: number[], spanSeconds: number): void {
  const traces = allTraces();
  for (const i of indices) {
    const t = traces[i];
    if (!t) continue;
    const started = Date.now();
    const cuts = recordTrace(loadTrace(t), { ...DEFAULT_ROLLING, spanSeconds, intervalSeconds: t.intervalSeconds });
    writeFileSync(join(dir, `${String(i).padStart(2, '0')}.v8`), serialize({ name: t.name, cuts }));
    console.log(`recorded ${t.name}: ${cuts.length} cut points in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
}

async function replay(dir: string, modulePath: string | null, rows: boolean, perCandidate: boolean, stability: boolean): Promise<void> {
  const calibrate: Calibrate = modulePath ? ((await import(pathToFileURL(resolve(modulePath)).href)) as { calibrateWindowMax: Calibrate }).calibrateWindowMax : calibrateWindowMax;
  const summary = new Map<number, { covered: number; least: number; traces: number }>();
  const hindsight = new Map<number, { traces: number; anyLeast: number; byFamily: Map<string, number> }>();
  const pct = (x: number) => (100 * x).toFixed(0);
  const stable = new Map<number, { traces: number; differ: number; first: number; second: number; undecided: number; expectedLeast: number; expectedCovered: number }>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.v8')).sort()) {
    const { name, cuts } = deserialize(readFileSync(join(dir, f))) as { name: string; cuts: RecordedCut[] };
    if (perCandidate) {
      // The rivals' pairs only: a calibration that declines skips the calibration work.
      const rivalPairs = replayTrace(cuts, () => null);
      for (const [w, byFamily] of Object.entries(replayCandidates(cuts, calibrate))) {
        const rivals = rivalPairs[Number(w)] as Record<Rival, WindowPair[]>;
        const bestRival = Math.min(...RIVALS.map((r) => (rivals[r].length > 0 ? scoreWindows(rivals[r]).slackAtLevel : Infinity)));
        const h = hindsight.get(Number(w)) ?? { traces: 0, anyLeast: 0, byFamily: new Map<string, number>() };
        h.traces++;
        const cells: string[] = [];
        let any = false;
        for (const [fam, pairs] of Object.entries(byFamily)) {
          const sc = scoreWindows(pairs);
          if (sc.slackAtLevel < bestRival) {
            any = true;
            h.byFamily.set(fam, (h.byFamily.get(fam) ?? 0) + 1);
          }
          cells.push(`${fam} ${pct(sc.coverage)}/${pct(sc.slackAtLevel)}`);
        }
        if (any) h.anyLeast++;
        hindsight.set(Number(w), h);
        if (rows) console.log(`${name} ${Number(w) / 60} min, best rival's slack at 90 % ${pct(bestRival)} %; each candidate served alone, coverage / slack at 90 %: ${cells.join('; ')}`);
      }
      continue;
    }
    for (const [w, byMethod] of Object.entries(replayTrace(cuts, calibrate))) {
      if (stability) {
        const v = verdictStability(byMethod);
        const t = stable.get(Number(w)) ?? { traces: 0, differ: 0, first: 0, second: 0, undecided: 0, expectedLeast: 0, expectedCovered: 0 };
        t.traces++;
        if (v.leastFirstHalf !== v.leastSecondHalf) t.differ++;
        if (v.leastFirstHalf) t.first++;
        if (v.leastSecondHalf) t.second++;
        if (v.leastShare > 0.2 && v.leastShare < 0.8) t.undecided++;
        t.expectedLeast += v.leastShare;
        t.expectedCovered += v.coveredShare;
        stable.set(Number(w), t);
        if (rows) {
          const yn = (b: boolean) => (b ? 'yes' : 'no');
          console.log(`${name} ${Number(w) / 60} min: least over all cut points ${yn(v.least)}, first half ${yn(v.leastFirstHalf)}, second half ${yn(v.leastSecondHalf)}; bootstrap: least ${pct(v.leastShare)} %, coverage ≥ 90 % ${pct(v.coveredShare)} %`);
        }
      }
      const scores = Object.fromEntries(Object.entries(byMethod).map(([m, p]) => [m, scoreWindows(p)])) as Record<'auto' | Rival, ReturnType<typeof scoreWindows>>;
      const s = summary.get(Number(w)) ?? { covered: 0, least: 0, traces: 0 };
      const least = autoLeast(byMethod, byMethod.auto.map((_, i) => i));
      s.traces++;
      if (scores.auto.coverage >= 0.9) s.covered++;
      if (least) s.least++;
      summary.set(Number(w), s);
      if (rows) {
        const best = Math.min(...RIVALS.map((r) => scores[r].slackAtLevel));
        console.log(`${name} ${Number(w) / 60} min: coverage ${pct(scores.auto.coverage)} %, slack ${pct(scores.auto.slack)} %, slack at 90 % ${pct(scores.auto.slackAtLevel)} % (best rival ${pct(best)} %)${least ? ' least' : ''}`);
      }
    }
  }
  for (const [w, h] of [...hindsight].sort((a, b) => a[0] - b[0])) {
    const fams = [...h.byFamily].sort((a, b) => b[1] - a[1]).map(([f, n]) => `${f} ${n}`).join(', ');
    console.log(`window ${w / 60} min: some candidate, served alone at every cut point, has less slack at 90 % than every rival on ${h.anyLeast}/${h.traces} traces (${fams})`);
  }
  for (const [w, t] of [...stable].sort((a, b) => a[0] - b[0])) {
    console.log(
      `window ${w / 60} min: least slack at 90 % on the first half of the cut points on ${t.first}/${t.traces} traces, on the second half on ${t.second}, the halves disagree on ${t.differ}; ` +
        `bootstrap: least on ${t.expectedLeast.toFixed(1)} traces and ≥ 90 % coverage on ${t.expectedCovered.toFixed(1)} in expectation, least in 20–80 % of resamples on ${t.undecided}`,
    );
  }
  for (const [w, s] of [...summary].sort((a, b) => a[0] - b[0])) {
    console.log(`window ${w / 60} min: ≥ 90 % coverage on ${s.covered}/${s.traces} traces; least slack at 90 % on ${s.least}/${s.traces}`);
  }
}

function arg(argv: string[], name: string): string | null {
  const i = argv.indexOf(name);
  return i >= 0 ? (argv[i + 1] ?? null) : null;
}

async function main(argv: string[]): Promise<void> {
  const [cmd] = argv;
  if (cmd === 'record-worker') return recordWorker(argv[1] as string, (argv[2] ?? '').split(',').filter(Boolean).map(Number), Number(argv[3]));
  const dir = arg(argv, '--dir');
  if (!dir || (cmd !== 'record' && cmd !== 'replay')) {
    throw new Error('usage: calibration-replay.ts record --dir DIR [--jobs N] [--traces a,b] [--span-days D] | replay --dir DIR [--calibration module.ts] [--rows] [--candidates | --stability]');
  }
  if (cmd === 'record') {
    const spanDays = Number(arg(argv, '--span-days') ?? DEFAULT_ROLLING.spanSeconds / 86_400);
    if (!(spanDays > 0 && spanDays <= 14)) throw new Error(`--span-days must be in (0, 14], got ${arg(argv, '--span-days')}`);
    return record(dir, Math.max(1, Number(arg(argv, '--jobs') ?? 2)), arg(argv, '--traces')?.split(',') ?? null, spanDays * 86_400);
  }
  return replay(dir, arg(argv, '--calibration'), argv.includes('--rows'), argv.includes('--candidates'), argv.includes('--stability'));
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() as string)) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
