// Crane's bestEstimator (pkg/prediction/dsp/prediction.go, docs/crane-behaviour.md §D.8): backtest every estimator on the last
// whole period with the earlier periods as history, keep the smallest prediction error (strict <, so the
// earliest estimator wins ties), then run the winner on all periods.
import { predictionError, type PredictionError } from './accuracy.ts';
import { craneEstimate, SharedSpectrum, type CraneEstimatorSpec } from './crane-estimators.ts';
import type { Signal } from './signal.ts';

export interface CraneSelection {
  /** Index into the estimator list, -1 when none could be scored. */
  best: number;
  errors: (PredictionError | null)[];
}

export function selectCraneEstimator(
  specs: readonly CraneEstimatorSpec[],
  signal: Signal,
  nPeriods: number,
  periodSeconds: number,
  /** The spectrum of the first nPeriods - 1 periods, when the caller already has it (auto mode's folds). */
  historySpectrum?: SharedSpectrum,
): CraneSelection {
  const per = Math.floor(signal.samples.length / nPeriods);
  const history: Signal = { sampleRate: signal.sampleRate, samples: signal.samples.subarray(0, (nPeriods - 1) * per) };
  const actual = signal.samples.subarray((nPeriods - 1) * per);
  const shared = historySpectrum ?? new SharedSpectrum(history);
  let best = -1;
  let minPE = Number.MAX_VALUE;
  const errors = specs.map((spec, i) => {
    const pe = predictionError(actual, craneEstimate(spec, shared, periodSeconds));
    if (pe && pe.value < minPE) {
      minPE = pe.value;
      best = i;
    }
    return pe;
  });
  return { best, errors };
}

/** One period of Crane's forecast from a signal of nPeriods whole periods. */
export function craneForecastOnePeriod(
  specs: readonly CraneEstimatorSpec[],
  signal: Signal,
  nPeriods: number,
  periodSeconds: number,
): { estimator: CraneEstimatorSpec; values: Float64Array; selection: CraneSelection } | null {
  const selection = selectCraneEstimator(specs, signal, nPeriods, periodSeconds);
  const estimator = specs[selection.best];
  if (!estimator) return null;
  return { estimator, values: craneEstimate(estimator, new SharedSpectrum(signal), periodSeconds), selection };
}
