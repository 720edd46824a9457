// `auto` mode's calibration for the number the HPA uses: the forecast's maximum over the next prediction
// window (window-coverage.ts). The forecaster backtests a few candidate forecasts on its own history, scales
// each by a split-conformal multiplier so that its window maximum covers the actual one with the target
// probability, and keeps the candidate that needs the least slack to get there. Candidates:
// - `model`: the periodic forecast auto selected (auto-selection.ts), refit per backtest period;
// - `recent max`: the largest value of the last hour, held flat (what a load without a cycle offers);
// - `same window 1 day / 7 days ago`: the observed values one period back (a seasonal naive on the raw data);
// - the pointwise maximum of `recent max` with the model or with a seasonal one (a level floor under a shape).
// Each candidate is a forecast for the samples after a cut point; the backtest scores it at cut points every
// `strideSeconds` in the history, and the pairs (forecast window max, actual window max) give the ratios
// conformalMultiplier turns into a margin. Cheap: no refit per cut point (only per backtest period for the
// model), so it runs inside every auto forecast. Pure.
import { conformalMultiplier, coverage, coverRatio, slack, type WindowPair } from './window-coverage.ts';

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
}

export interface CandidateScore {
  method: string;
  multiplier: number;
  backtestCoverage: number;
  backtestSlack: number;
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
}

/** Fewest backtest windows a candidate must be scored on. */
const MIN_WINDOWS = 20;

function rangeMax(x: Float64Array, from: number, to: number): number {
  let m = -Infinity;
  for (let i = Math.max(0, from); i <= to; i++) if ((x[i] as number) > m) m = x[i] as number;
  return m;
}

function candidates(input: CalibrationInput, recentSamples: number): Candidate[] {
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
    out.push({ method: model.name, minCut: 0, at: m });
    out.push({ method: `max(${model.name}, recent max)`, minCut: recentSamples - 1, at: (c, h) => Math.max(m(c, h), recent(c)) });
  }
  out.push({ method: 'recent max', minCut: recentSamples - 1, at: (c) => recent(c) });
  const lags = [86_400];
  if (input.periodSeconds === 604_800) lags.push(604_800);
  for (const lag of lags) {
    const p = Math.round(lag / input.intervalSeconds);
    if (p < 1 || p >= n) continue;
    const name = `same window ${lag / 86_400} day${lag === 86_400 ? '' : 's'} ago`;
    // Beyond one lag ahead the values repeat (the latest known period).
    const s = (c: number, h: number) => x[c - p + 1 + ((h - 1) % p)] as number;
    out.push({ method: name, minCut: p - 1, at: s });
    out.push({ method: `max(${name}, recent max)`, minCut: Math.max(p, recentSamples) - 1, at: (c, h) => Math.max(s(c, h), recent(c)) });
  }
  return out;
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

/**
 * Chooses and calibrates the forecast; null when no candidate can be backtested (too little history: the
 * caller keeps its uncalibrated forecast).
 */
export function calibrateWindowMax(input: CalibrationInput, config: CalibrationConfig): CalibratedForecast | null {
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
  const all = candidates(input, recentSamples);
  const eligible = all.filter((c) => allCuts.filter((cut) => cut >= c.minCut).length >= MIN_WINDOWS);
  const start = Math.max(0, ...eligible.map((c) => c.minCut));
  const cuts = allCuts.filter((c) => c >= start);
  const scores: CandidateScore[] = [];
  let best: { cand: Candidate; score: CandidateScore; exact: boolean; windows: number } | undefined;
  for (const cand of eligible) {
    const pairs: WindowPair[] = [];
    for (const c of cuts) pairs.push({ forecastMax: windowMax(cand, c, w), actualMax: rangeMax(input.values, c + 1, c + w) });
    const ratios = pairs.map(coverRatio);
    let { multiplier, exact } = conformalMultiplier(ratios, level);
    if (guardSeconds > 0) {
      // The latest windows alone: a recent rise in the ratios (the load outgrowing its past) raises the margin.
      const recentFrom = input.values.length - 1 - w - Math.round(guardSeconds / dt);
      const recent = ratios.filter((_, i) => (cuts[i] as number) >= recentFrom);
      const g = conformalMultiplier(recent, config.target);
      if (recent.length && g.multiplier > multiplier) ({ multiplier, exact } = g);
    }
    if (!Number.isFinite(multiplier)) continue;
    const score = { method: cand.method, multiplier, backtestCoverage: coverage(pairs, multiplier), backtestSlack: slack(pairs, multiplier) };
    scores.push(score);
    if (!best || score.backtestSlack < best.score.backtestSlack) best = { cand, score, exact, windows: pairs.length };
  }
  if (!best) return null;
  const n = input.values.length;
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
    },
  };
}
