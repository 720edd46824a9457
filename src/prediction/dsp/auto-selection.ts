// `--estimators auto`: choose among Crane's FFT estimators and the seasonal ones by a backtest on the last
// whole period (history = the earlier periods) that counts under-predicted points. Crane's own choice sets
// the budget: its over-provisioning on the same backtest, plus `overProvisionBudget` percentage points.
// Within that budget, the candidate (shape, moving-max smoothing, additive margin taken from the quantiles
// of its backtest residuals) that under-predicts the fewest points wins; ties go to less over-provisioning.
// Crane's choice is itself a candidate, so auto never looks worse than Crane on the backtest.
import { craneEstimate, SharedSpectrum, type CraneEstimatorSpec } from './crane-estimators.ts';
import { craneEstimatorName, DEFAULT_CRANE_ESTIMATORS } from './crane-estimators.ts';
import { selectCraneEstimator } from './crane-selection.ts';
import { movingMax, seasonalEstimate, seasonalEstimatorName, type SeasonalEstimatorSpec } from './seasonal-estimators.ts';
import type { Signal } from './signal.ts';

export type AutoEstimatorSpec = CraneEstimatorSpec | SeasonalEstimatorSpec;

export interface AutoConfig {
  /** Extra over-provisioning allowed over Crane's on the backtest, percentage points of the actual total. */
  overProvisionBudget: number;
  /** Residual quantiles tried as additive margins (0 margin is always tried). */
  marginQuantiles: readonly number[];
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
  marginQuantiles: [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95],
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

function quantileOf(values: Float64Array, q: number): number {
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
  candidates: AutoCandidateScore[];
}

export function selectAutoEstimator(signal: Signal, nPeriods: number, periodSeconds: number, config: AutoConfig): AutoSelection {
  const per = Math.floor(signal.samples.length / nPeriods);
  const history: Signal = { sampleRate: signal.sampleRate, samples: signal.samples.subarray(0, (nPeriods - 1) * per) };
  const actual = signal.samples.subarray((nPeriods - 1) * per);
  const shared = new SharedSpectrum(history);
  const craneSel = selectCraneEstimator(DEFAULT_CRANE_ESTIMATORS, signal, nPeriods, periodSeconds);
  const craneSpec = DEFAULT_CRANE_ESTIMATORS[craneSel.best] ?? (DEFAULT_CRANE_ESTIMATORS[0] as CraneEstimatorSpec);
  const craneBt = provisioning(actual, craneEstimate(craneSpec, shared, periodSeconds));
  const budget = craneBt.over + config.overProvisionBudget;
  const candidates: AutoCandidateScore[] = [];
  let best: { spec: AutoEstimatorSpec; score: AutoCandidateScore } = {
    spec: craneSpec,
    score: { estimator: craneEstimatorName(craneSpec), smoothingHalfWidth: 0, margin: 0, ...craneBt },
  };
  const residual = new Float64Array(per);
  for (const spec of config.estimators) {
    const base = estimate(spec, shared, periodSeconds);
    const name = autoEstimatorName(spec);
    for (const w of config.smoothingHalfWidths) {
      const shaped = movingMax(base, w);
      for (let i = 0; i < per; i++) residual[i] = (actual[i] as number) - (shaped[i] as number);
      const margins = [0, ...config.marginQuantiles.map((q) => Math.max(0, quantileOf(residual, q)))];
      for (const margin of new Set(margins)) {
        const score = { estimator: name, smoothingHalfWidth: w, margin, ...provisioning(actual, shaped, margin) };
        candidates.push(score);
        if (score.over > budget) continue;
        if (score.under < best.score.under || (score.under === best.score.under && score.over < best.score.over)) {
          best = { spec, score };
        }
      }
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
    candidates,
  };
}

/** One period of auto forecast from a signal of nPeriods >= 2 whole periods. */
export function autoForecastOnePeriod(
  signal: Signal,
  nPeriods: number,
  periodSeconds: number,
  config: AutoConfig = DEFAULT_AUTO_CONFIG,
): { selection: AutoSelection; values: Float64Array } {
  const selection = selectAutoEstimator(signal, nPeriods, periodSeconds, config);
  const base = estimate(selection.estimator, new SharedSpectrum(signal), periodSeconds);
  const values = movingMax(base, selection.smoothingHalfWidth).map((v) => v + selection.margin);
  return { selection, values };
}
