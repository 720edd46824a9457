import { expect } from 'chai';
import { predictionError } from '../../../../src/prediction/dsp/accuracy.ts';
import {
  craneEstimatorName,
  DEFAULT_CRANE_ESTIMATORS,
  fftEstimate,
  maxValueEstimate,
  SharedSpectrum,
} from '../../../../src/prediction/dsp/crane-estimators.ts';
import { selectCraneEstimator } from '../../../../src/prediction/dsp/crane-selection.ts';
import { truncateToPeriods, DAY_SECONDS, WEEK_SECONDS } from '../../../../src/prediction/dsp/signal.ts';

const RATE = 1 / 60;

function daily(days: number, noise = 0): Float64Array {
  return Float64Array.from({ length: days * 1440 }, (_, i) => 50 + 20 * Math.sin((2 * Math.PI * i) / 1440) + noise * (((i * 7919) % 101) / 101 - 0.5));
}

describe('prediction/dsp crane estimators', () => {
  it('Truncate keeps the last whole periods (Crane signal_test: 15 days of minutes by week = 2, 20160)', () => {
    const t = truncateToPeriods({ sampleRate: RATE, samples: new Float64Array(15 * 1440) }, WEEK_SECONDS);
    expect(t?.periods).to.equal(2);
    expect(t?.signal.samples.length).to.equal(20160);
    expect(truncateToPeriods({ sampleRate: RATE, samples: new Float64Array(100) }, DAY_SECONDS)).to.equal(null);
  });
  it('maxValue takes the per-phase maximum over periods times (1 + margin)', () => {
    const s = Float64Array.from([1, 5, 2, 4, 3, 1]); // three periods of 2 samples at 1 Hz
    const out = maxValueEstimate({ sampleRate: 1, samples: s }, 2, 0.5);
    expect(Array.from(out)).to.deep.equal([4.5, 7.5]);
  });
  it('fft reconstructs a clean daily sine and floors non-positive values at 0.01 before the margin', () => {
    const s = daily(3);
    const out = fftEstimate(new SharedSpectrum({ sampleRate: RATE, samples: s }), DAY_SECONDS, DEFAULT_CRANE_ESTIMATORS[1] as never);
    expect(out.length).to.equal(1440);
    for (let i = 0; i < 1440; i += 97) expect(out[i]).to.be.closeTo((s[2 * 1440 + i] as number) * 1.1, 1e-9);
    const negative = Float64Array.from(s, (v) => v - 200);
    const neg = fftEstimate(new SharedSpectrum({ sampleRate: RATE, samples: negative }), DAY_SECONDS, DEFAULT_CRANE_ESTIMATORS[0] as never);
    expect(neg.every((v) => Math.abs(v - 0.0101) < 1e-12)).to.equal(true);
  });
  it("names estimators like Crane's String()", () => {
    expect(craneEstimatorName(DEFAULT_CRANE_ESTIMATORS[0] as never)).to.equal(
      'FFT Estimator {minNumOfSpectrumItems: 3, maxNumOfSpectrumItems: 100, highFrequencyThreshold: 0.000278, lowAmplitudeThreshold: 1.000000, marginFraction: 0.010000}',
    );
    expect(craneEstimatorName({ kind: 'maxValue', marginFraction: 0.1 })).to.equal('Max Value Estimator {marginFraction: 0.100000}');
  });
  it('prediction error amplifies under-prediction and falls back to MAE near zero (crane accuracy.go)', () => {
    const over = predictionError([10, 10], [11, 11]);
    const under = predictionError([10, 10], [9, 9]);
    expect(over).to.deep.equal({ value: 0.1, kind: 'mape' });
    expect(under?.value).to.be.closeTo(-Math.log(0.9) / Math.log(1.25), 1e-15);
    expect((under?.value as number) > (over?.value as number)).to.equal(true);
    expect(predictionError([0.0001, 10], [1, 12])).to.deep.equal({ value: (0.9999 + 2) / 2, kind: 'mae' });
    expect(predictionError([1], [1, 2])).to.equal(null);
  });
  it('selection picks the smallest backtest error, the first on ties', () => {
    const s = daily(4, 6);
    const sel = selectCraneEstimator(DEFAULT_CRANE_ESTIMATORS, { sampleRate: RATE, samples: s }, 4, DAY_SECONDS);
    const values = sel.errors.map((e) => e?.value as number);
    expect(sel.best).to.equal(values.indexOf(Math.min(...values)));
    const tie = selectCraneEstimator([{ kind: 'maxValue', marginFraction: 0 }, { kind: 'maxValue', marginFraction: 0 }], { sampleRate: RATE, samples: s }, 4, DAY_SECONDS);
    expect(tie.best).to.equal(0);
  });
});
