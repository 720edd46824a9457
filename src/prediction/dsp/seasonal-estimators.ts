// Estimators Crane lacks, for `--estimators auto`. Each turns a signal of whole periods into one period of
// forecast. They are deliberately simple and robust: per-phase statistics across past periods (seasonal
// naive, mean, upper quantile), and a damped additive Holt-Winters for series whose level drifts.
import { samplesPerPeriod, type Signal } from './signal.ts';

export type SeasonalEstimatorSpec =
  | { kind: 'seasonalNaive' }
  | { kind: 'periodMean' }
  | { kind: 'periodQuantile'; quantile: number }
  | { kind: 'holtWinters'; alpha: number; beta: number; gamma: number; phi: number };

export function seasonalEstimatorName(spec: SeasonalEstimatorSpec): string {
  switch (spec.kind) {
    case 'seasonalNaive':
      return 'seasonal naive (last period)';
    case 'periodMean':
      return 'mean of past periods';
    case 'periodQuantile':
      return `P${Math.round(spec.quantile * 100)} of past periods`;
    case 'holtWinters':
      return `damped Holt-Winters {alpha: ${spec.alpha}, beta: ${spec.beta}, gamma: ${spec.gamma}, phi: ${spec.phi}}`;
  }
}

/** Linear-interpolated quantile of a small sorted array (type 7, as numpy's default). */
function sortedQuantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 1) return sorted[0] as number;
  const pos = q * (n - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(n - 1, lo + 1);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

function perPhase(signal: Signal, periodSeconds: number, reduce: (column: Float64Array) => number): Float64Array {
  const per = samplesPerPeriod(periodSeconds, signal.sampleRate);
  const s = signal.samples;
  const nPeriods = Math.floor(s.length / per);
  const offset = s.length - nPeriods * per;
  const out = new Float64Array(per);
  const column = new Float64Array(nPeriods);
  for (let i = 0; i < per; i++) {
    for (let p = 0; p < nPeriods; p++) column[p] = s[offset + p * per + i] as number;
    out[i] = reduce(column);
  }
  return out;
}

/**
 * Damped additive Holt-Winters: level, damped trend and per-phase seasonal terms, initialized from the
 * first period; the forecast for the next period sums the level, the damped trend and the season.
 */
function holtWinters(signal: Signal, periodSeconds: number, a: number, b: number, g: number, phi: number): Float64Array {
  const per = samplesPerPeriod(periodSeconds, signal.sampleRate);
  const s = signal.samples;
  const nPeriods = Math.floor(s.length / per);
  const offset = s.length - nPeriods * per;
  let level = 0;
  for (let i = 0; i < per; i++) level += s[offset + i] as number;
  level /= per;
  let trend = 0;
  if (nPeriods >= 2) {
    let second = 0;
    for (let i = 0; i < per; i++) second += s[offset + per + i] as number;
    trend = (second / per - level) / per;
  }
  const season = new Float64Array(per);
  for (let i = 0; i < per; i++) season[i] = (s[offset + i] as number) - level;
  for (let t = offset + per; t < s.length; t++) {
    const i = (t - offset) % per;
    const y = s[t] as number;
    const prevLevel = level;
    level = a * (y - (season[i] as number)) + (1 - a) * (prevLevel + phi * trend);
    trend = b * (level - prevLevel) + (1 - b) * phi * trend;
    season[i] = g * (y - level) + (1 - g) * (season[i] as number);
  }
  const out = new Float64Array(per);
  let damp = 0;
  let phiPow = 1;
  for (let h = 0; h < per; h++) {
    phiPow *= phi;
    damp += phiPow;
    out[h] = Math.max(0, level + damp * trend + (season[h] as number));
  }
  return out;
}

export function seasonalEstimate(spec: SeasonalEstimatorSpec, signal: Signal, periodSeconds: number): Float64Array {
  switch (spec.kind) {
    case 'seasonalNaive': {
      const per = samplesPerPeriod(periodSeconds, signal.sampleRate);
      return Float64Array.from(signal.samples.subarray(signal.samples.length - per));
    }
    case 'periodMean':
      return perPhase(signal, periodSeconds, (c) => c.reduce((x, y) => x + y, 0) / c.length);
    case 'periodQuantile':
      return perPhase(signal, periodSeconds, (c) => sortedQuantile(Float64Array.from(c).sort(), spec.quantile));
    case 'holtWinters':
      return holtWinters(signal, periodSeconds, spec.alpha, spec.beta, spec.gamma, spec.phi);
  }
}

/** Circular moving maximum over +-halfWidth samples: absorbs phase jitter of spikes between periods. */
export function movingMax(x: Float64Array, halfWidth: number): Float64Array {
  if (halfWidth <= 0) return x;
  const n = x.length;
  const out = new Float64Array(n);
  // Monotonic deque over the circularly extended sequence: O(n).
  const ext = (i: number) => x[((i % n) + n) % n] as number;
  const deque: number[] = [];
  let head = 0;
  for (let j = -halfWidth; j < n + halfWidth; j++) {
    const v = ext(j);
    while (deque.length > head && ext(deque[deque.length - 1] as number) <= v) deque.pop();
    deque.push(j);
    const center = j - halfWidth;
    if (center >= 0) {
      while ((deque[head] as number) < center - halfWidth) head++;
      out[center] = ext(deque[head] as number);
    }
  }
  return out;
}
