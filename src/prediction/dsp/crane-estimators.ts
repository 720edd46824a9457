// Crane's two estimators (pkg/prediction/dsp/estimators.go, docs/crane-behaviour.md §D.8), each returning one period of
// forecast from a signal that holds whole periods. The FFT estimator keeps the strongest spectral lines and
// reconstructs the last period; it runs on crane-fft.ts so its keep/zero decisions, and therefore its
// output, match Crane's to the last bit. Estimators over the same signal share one spectrum.
import { craneFftReal, craneIfft, type ComplexArray } from './crane-fft.ts';
import { goHypot } from '../../gomath/go-trig.ts';
import { samplesPerPeriod, type Signal } from './signal.ts';

export interface MaxValueEstimatorSpec {
  kind: 'maxValue';
  marginFraction: number;
}

export interface FftEstimatorSpec {
  kind: 'fft';
  /** 0 means Crane's default for each of these fields. */
  minNumOfSpectrumItems: number;
  maxNumOfSpectrumItems: number;
  highFrequencyThreshold: number;
  lowAmplitudeThreshold: number;
  marginFraction: number;
}

export type CraneEstimatorSpec = MaxValueEstimatorSpec | FftEstimatorSpec;

const DEFAULT_HIGH_FREQUENCY_THRESHOLD = 1.0 / (60.0 * 60.0);
const DEFAULT_LOW_AMPLITUDE_THRESHOLD = 1.0;
const DEFAULT_MIN_SPECTRUM_ITEMS = 3;
const DEFAULT_MAX_SPECTRUM_ITEMS = 100;
/** Reconstructed values <= 0 become this (before the margin). */
const FFT_MIN_VALUE = 0.01;

function fft(min: number, lowAmp: number, margin: number): FftEstimatorSpec {
  return {
    kind: 'fft',
    minNumOfSpectrumItems: min,
    maxNumOfSpectrumItems: 100,
    highFrequencyThreshold: 0,
    lowAmplitudeThreshold: lowAmp,
    marginFraction: margin,
  };
}

/** Crane's defaultEstimators (pkg/prediction/dsp/config.go, docs/crane-behaviour.md §D.5): eight FFT estimators. */
export const DEFAULT_CRANE_ESTIMATORS: readonly CraneEstimatorSpec[] = [
  fft(3, 1.0, 0.01),
  fft(3, 1.0, 0.1),
  fft(3, 1.0, 0.15),
  fft(3, 1.0, 0.2),
  fft(50, 0.05, 0.01),
  fft(50, 0.05, 0.1),
  fft(50, 0.05, 0.15),
  fft(50, 0.05, 0.2),
];

/** Crane's String() of an estimator, used as the estimator name in forecasts. */
export function craneEstimatorName(spec: CraneEstimatorSpec): string {
  const f6 = (x: number) => x.toFixed(6);
  if (spec.kind === 'maxValue') return `Max Value Estimator {marginFraction: ${f6(spec.marginFraction)}}`;
  const d = withDefaults(spec);
  return (
    `FFT Estimator {minNumOfSpectrumItems: ${d.minNumOfSpectrumItems}, maxNumOfSpectrumItems: ${d.maxNumOfSpectrumItems}, ` +
    `highFrequencyThreshold: ${f6(d.highFrequencyThreshold)}, lowAmplitudeThreshold: ${f6(d.lowAmplitudeThreshold)}, ` +
    `marginFraction: ${f6(d.marginFraction)}}`
  );
}

function withDefaults(spec: FftEstimatorSpec): FftEstimatorSpec {
  return {
    kind: 'fft',
    minNumOfSpectrumItems: spec.minNumOfSpectrumItems || DEFAULT_MIN_SPECTRUM_ITEMS,
    maxNumOfSpectrumItems: spec.maxNumOfSpectrumItems || DEFAULT_MAX_SPECTRUM_ITEMS,
    highFrequencyThreshold: spec.highFrequencyThreshold || DEFAULT_HIGH_FREQUENCY_THRESHOLD,
    lowAmplitudeThreshold: spec.lowAmplitudeThreshold || DEFAULT_LOW_AMPLITUDE_THRESHOLD,
    marginFraction: spec.marginFraction || 0,
  };
}

export function maxValueEstimate(signal: Signal, periodSeconds: number, marginFraction: number): Float64Array {
  const per = samplesPerPeriod(periodSeconds, signal.sampleRate);
  const s = signal.samples;
  const n = s.length;
  const nPeriods = Math.floor(n / per);
  const out = new Float64Array(per);
  for (let i = n - per; i < n; i++) {
    let max = s[i] as number;
    for (let j = 1; j < nPeriods; j++) {
      const v = s[i - per * j] as number;
      if (max < v) max = v;
    }
    out[i - (n - per)] = max * (1.0 + marginFraction);
  }
  return out;
}

/** The spectrum of one signal with its amplitudes, computed once for every FFT estimator. */
export class SharedSpectrum {
  private spectrum: ComplexArray | undefined;
  private amplitudes: Float64Array | undefined;
  private sortedDesc: Float64Array | undefined;
  /**
   * The inverse transform of the spectrum with the bins below an amplitude and above a frequency zeroed, by
   * those two numbers: Crane's eight default estimators differ only in their margin after it, so they need
   * two inverse transforms, not eight (each a Bluestein transform of the whole history).
   */
  private readonly inverses = new Map<string, Float64Array>();

  constructor(readonly signal: Signal) {}

  /**
   * Crane's filter: zero every bin whose amplitude is below `minAmplitude` and whose frequency is above
   * `highFrequencyThreshold` (Hz), then the real part of go-dsp's inverse transform. Computed once per pair.
   */
  filteredInverse(minAmplitude: number, highFrequencyThreshold: number): Float64Array {
    const key = `${minAmplitude} ${highFrequencyThreshold}`;
    const known = this.inverses.get(key);
    if (known) return known;
    const { X, amplitudes } = this.get();
    const n = X.re.length;
    const re = Float64Array.from(X.re);
    const im = Float64Array.from(X.im);
    for (let k = 0; k < n; k++) {
      const frequency = (k * this.signal.sampleRate) / n;
      if ((amplitudes[k] as number) < minAmplitude && frequency > highFrequencyThreshold) {
        re[k] = 0;
        im[k] = 0;
      }
    }
    const x = craneIfft(re, im).re;
    this.inverses.set(key, x);
    return x;
  }

  get(): { X: ComplexArray; amplitudes: Float64Array; sortedDesc: Float64Array } {
    if (!this.spectrum) {
      const X = craneFftReal(this.signal.samples);
      const n = X.re.length;
      const amplitudes = new Float64Array(n);
      for (let k = 0; k < n; k++) amplitudes[k] = goHypot(X.re[k] as number, X.im[k] as number) / n;
      // Crane sorts amplitudes[1 : n/2] descending.
      const sortedDesc = amplitudes.slice(1, Math.max(1, Math.floor(n / 2))).sort().reverse();
      this.spectrum = X;
      this.amplitudes = amplitudes;
      this.sortedDesc = sortedDesc;
    }
    return { X: this.spectrum, amplitudes: this.amplitudes as Float64Array, sortedDesc: this.sortedDesc as Float64Array };
  }
}

export function fftEstimate(shared: SharedSpectrum, periodSeconds: number, rawSpec: FftEstimatorSpec): Float64Array {
  const spec = withDefaults(rawSpec);
  const { signal } = shared;
  const { X, sortedDesc: A } = shared.get();
  const n = X.re.length;
  let minAmplitude: number;
  if (A.length >= spec.maxNumOfSpectrumItems) minAmplitude = A[spec.maxNumOfSpectrumItems - 1] as number;
  else minAmplitude = A[A.length - 1] as number; // Go panics on an empty slice; signals here are longer
  if (minAmplitude < spec.lowAmplitudeThreshold) minAmplitude = spec.lowAmplitudeThreshold;
  if (A.length >= spec.minNumOfSpectrumItems && (A[spec.minNumOfSpectrumItems - 1] as number) < minAmplitude) {
    minAmplitude = A[spec.minNumOfSpectrumItems - 1] as number;
  }
  const x = shared.filteredInverse(minAmplitude, spec.highFrequencyThreshold);
  const per = samplesPerPeriod(periodSeconds, signal.sampleRate);
  const out = new Float64Array(per);
  for (let i = n - per; i < n; i++) {
    let a = x[i] as number;
    if (a <= 0.0) a = FFT_MIN_VALUE;
    out[i + per - n] = a * (1.0 + spec.marginFraction);
  }
  return out;
}

/** Runs one estimator; pass the same SharedSpectrum to estimators over the same signal. */
export function craneEstimate(spec: CraneEstimatorSpec, shared: SharedSpectrum, periodSeconds: number): Float64Array {
  return spec.kind === 'maxValue'
    ? maxValueEstimate(shared.signal, periodSeconds, spec.marginFraction)
    : fftEstimate(shared, periodSeconds, spec);
}
