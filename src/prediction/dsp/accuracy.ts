// Crane's backtest score (pkg/prediction/accuracy/accuracy.go): a MAPE in which under-prediction is
// amplified (-ln(1-x)/ln 1.25), falling back to the plain MAE when any actual value is below 1e-3.

const MAPE_EPSILON = 1e-3;
const LN_1_25 = Math.log(1.25);

function amplify(x: number): number {
  return -Math.log(1.0 - x) / LN_1_25;
}

export interface PredictionError {
  value: number;
  kind: 'mape' | 'mae';
}

/** Returns null when the lengths differ (Crane's error case: that estimator is skipped). */
export function predictionError(actual: ArrayLike<number>, predicted: ArrayLike<number>): PredictionError | null {
  if (actual.length !== predicted.length) return null;
  const n = actual.length;
  let e = 0;
  let mapeOk = true;
  for (let i = 0; i < n; i++) {
    const a = actual[i] as number;
    const p = predicted[i] as number;
    if (a < MAPE_EPSILON) {
      mapeOk = false;
      break;
    }
    e += p < a ? amplify((a - p) / a) : (p - a) / a;
  }
  if (mapeOk) return { value: e / n, kind: 'mape' };
  let abs = 0;
  for (let i = 0; i < n; i++) abs += Math.abs((actual[i] as number) - (predicted[i] as number));
  return { value: abs / n, kind: 'mae' };
}
