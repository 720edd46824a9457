// Crane's FFT estimator keeps the strongest spectral lines and zeroes the rest (pkg/prediction/dsp/estimators.go
// in gocrane/crane v0.11.0, docs/crane-behaviour.md §D.8): the cut-off amplitude is the maxNumOfSpectrumItems-th
// largest amplitude, raised to lowAmplitudeThreshold, then lowered to the minNumOfSpectrumItems-th largest;
// lines below it are zeroed only above highFrequencyThreshold. The Go oracle pins the result on real traces;
// these tests pin every rule on a signal whose spectrum is known exactly, so the expected forecast is written
// from first principles: a sum of the cosines that survive.
import { expect } from 'chai';
import { fftEstimate, SharedSpectrum, type FftEstimatorSpec } from '../../../../src/prediction/dsp/crane-estimators.ts';
import { DAY_SECONDS } from '../../../../src/prediction/dsp/signal.ts';

const RATE = 1 / 60;
const N = 2 * 1440; // two days of minutes: bin k is k / 172,800 Hz, so bins above 48 are above 1/3600 Hz
const DC = 20;
// Cosines on whole bins of the two-day transform: amplitude A gives |X_k| / N = A / 2 at bins k and N − k.
const LINES = [
  { k: 2, a: 8 }, // once a day: amplitude 4 in the spectrum
  { k: 6, a: 3 }, // 1.5
  { k: 60, a: 1.5 }, // 0.75, above 1/3600 Hz
  { k: 80, a: 0.6 }, // 0.3, above 1/3600 Hz
];

function wave(i: number, keep: readonly number[]): number {
  let v = DC;
  for (const { k, a } of LINES) if (keep.includes(k)) v += a * Math.cos((2 * Math.PI * k * i) / N);
  return v;
}

const samples = Float64Array.from({ length: N }, (_, i) => wave(i, LINES.map((l) => l.k)));

function estimate(spec: Partial<FftEstimatorSpec>): Float64Array {
  const full: FftEstimatorSpec = { kind: 'fft', minNumOfSpectrumItems: 0, maxNumOfSpectrumItems: 0, highFrequencyThreshold: 0, lowAmplitudeThreshold: 0, marginFraction: 0, ...spec };
  return fftEstimate(new SharedSpectrum({ sampleRate: RATE, samples }), DAY_SECONDS, full);
}

/** The last day of the two, rebuilt from the lines in `keep`. */
function expectLines(out: Float64Array, keep: readonly number[]): void {
  expect(out.length).to.equal(1440);
  let worst = 0;
  for (let i = 0; i < 1440; i++) worst = Math.max(worst, Math.abs((out[i] as number) - wave(N - 1440 + i, keep)));
  expect(worst, `kept ${keep.join(', ')}`).to.be.below(1e-9);
}

describe("prediction/dsp Crane's FFT estimator: which lines it keeps", () => {
  it('defaults (3, 100, 1/3600 Hz, 1.0): the cut-off is the third-largest amplitude (0.75), kept at equality', () => {
    // 100th largest ≈ 0, raised to 1.0, lowered to the 3rd largest (0.75): the 0.3 line above 1/3600 Hz goes.
    expectLines(estimate({}), [2, 6, 60]);
    // Zero in every field means Crane's default (config.go): the same forecast as the defaults written out.
    expectLines(estimate({ minNumOfSpectrumItems: 3, maxNumOfSpectrumItems: 100, highFrequencyThreshold: 1 / 3600, lowAmplitudeThreshold: 1 }), [2, 6, 60]);
  });
  it('maxNumOfSpectrumItems: the cut-off is the max-th largest amplitude', () => {
    // 2nd largest is 1.5: the 0.75 and 0.3 lines (both above 1/3600 Hz) go; min 1 (4 < 1.5 is false) changes nothing.
    expectLines(estimate({ minNumOfSpectrumItems: 1, maxNumOfSpectrumItems: 2, lowAmplitudeThreshold: 0.1 }), [2, 6]);
  });
  it('lowAmplitudeThreshold raises a lower cut-off: at 0.2 every line stays, at the default 1.0 the 0.3 line goes', () => {
    expectLines(estimate({ lowAmplitudeThreshold: 0.2 }), [2, 6, 60, 80]);
    expectLines(estimate({ lowAmplitudeThreshold: 1 }), [2, 6, 60]);
  });
  it('minNumOfSpectrumItems lowers the cut-off to the min-th largest, only when the spectrum has that many lines', () => {
    // 1,439 amplitudes are sorted (bins 1 … N/2 − 1). min = 1439: the smallest (≈ 0) becomes the cut-off: all stay.
    expectLines(estimate({ minNumOfSpectrumItems: 1439, maxNumOfSpectrumItems: 2, lowAmplitudeThreshold: 0.1 }), [2, 6, 60, 80]);
    // min = 1440: more than there are, so the rule is skipped and max = 2 decides (cut-off 1.5).
    expectLines(estimate({ minNumOfSpectrumItems: 1440, maxNumOfSpectrumItems: 2, lowAmplitudeThreshold: 0.1 }), [2, 6]);
  });
  it('highFrequencyThreshold: only lines above it are zeroed, so low ones stay whatever their amplitude', () => {
    // Cut-off 4 (max = min = 1): above 1e-9 Hz only the daily line (and the mean) survive.
    expectLines(estimate({ minNumOfSpectrumItems: 1, maxNumOfSpectrumItems: 1, highFrequencyThreshold: 1e-9, lowAmplitudeThreshold: 0.01 }), [2]);
    // The same cut-off with the threshold at 1 Hz: no line is above it, nothing is zeroed.
    expectLines(estimate({ minNumOfSpectrumItems: 1, maxNumOfSpectrumItems: 1, highFrequencyThreshold: 1, lowAmplitudeThreshold: 0.01 }), [2, 6, 60, 80]);
    // At the default 1/3600 Hz with the cut-off at 4: bin 6 is below the threshold and stays, but its mirror
    // N − 6 counts as k · rate / N = 0.0166 Hz (Crane does not fold frequencies above Nyquist), is above it and
    // goes, so half of that line survives: the real part of the inverse keeps 3/2 of it. 60 and 80 go.
    const out = estimate({ minNumOfSpectrumItems: 1, maxNumOfSpectrumItems: 1, lowAmplitudeThreshold: 0.01 });
    let worst = 0;
    for (let i = 0; i < 1440; i++) {
      const t = N - 1440 + i;
      worst = Math.max(worst, Math.abs((out[i] as number) - (wave(t, [2]) + 1.5 * Math.cos((2 * Math.PI * 6 * t) / N))));
    }
    expect(worst).to.be.below(1e-9);
  });
  it('the margin multiplies the rebuilt values', () => {
    const out = estimate({ marginFraction: 0.25 });
    const plain = estimate({});
    out.forEach((v, i) => expect(v).to.be.closeTo(1.25 * (plain[i] as number), 1e-9));
  });
});
