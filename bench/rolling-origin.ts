// Rolling-origin evaluation of what the HPA uses (docs/forecast-evaluation.md): at cut points every hour
// over the last two days of a trace, forecast from the history up to the cut (at most 15 days) and compare
// the forecast's maximum over the next window with the actual maximum. Methods: crane mode (served as the
// observed last value when it forecasts nothing, as the adapter's fallback does), auto mode before and after
// the window-maximum calibration, and the baselines a user would otherwise use. Pure apart from the
// forecaster's CPU time: series in, pairs out.
import { dspForecast, dspForecastCalibrations, type ForecastSample } from '../src/prediction/dsp/forecast.ts';
import { DEFAULT_COVERAGE_TARGET, DEFAULT_DSP_HISTORY_SECONDS } from '../src/prediction/index.ts';
import type { WindowPair } from '../src/prediction/dsp/window-coverage.ts';

const HOUR = 3600;
const DAY = 86_400;

export interface Series {
  timestamps: readonly number[];
  values: readonly number[];
}

export const METHODS = [
  'crane',
  'auto (before)',
  'auto',
  'last value',
  'max last hour',
  'same window yesterday',
  'max(last hour, yesterday)',
] as const;
export type Method = (typeof METHODS)[number];

export interface RollingOptions {
  windowsSeconds: readonly number[];
  /** Cut points: every `strideSeconds` over the last `spanSeconds` that leave the longest window after them. */
  spanSeconds: number;
  strideSeconds: number;
  historySeconds: number;
  intervalSeconds: number;
  seed: number;
  coverage: number;
}

export const DEFAULT_ROLLING: Omit<RollingOptions, 'intervalSeconds'> = {
  windowsSeconds: [1800, 3600, 7200],
  spanSeconds: 2 * DAY,
  strideSeconds: HOUR,
  historySeconds: DEFAULT_DSP_HISTORY_SECONDS,
  seed: 1,
  coverage: DEFAULT_COVERAGE_TARGET,
};

/** Largest value with timestamp in (from, to]; undefined when there is none. */
export function maxIn(s: Series, from: number, to: number): number | undefined {
  let best: number | undefined;
  for (let i = lowerIndex(s.timestamps, from); i < s.timestamps.length; i++) {
    const t = s.timestamps[i] as number;
    if (t <= from) continue;
    if (t > to) break;
    const v = s.values[i] as number;
    if (best === undefined || v > best) best = v;
  }
  return best;
}

/** First index with timestamp ≥ t. */
function lowerIndex(ts: readonly number[], t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ts[mid] as number) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Index of the last timestamp ≤ t, or -1. (It was `lowerIndex(ts, t + 1e-9) - 1`, which at epoch-second
 * timestamps is the last one < t: 1.4e9 + 1e-9 rounds to 1.4e9. Every forecast was then made from a history
 * one sample short of its cut, so its first sample fell outside the window it was scored on.)
 */
export function atOrBefore(ts: readonly number[], t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ts[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Cut points (sample timestamps): every stride back from the last one leaving `longest` seconds of data. */
export function cutPoints(s: Series, o: { spanSeconds: number; strideSeconds: number; longestWindowSeconds: number }): number[] {
  const last = s.timestamps[s.timestamps.length - 1] as number;
  const cuts: number[] = [];
  const newest = last - o.longestWindowSeconds;
  for (let c = newest; c > newest - o.spanSeconds; c -= o.strideSeconds) {
    const i = atOrBefore(s.timestamps, c);
    if (i >= 0) cuts.push(s.timestamps[i] as number);
  }
  return [...new Set(cuts)].reverse();
}

/**
 * The baselines' forecast window maximum at `cut` for a window of `w` seconds: the last observed value (what
 * a reactive HPA sees), the max of the last hour, the max of the same window one day earlier, and the larger
 * of those two. Undefined when the history does not reach back far enough.
 */
export function baselineMax(s: Series, cut: number, w: number): Record<'last value' | 'max last hour' | 'same window yesterday' | 'max(last hour, yesterday)', number | undefined> {
  const i = atOrBefore(s.timestamps, cut);
  const last = i >= 0 ? (s.values[i] as number) : undefined;
  const hour = maxIn(s, cut - HOUR, cut);
  const yesterday = maxIn(s, cut - DAY, cut - DAY + w);
  return {
    'last value': last,
    'max last hour': hour,
    'same window yesterday': yesterday,
    'max(last hour, yesterday)': hour === undefined || yesterday === undefined ? undefined : Math.max(hour, yesterday),
  };
}

/** Largest forecast value with timestamp in (cut, cut + w]; undefined for no samples there. */
export function forecastMax(samples: readonly ForecastSample[], cut: number, w: number): number | undefined {
  let best: number | undefined;
  for (const p of samples) if (p.timestamp > cut && p.timestamp <= cut + w && (best === undefined || p.value > best)) best = p.value;
  return best;
}

export interface TracePairs {
  /** pairs[window][method] */
  pairs: Record<number, Record<Method, WindowPair[]>>;
  /** Cut points where crane mode forecast nothing (served the last value). */
  craneEmpty: number;
  /** Auto calibration methods chosen, counted, per window. */
  autoMethods: Record<number, Record<string, number>>;
  cuts: number;
}

/**
 * What every method forecasts from at `cut`: the samples in [cut − history − 1 h, cut] and the forecast
 * settings (horizon: the longest window). Shared with bench/calibration-replay.ts, so both fit the same thing.
 */
export function cutInput(s: Series, cut: number, o: RollingOptions): { history: Series; base: { intervalSeconds: number; historySeconds: number; horizonSeconds: number; nowSeconds: number } } {
  const end = atOrBefore(s.timestamps, cut);
  const from = lowerIndex(s.timestamps, cut - o.historySeconds - HOUR);
  return {
    history: { timestamps: s.timestamps.slice(from, end + 1), values: s.values.slice(from, end + 1) },
    base: { intervalSeconds: o.intervalSeconds, historySeconds: o.historySeconds, horizonSeconds: Math.max(...o.windowsSeconds), nowSeconds: cut },
  };
}

export function rollingPairs(s: Series, o: RollingOptions): TracePairs {
  const longest = Math.max(...o.windowsSeconds);
  const cuts = cutPoints(s, { spanSeconds: o.spanSeconds, strideSeconds: o.strideSeconds, longestWindowSeconds: longest });
  const pairs: TracePairs['pairs'] = {};
  const autoMethods: TracePairs['autoMethods'] = {};
  for (const w of o.windowsSeconds) {
    pairs[w] = Object.fromEntries(METHODS.map((m) => [m, [] as WindowPair[]])) as Record<Method, WindowPair[]>;
    autoMethods[w] = {};
  }
  let craneEmpty = 0;
  for (const cut of cuts) {
    const { history, base } = cutInput(s, cut, o);
    const crane = dspForecast(history, { ...base, estimators: 'crane' }, o.seed);
    if (crane.samples.length === 0) craneEmpty++;
    const autos = dspForecastCalibrations(history, { ...base, estimators: 'auto' }, o.seed, [
      null,
      ...o.windowsSeconds.map((w) => ({ target: o.coverage, windowSeconds: w })),
    ]);
    const lastValue = history.values[history.values.length - 1] as number;
    for (const [wi, w] of o.windowsSeconds.entries()) {
      const actualMax = maxIn(s, cut, cut + w);
      if (actualMax === undefined) continue;
      const p = pairs[w] as Record<Method, WindowPair[]>;
      const add = (m: Method, f: number | undefined) => {
        if (f !== undefined) p[m].push({ forecastMax: f, actualMax });
      };
      add('crane', forecastMax(crane.samples, cut, w) ?? lastValue);
      // Uncalibrated auto without a period forecasts at most 2h; beyond it, the adapter serves the last value.
      add('auto (before)', forecastMax((autos[0] as { samples: ForecastSample[] }).samples, cut, w) ?? lastValue);
      const calibrated = autos[wi + 1] as { samples: ForecastSample[]; calibration?: { method: string } };
      add('auto', forecastMax(calibrated.samples, cut, w) ?? lastValue);
      const am = autoMethods[w] as Record<string, number>;
      const name = calibrated.calibration?.method ?? 'uncalibrated';
      am[name] = (am[name] ?? 0) + 1;
      const b = baselineMax(s, cut, w);
      for (const [m, v] of Object.entries(b)) add(m as Method, v);
    }
  }
  return { pairs, craneEmpty, autoMethods, cuts: cuts.length };
}
