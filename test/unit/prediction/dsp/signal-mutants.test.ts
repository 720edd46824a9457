import { expect } from 'chai';
import { predictionError } from '../../../../src/prediction/dsp/accuracy.ts';
import { craneForecastOnePeriod, selectCraneEstimator } from '../../../../src/prediction/dsp/crane-selection.ts';
import { recentQuantileLevel } from '../../../../src/prediction/dsp/short-horizon.ts';
import { truncateToPeriods } from '../../../../src/prediction/dsp/signal.ts';

// Boundaries of Crane's Signal.Truncate, backtest score and estimator selection (docs/crane-behaviour.md §D.7,
// §D.8) and of the short-horizon fallback level.
describe('prediction/dsp signal, accuracy and selection boundaries', () => {
  describe('truncateToPeriods (Crane Signal.Truncate)', () => {
    it('a signal exactly one period long is one whole period, not "shorter than one period"', () => {
      // 10 samples at 0.5 Hz last 10 / 0.5 = 20 s = the period; per = int(20 * 0.5) = 10, m = floor(10 / 10) = 1.
      const samples = Float64Array.from({ length: 10 }, (_, i) => i);
      const r = truncateToPeriods({ sampleRate: 0.5, samples }, 20);
      expect(r).to.not.equal(null);
      expect(r?.periods).to.equal(1);
      expect(Array.from(r?.signal.samples ?? [])).to.deep.equal(Array.from(samples));
    });

    it('a period shorter than one sample interval holds no whole sample: null', () => {
      // At 0.5 Hz a sample lasts 2 s; a 1 s period has int(1 * 0.5) = 0 samples (and a 0 s period too).
      const signal = { sampleRate: 0.5, samples: new Float64Array(10) };
      expect(truncateToPeriods(signal, 1)).to.equal(null);
      expect(truncateToPeriods(signal, 0)).to.equal(null);
    });
  });

  describe('recentQuantileLevel (short-horizon fallback)', () => {
    it('interpolates linearly between the two order statistics around the quantile position', () => {
      const config = { lookbackSeconds: 3600, quantile: 0.5, maxHorizonSeconds: 7200 };
      // Sorted window [1, 3]; pos = 0.5 * (2 - 1) = 0.5: 1 + (3 - 1) * 0.5 = 2.
      expect(recentQuantileLevel([3, 1], 60, config)).to.equal(2);
      // Sorted [10, 20, 30, 40, 50]; q = 0.9: pos = 0.9 * 4 = 3.6: 40 + (50 - 40) * 0.6 = 46.
      expect(recentQuantileLevel([50, 10, 40, 20, 30], 60, { ...config, quantile: 0.9 })).to.be.closeTo(46, 1e-9);
    });
  });

  describe('predictionError (Crane accuracy.go)', () => {
    it('falls back to MAE only for actual values strictly below 1e-3; exactly 1e-3 still scores MAPE', () => {
      // a = 1e-3, p = 2e-3: over-prediction, (p - a) / a = 1.
      const pe = predictionError([1e-3], [2e-3]);
      expect(pe?.kind).to.equal('mape');
      expect(pe?.value).to.be.closeTo(1, 1e-12);
    });
  });

  describe('selectCraneEstimator (Crane bestEstimator)', () => {
    const maxValue = { kind: 'maxValue' as const, marginFraction: 0 };

    it('backtests on the last period with only the earlier periods as history (no look-ahead)', () => {
      // Two periods of 4 samples at 1 Hz: history [1, 1, 1, 1], actual [5, 5, 5, 5]. The max-value estimator
      // on the history predicts 1 everywhere: under-prediction by x = (5 - 1) / 5 = 0.8 at each point, scored
      // -ln(1 - 0.8) / ln 1.25 = ln 5 / ln 1.25 (about 7.2126). Had it seen the last period it would predict 5, error 0.
      const signal = { sampleRate: 1, samples: Float64Array.from([1, 1, 1, 1, 5, 5, 5, 5]) };
      const sel = selectCraneEstimator([maxValue], signal, 2, 4);
      expect(sel.best).to.equal(0);
      expect(sel.errors[0]?.kind).to.equal('mape');
      expect(sel.errors[0]?.value).to.be.closeTo(Math.log(5) / Math.log(1.25), 1e-12);
    });

    it('best is -1 when no estimator could be scored', () => {
      const signal = { sampleRate: 1, samples: Float64Array.from([1, 2, 3, 4, 1, 2, 3, 4]) };
      expect(selectCraneEstimator([], signal, 2, 4)).to.deep.equal({ best: -1, errors: [] });
      // 9 samples in 2 "periods": per = floor(9 / 2) = 4, so the actual tail has 5 samples but the estimator
      // returns int(4 s * 1 Hz) = 4: lengths differ, Crane's error case, the estimator is skipped.
      const ragged = { sampleRate: 1, samples: Float64Array.from([1, 2, 3, 4, 1, 2, 3, 4, 1]) };
      const sel = selectCraneEstimator([maxValue], ragged, 2, 4);
      expect(sel).to.deep.equal({ best: -1, errors: [null] });
      expect(craneForecastOnePeriod([maxValue], ragged, 2, 4)).to.equal(null);
    });
  });
});
