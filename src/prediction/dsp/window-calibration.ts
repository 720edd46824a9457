// `auto` mode's calibration for the number the HPA uses: the forecast's maximum over the next prediction
// window (window-coverage.ts). The forecaster backtests a few candidate forecasts on its own history, scales
// each by a split-conformal multiplier so that its window maximum covers the actual one with the target
// probability, and keeps the candidate that needs the least slack to get there. Candidates:
// - `model`: the periodic forecast auto selected (auto-selection.ts), refit per backtest period;
// - `recent max`: the largest value of the last hour, held flat (what a load without a cycle offers);
// - `same window 1 day / 7 days ago`: the observed values one period back (a seasonal naive on the raw data);
// - the pointwise maximum of `recent max` with the model or with a seasonal one (a level floor under a shape);
// - `blend`: a weighted sum of the plain candidates above (weights on a grid of the simplex), fitted on the
//   backtest's window maxima; a mix of a level (the recent max) and a shape (yesterday, the model) is often
//   tighter than either alone (on the fixture traces the blend of recent and seasonal maxima alone beat every
//   baseline on 12 of 21 traces where the best single candidate beat them on 5; docs/forecast-evaluation.md).
// Each candidate is a forecast for the samples after a cut point; the backtest scores it at cut points every
// `strideSeconds` in the history, and the pairs (forecast window max, actual window max) give the ratios
// conformalMultiplier turns into a margin. Cheap: no refit per cut point (only per backtest period for the
// model), so it runs inside every auto forecast. Pure.
// Two guards keep a margin from growing out of proportion: every candidate is floored at a small share of the
// history's mean before its ratios are taken (FORECAST_FLOOR_SHARE), and a candidate that needs a multiplier
// above MAX_MULTIPLIER is not served. forecast.ts then bounds whatever auto serves by the history's peak.
import { columnSlack, conformalMultiplier, conformalMultiplierInPlace, coverage, coverRatio, ratioOf, slack, type WindowPair } from './window-coverage.ts';
import { fitShortcuts } from './fit-shortcuts.ts';
import { valueVerdict, type ValueVerdict } from './value-replay.ts';

export interface CalibrationConfig {
  /** Probability that the window maximum covers the actual maximum, in (0, 1). */
  target: number;
  /** The prediction window the HPA takes the maximum over, seconds. */
  windowSeconds: number;
  /** Backtest cut points every this many seconds (default: a quarter of min(window, 1h), at least one sample). */
  strideSeconds?: number;
  /** Non-periodic backtest: cut points over at most this much of the latest history (default 7 days). */
  backtestSeconds?: number;
  /** The `recent max` lookback (default 1h). */
  recentSeconds?: number;
  /**
   * Conformal level over the whole backtest. Default 1 − (1 − target) / 2: the backtest is in the past, and
   * out of sample the fixture traces lost about half the miss budget to load changes (docs/forecast-evaluation.md).
   */
  level?: number;
  /** Also calibrate at `target` on the backtest windows of this last stretch alone and keep the larger multiplier (default 1 day; 0: off). */
  guardSeconds?: number;
  /** Judge whether the chosen forecast pays (value-replay.ts) on its backtest; absent: not judged. */
  value?: ValueSettings;
}

/** What the value replay assumes of the workload, and the user's trade. */
export interface ValueSettings {
  /** A new pod serves this long after it is asked for. */
  podStartupSeconds: number;
  /** The HPA's scale-down stabilization window. */
  stabilizationSeconds: number;
  /** Extra cost, as a share, the user accepts over a plain HPA that is as short. */
  acceptExtraCost: number;
}

/** The value replay's defaults: pods serving a minute after they are asked for, the HPA's 5-minute scale-down window, no extra cost. */
export const DEFAULT_VALUE_SETTINGS: ValueSettings = { podStartupSeconds: 60, stabilizationSeconds: 300, acceptExtraCost: 0 };

export interface CandidateScore {
  method: string;
  multiplier: number;
  backtestCoverage: number;
  backtestSlack: number;
  /**
   * The candidate's own (uncalibrated) maximum over the first window of the forecast: with the multiplier,
   * what serving it instead would have given, so an evaluation can score every candidate out of sample
   * (bench/calibration-replay.ts --candidates).
   */
  windowMax: number;
}

export interface CalibrationSummary {
  method: string;
  /** Multiplier applied to the candidate's forecast (the margin is multiplier − 1 of it). */
  multiplier: number;
  target: number;
  windowSeconds: number;
  /** Coverage and slack of the calibrated forecast on its backtest windows (in sample for the multiplier). */
  backtestCoverage: number;
  backtestSlack: number;
  backtestWindows: number;
  /** False when the backtest had too few windows for the finite-sample guarantee (the largest ratio was used). */
  exact: boolean;
  candidates: CandidateScore[];
  /** Whether serving it pays against a plain HPA on its own backtest (when the config asked). */
  value?: ValueVerdict;
}

export interface CalibrationInput {
  /** Regular history, oldest first; the forecast is for the samples after the last one. */
  values: Float64Array;
  intervalSeconds: number;
  /** Confirmed period, seconds, or null. */
  periodSeconds: number | null;
  /**
   * Periodic only: out-of-sample model forecasts aligned with `values` (NaN where there is none), and the
   * model's forecast for the samples after the last one (repeated over the horizon).
   */
  models?: readonly { name: string; backtest: Float64Array; onePeriod: Float64Array }[];
  /** Samples to forecast. */
  horizon: number;
}

export interface CalibratedForecast {
  values: Float64Array;
  summary: CalibrationSummary;
}

interface Candidate {
  method: string;
  /** Earliest cut index it can forecast from. */
  minCut: number;
  /** Forecast for sample c + h (h = 1..), made at cut c. */
  at(c: number, h: number): number;
  /** One of the plain forecasts the blend may weigh. */
  blendable?: boolean;
  /** Only an ingredient of the blend, not a candidate of its own. */
  blendOnly?: boolean;
}

/** Fewest backtest windows a candidate must be scored on. */
const MIN_WINDOWS = 20;

/**
 * Every candidate's forecast is at least this share of the history's mean. Below it the ratio
 * actual / forecast says nothing about the candidate: a window forecast at ~0 that then saw load earned a
 * multiplier in the thousands, and the HPA 46–80× the history's peak. The mean, not the peak, so that one
 * spike does not lift the floor over an otherwise flat load; a tenth of the usual load is well under a pod
 * for any workload that scales.
 */
export const FORECAST_FLOOR_SHARE = 0.1;

/**
 * The largest multiplier a candidate may need: one that must be scaled more than this to cover its backtest
 * windows has not forecast the load, and is not served (when none is left, the uncalibrated forecast is).
 */
export const MAX_MULTIPLIER = 4;

/** Mean of the finite values (0 when there are none). */
function finiteMean(x: ArrayLike<number>): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i] as number;
    if (Number.isFinite(v)) {
      sum += v;
      n++;
    }
  }
  return n ? sum / n : 0;
}

function rangeMax(x: Float64Array, from: number, to: number): number {
  let m = -Infinity;
  for (let i = Math.max(0, from); i <= to; i++) if ((x[i] as number) > m) m = x[i] as number;
  return m;
}

function candidates(input: CalibrationInput, recentSamples: number, firstCut: number): Candidate[] {
  const x = input.values;
  const n = x.length;
  const out: Candidate[] = [];
  const recentCache = new Map<number, number>();
  const recent = (c: number) => {
    let v = recentCache.get(c);
    if (v === undefined) {
      v = rangeMax(x, c - recentSamples + 1, c);
      recentCache.set(c, v);
    }
    return v;
  };
  for (const model of input.models ?? []) {
    const per = model.onePeriod.length;
    // Production: the one-period forecast repeated from the sample after the last one; backtest: the fold's.
    const m = (c: number, h: number) => (c === n - 1 ? (model.onePeriod[(h - 1) % per] as number) : (model.backtest[c + h] as number));
    out.push({ method: model.name, minCut: 0, at: m, blendable: true });
    out.push({ method: `max(${model.name}, recent max)`, minCut: recentSamples - 1, at: (c, h) => Math.max(m(c, h), recent(c)) });
  }
  out.push({ method: 'recent max', minCut: recentSamples - 1, at: (c) => recent(c), blendable: true });
  // A shorter look back, for the blend only: how high the load is right now, next to the hour's peak.
  const quarter = Math.max(1, Math.round(recentSamples / 4));
  if (quarter < recentSamples) out.push({ method: 'recent max (quarter)', minCut: quarter - 1, at: (c) => rangeMax(x, c - quarter + 1, c), blendable: true, blendOnly: true });
  const lags = [86_400, 2 * 86_400, 604_800];
  for (const lag of lags) {
    const p = Math.round(lag / input.intervalSeconds);
    if (p < 1 || p >= n) continue;
    // Two days and a week back: only with the history to backtest them on every window the others use, and a
    // week standalone only for a weekly period (as before); both always feed the blend.
    if (lag !== 86_400 && p - 1 > firstCut) continue;
    const name = `same window ${lag / 86_400} day${lag === 86_400 ? '' : 's'} ago`;
    // Beyond one lag ahead the values repeat (the latest known period).
    const s = (c: number, h: number) => x[c - p + 1 + ((h - 1) % p)] as number;
    const standalone = lag === 86_400 || (lag === 604_800 && input.periodSeconds === 604_800);
    out.push({ method: name, minCut: p - 1, at: s, blendable: true, ...(standalone ? {} : { blendOnly: true }) });
    if (standalone) out.push({ method: `max(${name}, recent max)`, minCut: Math.max(p, recentSamples) - 1, at: (c, h) => Math.max(s(c, h), recent(c)) });
  }
  return out;
}

/**
 * The value replay of the chosen candidate on the backtest: at each step after a cut, until the next, the
 * maximum over the next window of what that cut forecast (× its multiplier), as the adapter would serve it.
 */
function valueOnBacktest(input: CalibrationInput, cand: Candidate, multiplier: number, cuts: readonly number[], stride: number, w: number, settings: ValueSettings): ValueVerdict | undefined {
  const n = input.values.length;
  const served = new Float64Array(n).fill(Number.NaN);
  // The windows served after one cut overlap: asking the candidate once per horizon step, not once per
  // window and step, is 12× fewer calls at a 1-hour window and a 15-minute stride (the same maxima).
  const once = fitShortcuts.enabled;
  let ahead = new Float64Array(0);
  cuts.forEach((c, j) => {
    const until = Math.min(n - 1, cuts[j + 1] ?? c + stride);
    const last = until - c + w;
    if (once) {
      if (ahead.length < last + 1) ahead = new Float64Array(last + 1);
      for (let h = 1; h <= last; h++) ahead[h] = cand.at(c, h);
    }
    for (let t = c + 1; t <= until; t++) {
      let m = -Infinity;
      if (once) for (let h = t - c; h <= t - c + w; h++) m = Math.max(m, ahead[h] as number);
      else for (let h = t - c; h <= t - c + w; h++) m = Math.max(m, cand.at(c, h));
      served[t] = multiplier * m;
    }
  });
  return valueVerdict({ load: input.values, forecastWindowMax: served, stepSeconds: input.intervalSeconds, ...settings });
}

/** v, or the floor when v is below it; NaN (no forecast at that cut) stays NaN. */
function floored(v: number, floor: number): number {
  return v < floor ? floor : v;
}

function windowMax(cand: Candidate, c: number, w: number): number {
  let m = -Infinity;
  for (let h = 1; h <= w; h++) {
    const v = cand.at(c, h);
    if (Number.isNaN(v)) return NaN;
    if (v > m) m = v;
  }
  return m;
}

/** Cut indices of the backtest: every `stride` samples, with a whole window of data after each. */
function cutPoints(input: CalibrationInput, w: number, stride: number, backtestSamples: number): number[] {
  const n = input.values.length;
  const cuts: number[] = [];
  const first = Math.max(0, n - 1 - w - backtestSamples);
  for (let c = n - 1 - w; c >= first; c -= stride) {
    const model = input.models?.[0];
    if (model && Number.isNaN(windowMax({ method: '', minCut: 0, at: (cc, h) => model.backtest[cc + h] as number }, c, w))) continue;
    cuts.push(c);
  }
  return cuts.reverse();
}

/** Slack differences below this are rounding, not a better mix (slack is a share of the peaks: 1e-6 is a millionth). */
const BLEND_TIE = 1e-6;

/** Weight vectors on the simplex with the given number of steps, those with fewer non-zero weights first. */
function simplexGrid(k: number, steps: number): number[][] {
  const out: number[][] = [];
  const walk = (i: number, left: number, cur: number[]) => {
    if (i === k - 1) {
      out.push([...cur, left / steps]);
      return;
    }
    for (let a = 0; a <= left; a++) walk(i + 1, left - a, [...cur, a / steps]);
  };
  walk(0, steps, []);
  const used = (v: number[]) => v.filter((x) => x > 0).length;
  return out.sort((a, b) => used(a) - used(b));
}

/** The blend's grid: tenths of the simplex for up to five ingredients, fifths beyond (1,001 vectors at most: five ingredients in tenths; six or seven in fifths are 252 or 462). */
function blendSteps(k: number): number {
  return k <= 5 ? 10 : 5;
}

/** The ingredients' window maxima at each backtest cut, or null when one of them cannot be scored everywhere. */
function ingredientMaxima(ingredients: readonly Candidate[], maximaOf: (cand: Candidate) => Float64Array): Float64Array[] | null {
  const maxima = ingredients.map(maximaOf);
  return maxima.some((m) => m.some((v) => Number.isNaN(v))) ? null : maxima;
}

/** Σ weights[i] · maxima[i], into `out`. */
function mix(weights: readonly number[], maxima: readonly Float64Array[], out: Float64Array): Float64Array {
  out.fill(0);
  for (let i = 0; i < weights.length; i++) {
    const wt = weights[i] as number;
    if (wt === 0) continue;
    const m = maxima[i] as Float64Array;
    for (let j = 0; j < out.length; j++) (out[j] as number) += wt * (m[j] as number);
  }
  return out;
}

/**
 * The weights whose weighted sum of the ingredients' window maxima needs the least calibrated slack
 * (`score`), or null when one ingredient alone does as well.
 */
function blendWeights(maxima: readonly Float64Array[], score: (forecastMax: Float64Array) => number): number[] | null {
  const k = maxima.length;
  if (k < 2) return null;
  const f = new Float64Array((maxima[0] as Float64Array).length);
  let best: { weights: number[]; slack: number } | undefined;
  for (const weights of simplexGrid(k, blendSteps(k))) {
    const sl = score(mix(weights, maxima, f));
    // Fewer ingredients first, and a mix must do better than rounding: equal ingredients (the hour's and the
    // quarter's maximum of a rising load) mix to the same numbers give or take an ulp.
    if (!best || sl < best.slack - BLEND_TIE) best = { weights, slack: sl };
  }
  return best && best.weights.filter((x) => x > 0).length >= 2 ? best.weights : null;
}

/**
 * The blend as a forecast: over each block of `w` samples of the horizon, the weighted sum of the
 * ingredients' maxima over that block, so on the first window its maximum is exactly what was fitted.
 */
function blendCandidate(weights: readonly number[], ingredients: readonly Candidate[], w: number): Candidate {
  const parts = weights.map((wt, i) => ({ wt, cand: ingredients[i] as Candidate })).filter((p) => p.wt > 0);
  const cache = new Map<number, Map<number, number>>();
  const blockValue = (c: number, block: number): number => {
    let byBlock = cache.get(c);
    if (!byBlock) cache.set(c, (byBlock = new Map()));
    let v = byBlock.get(block);
    if (v === undefined) {
      v = 0;
      for (const p of parts) {
        let m = -Infinity;
        for (let h = block * w + 1; h <= (block + 1) * w; h++) m = Math.max(m, p.cand.at(c, h));
        v += p.wt * m;
      }
      byBlock.set(block, v);
    }
    return v;
  };
  return {
    method: `blend(${parts.map((p) => `${Number(p.wt.toFixed(2))} ${p.cand.method}`).join(', ')})`,
    minCut: Math.max(...parts.map((p) => p.cand.minCut)),
    at: (c, h) => blockValue(c, Math.floor((h - 1) / w)),
  };
}

/**
 * Chooses and calibrates the forecast; null when no candidate can be served (the caller keeps its
 * uncalibrated forecast; calibrateOrExplain says why).
 */
export function calibrateWindowMax(input: CalibrationInput, config: CalibrationConfig): CalibratedForecast | null {
  const r = calibrateOrExplain(input, config);
  return 'reason' in r ? null : r;
}

/** calibrateWindowMax, or why nothing was calibrated: too little history, or every candidate needed more than MAX_MULTIPLIER. */
export function calibrateOrExplain(input: CalibrationInput, config: CalibrationConfig): CalibratedForecast | { reason: string } {
  if (!(config.target > 0 && config.target < 1)) throw new RangeError('coverage target must be in (0, 1)');
  const dt = input.intervalSeconds;
  const level = config.level ?? 1 - (1 - config.target) / 2;
  if (!(level > 0 && level < 1)) throw new RangeError('conformal level must be in (0, 1)');
  const guardSeconds = config.guardSeconds ?? 86_400;
  const w = Math.max(1, Math.round(config.windowSeconds / dt));
  const recentSamples = Math.max(1, Math.round((config.recentSeconds ?? 3600) / dt));
  const stride = Math.max(1, Math.round((config.strideSeconds ?? Math.min(config.windowSeconds, 3600) / 4) / dt));
  const backtestSamples = Math.round((config.backtestSeconds ?? 7 * 86_400) / dt);
  const allCuts = cutPoints(input, w, stride, input.models?.length ? Infinity : backtestSamples);
  // Every candidate is judged on the same windows: those after the latest start among the candidates that
  // still get MIN_WINDOWS windows; a candidate needing more history (a week back on a short series) sits out.
  const floor = Math.max(0, FORECAST_FLOOR_SHARE * finiteMean(input.values));
  const all = candidates(input, recentSamples, allCuts[0] ?? -1).map((c) => ({ ...c, at: (cut: number, h: number) => floored(c.at(cut, h), floor) }));
  const eligible = all.filter((c) => allCuts.filter((cut) => cut >= c.minCut).length >= MIN_WINDOWS);
  const start = Math.max(0, ...eligible.map((c) => c.minCut));
  const cuts = allCuts.filter((c) => c >= start);
  const actual = Float64Array.from(cuts, (c) => rangeMax(input.values, c + 1, c + w));
  // The latest windows alone: a recent rise in the ratios (the load outgrowing its past) raises the margin.
  const recentFrom = input.values.length - 1 - w - Math.round(guardSeconds / dt);
  const firstRecent = cuts.findIndex((c) => c >= recentFrom);
  const ratios = new Float64Array(cuts.length);
  // The blend's grid calibrates up to 1,001 mixes: the ratios are written without a pair object per window,
  // and the selection reorders one reused copy (conformalMultiplierInPlace), with the same numbers.
  const shortcut = fitShortcuts.enabled;
  const reordered = new Float64Array(cuts.length);
  const conformal = (from: number, q: number) => {
    if (!shortcut) return conformalMultiplier(ratios.subarray(from), q);
    const part = reordered.subarray(0, cuts.length - from);
    part.set(ratios.subarray(from));
    return conformalMultiplierInPlace(part, q);
  };
  const calibrate = (forecastMax: Float64Array): { multiplier: number; exact: boolean } => {
    for (let j = 0; j < cuts.length; j++) {
      ratios[j] = shortcut ? ratioOf(forecastMax[j] as number, actual[j] as number) : coverRatio({ forecastMax: forecastMax[j] as number, actualMax: actual[j] as number });
    }
    let m = conformal(0, level);
    if (guardSeconds > 0 && firstRecent >= 0) {
      const g = conformal(firstRecent, config.target);
      if (g.multiplier > m.multiplier) m = g;
    }
    return m;
  };
  // Each candidate's window maxima over the cuts, computed once whether it is an ingredient, a candidate or both.
  const maximaMemo = new Map<Candidate, Float64Array>();
  const maximaOf = (cand: Candidate): Float64Array => {
    let m = maximaMemo.get(cand);
    if (!m) maximaMemo.set(cand, (m = Float64Array.from(cuts, (c) => windowMax(cand, c, w))));
    return m;
  };
  const pool = eligible.filter((c) => !c.blendOnly);
  const ingredients = eligible.filter((c) => c.blendable);
  const maxima = ingredientMaxima(ingredients, maximaOf);
  // The blend is fitted on the same windows that then judge it against the plain candidates, so in sample it
  // never loses to one of them (each is a corner of the grid). Holding the newest third of the windows out to
  // admit it was tried and did worse out of sample on the fixture traces (docs/forecast-evaluation.md).
  if (maxima) {
    const weights = blendWeights(maxima, (f) => columnSlack(f, actual, calibrate(f).multiplier));
    if (weights) pool.push(blendCandidate(weights, ingredients, w));
  }
  const scores: CandidateScore[] = [];
  let best: { cand: Candidate; score: CandidateScore; exact: boolean; windows: number } | undefined;
  for (const cand of pool) {
    const forecastMax = maximaOf(cand);
    const pairs: WindowPair[] = cuts.map((_, j) => ({ forecastMax: forecastMax[j] as number, actualMax: actual[j] as number }));
    const { multiplier, exact } = calibrate(forecastMax);
    if (!(multiplier <= MAX_MULTIPLIER)) continue;
    const score = { method: cand.method, multiplier, backtestCoverage: coverage(pairs, multiplier), backtestSlack: slack(pairs, multiplier), windowMax: windowMax(cand, input.values.length - 1, w) };
    scores.push(score);
    if (!best || score.backtestSlack < best.score.backtestSlack) best = { cand, score, exact, windows: pairs.length };
  }
  if (!best) {
    return pool.length === 0
      ? { reason: 'too little history to calibrate the window maximum' }
      : { reason: `every candidate needs more than ×${MAX_MULTIPLIER} to cover its backtest windows, so none is calibrated` };
  }
  const n = input.values.length;
  const value = config.value ? valueOnBacktest(input, best.cand, best.score.multiplier, cuts, stride, w, config.value) : undefined;
  const values = new Float64Array(input.horizon);
  for (let h = 1; h <= input.horizon; h++) values[h - 1] = best.score.multiplier * best.cand.at(n - 1, h);
  return {
    values,
    summary: {
      method: best.cand.method,
      multiplier: best.score.multiplier,
      target: config.target,
      windowSeconds: config.windowSeconds,
      backtestCoverage: best.score.backtestCoverage,
      backtestSlack: best.score.backtestSlack,
      backtestWindows: best.windows,
      exact: best.exact,
      candidates: scores,
      ...(value ? { value } : {}),
    },
  };
}
