// `--estimators auto`: choose among Crane's FFT estimators and the seasonal ones by a backtest on the last
// whole periods (each forecast from the periods before it) that counts under-predicted points. Crane's own choice sets
// the budget: its over-provisioning on the same backtest, plus `overProvisionBudget` percentage points.
// Within that budget, the candidate (shape, moving-max smoothing, additive margin taken from the quantiles
// of its backtest residuals) that under-predicts the fewest points wins; ties go to less over-provisioning.
// Crane's choice is itself a candidate, so auto never looks worse than Crane on the backtest.
import { craneEstimate, SharedSpectrum, type CraneEstimatorSpec } from './crane-estimators.ts';
import { craneEstimatorName, DEFAULT_CRANE_ESTIMATORS } from './crane-estimators.ts';
import { selectCraneEstimator } from './crane-selection.ts';
import { fitShortcuts } from './fit-shortcuts.ts';
import { movingMax, seasonalEstimate, seasonalEstimatorName, type SeasonalEstimatorSpec } from './seasonal-estimators.ts';
import type { Signal } from './signal.ts';

export type AutoEstimatorSpec = CraneEstimatorSpec | SeasonalEstimatorSpec;

export interface AutoConfig {
  /** Extra over-provisioning allowed over Crane's on the backtest, percentage points of the actual total. */
  overProvisionBudget: number;
  /** Backtest on up to this many of the last periods (each forecast from the periods before it). */
  folds: number;
  /** Backtest under-prediction points (%) another shape must gain over Crane's own to replace it. */
  minImprovement: number;
  estimators: readonly AutoEstimatorSpec[];
  /** Half-widths (samples) of the moving maximum tried on every estimator. */
  smoothingHalfWidths: readonly number[];
}

const fftNoMargin = (min: number, low: number): CraneEstimatorSpec => ({
  kind: 'fft',
  minNumOfSpectrumItems: min,
  maxNumOfSpectrumItems: 100,
  highFrequencyThreshold: 0,
  lowAmplitudeThreshold: low,
  marginFraction: 0,
});

export const DEFAULT_AUTO_CONFIG: AutoConfig = {
  overProvisionBudget: 3,
  folds: 3,
  minImprovement: 2,
  estimators: [
    { kind: 'seasonalNaive' },
    { kind: 'periodMean' },
    { kind: 'periodQuantile', quantile: 0.75 },
    { kind: 'maxValue', marginFraction: 0 },
    fftNoMargin(3, 1.0),
    fftNoMargin(50, 0.05),
    { kind: 'holtWinters', alpha: 0.05, beta: 0.001, gamma: 0.3, phi: 0.98 },
  ],
  smoothingHalfWidths: [0, 5, 15],
};

export function autoEstimatorName(spec: AutoEstimatorSpec): string {
  return spec.kind === 'fft' || spec.kind === 'maxValue' ? craneEstimatorName(spec) : seasonalEstimatorName(spec);
}

function estimate(spec: AutoEstimatorSpec, shared: SharedSpectrum, periodSeconds: number): Float64Array {
  return spec.kind === 'fft' || spec.kind === 'maxValue'
    ? craneEstimate(spec, shared, periodSeconds)
    : seasonalEstimate(spec, shared.signal, periodSeconds);
}

export function quantileOf(values: Float64Array, q: number): number {
  const sorted = Float64Array.from(values).sort();
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

/** Share of points under the actual (%) and over-provisioning (% of the actual total). */
export function provisioning(actual: ArrayLike<number>, predicted: ArrayLike<number>, margin = 0): { under: number; over: number } {
  let under = 0;
  let over = 0;
  let total = 0;
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i] as number;
    const p = (predicted[i] as number) + margin;
    if (p < a) under++;
    else over += p - a;
    total += a;
  }
  return { under: (100 * under) / Math.max(1, actual.length), over: total > 0 ? (100 * over) / total : over };
}

export interface AutoCandidateScore {
  estimator: string;
  smoothingHalfWidth: number;
  margin: number;
  /** Backtest: share of points under-predicted, % */
  under: number;
  /** Backtest: over-provisioning, % of the actual total */
  over: number;
}

export interface AutoSelection {
  estimator: AutoEstimatorSpec;
  name: string;
  smoothingHalfWidth: number;
  /** Additive margin from the backtest residuals. */
  margin: number;
  under: number;
  over: number;
  /** Crane's choice on the same backtest, the reference the budget is built on. */
  crane: { estimator: string; under: number; over: number };
  /** Crane's choice itself (FFT estimators of DEFAULT_CRANE_ESTIMATORS). */
  craneSpec: CraneEstimatorSpec;
  candidates: AutoCandidateScore[];
}

/**
 * The spectra of a signal's leading samples, one per length: one fit backtests the same leading periods for
 * the selection, Crane's own choice, and the calibration's two models, and each spectrum is two or three
 * Bluestein transforms of up to two weeks. Holds one fit's signal, which must not change while it is used.
 */
export class PrefixSpectra {
  private readonly byLength = new Map<number, SharedSpectrum>();

  constructor(readonly signal: Signal) {}

  /** The spectrum of the first `length` samples (shared when the shortcuts are on, fresh otherwise). */
  of(length: number): SharedSpectrum {
    const fresh = () => new SharedSpectrum(length === this.signal.samples.length ? this.signal : { sampleRate: this.signal.sampleRate, samples: this.signal.samples.subarray(0, length) });
    if (!fitShortcuts.enabled) return fresh();
    let s = this.byLength.get(length);
    if (!s) this.byLength.set(length, (s = fresh()));
    return s;
  }
}

interface Fold {
  shared: SharedSpectrum;
  actual: Float64Array;
}

/** Backtest folds: forecast period k from periods 0..k-1, for the last `count` periods (at least one). */
function folds(spectra: PrefixSpectra, nPeriods: number, count: number): Fold[] {
  const signal = spectra.signal;
  const per = Math.floor(signal.samples.length / nPeriods);
  const out: Fold[] = [];
  for (let k = nPeriods - 1; k >= Math.max(1, nPeriods - count); k--) {
    out.push({ shared: spectra.of(k * per), actual: signal.samples.subarray(k * per, (k + 1) * per) });
  }
  return out;
}

function pooled(parts: { under: number; over: number }[]): { under: number; over: number } {
  let under = 0;
  let over = 0;
  for (const p of parts) {
    under += p.under;
    over += p.over;
  }
  return { under: under / parts.length, over: over / parts.length };
}

export function selectAutoEstimator(
  signal: Signal,
  nPeriods: number,
  periodSeconds: number,
  config: AutoConfig,
  spectra: PrefixSpectra = new PrefixSpectra(signal),
): AutoSelection {
  const backtests = folds(spectra, nPeriods, config.folds);
  const per = Math.floor(signal.samples.length / nPeriods);
  const craneSel = selectCraneEstimator(DEFAULT_CRANE_ESTIMATORS, signal, nPeriods, periodSeconds, spectra.of((nPeriods - 1) * per));
  const craneSpec = DEFAULT_CRANE_ESTIMATORS[craneSel.best] ?? (DEFAULT_CRANE_ESTIMATORS[0] as CraneEstimatorSpec);
  const craneBt = pooled(backtests.map((f) => provisioning(f.actual, craneEstimate(craneSpec, f.shared, periodSeconds))));
  const budget = craneBt.over + config.overProvisionBudget;
  const candidates: AutoCandidateScore[] = [];
  let best: { spec: AutoEstimatorSpec; score: AutoCandidateScore } = {
    spec: craneSpec,
    score: { estimator: craneEstimatorName(craneSpec), smoothingHalfWidth: 0, margin: 0, ...craneBt },
  };
  const specs: AutoEstimatorSpec[] = [craneSpec, ...config.estimators];
  for (const spec of specs) {
    const bases = backtests.map((f) => estimate(spec, f.shared, periodSeconds));
    const name = autoEstimatorName(spec);
    for (const w of config.smoothingHalfWidths) {
      const shaped = bases.map((b) => movingMax(b, w));
      const at = (margin: number) => pooled(backtests.map((f, j) => provisioning(f.actual, shaped[j] as Float64Array, margin)));
      // Spend the whole budget: the largest additive margin whose backtest over-provisioning fits in it.
      let margin = 0;
      let bt = at(0);
      if (bt.over <= budget) {
        let lo = 0;
        let hi = 1;
        while (at(hi).over <= budget && hi < 1e12) hi *= 2;
        for (let it = 0; it < 40; it++) {
          const mid = (lo + hi) / 2;
          if (at(mid).over <= budget) lo = mid;
          else hi = mid;
        }
        margin = lo;
        bt = at(lo);
      }
      const score = { estimator: name, smoothingHalfWidth: w, margin, ...bt };
      candidates.push(score);
      if (score.over > budget) continue;
      // Crane's shape with the budget-spending margin is the baseline (evaluated first); another shape must
      // beat it clearly, since one backtest period is a small sample.
      if (spec === craneSpec && w === 0) best = { spec, score };
      else if (score.under < best.score.under - config.minImprovement) best = { spec, score };
    }
  }
  return {
    estimator: best.spec,
    name: best.score.estimator,
    smoothingHalfWidth: best.score.smoothingHalfWidth,
    margin: best.score.margin,
    under: best.score.under,
    over: best.score.over,
    crane: { estimator: craneEstimatorName(craneSpec), ...craneBt },
    craneSpec,
    candidates,
  };
}

/** One period of auto forecast from a signal of nPeriods >= 2 whole periods. */
export function autoForecastOnePeriod(
  signal: Signal,
  nPeriods: number,
  periodSeconds: number,
  config: AutoConfig = DEFAULT_AUTO_CONFIG,
  spectra: PrefixSpectra = new PrefixSpectra(signal),
): { selection: AutoSelection; values: Float64Array } {
  const selection = selectAutoEstimator(signal, nPeriods, periodSeconds, config, spectra);
  const base = estimate(selection.estimator, spectra.of(signal.samples.length), periodSeconds);
  const values = movingMax(base, selection.smoothingHalfWidth).map((v) => v + selection.margin);
  return { selection, values };
}

/**
 * The chosen forecast (estimator, smoothing and margin of `selection`) refit on periods 0..k-1 to forecast
 * period k, for the last `count` periods (at least period 1): out-of-sample forecasts the window-maximum
 * calibration (window-calibration.ts) scores. Index k of the result is period k's forecast, or undefined.
 */
export function autoFoldForecasts(
  signal: Signal,
  nPeriods: number,
  periodSeconds: number,
  selection: Pick<AutoSelection, 'estimator' | 'smoothingHalfWidth' | 'margin'>,
  count: number,
  spectra: PrefixSpectra = new PrefixSpectra(signal),
): (Float64Array | undefined)[] {
  const out: (Float64Array | undefined)[] = new Array<Float64Array | undefined>(nPeriods).fill(undefined);
  for (const f of folds(spectra, nPeriods, count)) {
    const k = Math.round(f.shared.signal.samples.length / f.actual.length);
    const base = estimate(selection.estimator, f.shared, periodSeconds);
    out[k] = movingMax(base, selection.smoothingHalfWidth).map((v) => v + selection.margin);
  }
  return out;
}

/** One period of `spec`'s forecast from the whole signal, unsmoothed and without margin. */
export function estimateOnePeriod(spec: AutoEstimatorSpec, signal: Signal, periodSeconds: number, spectra: PrefixSpectra = new PrefixSpectra(signal)): Float64Array {
  return estimate(spec, spectra.of(signal.samples.length), periodSeconds);
}
