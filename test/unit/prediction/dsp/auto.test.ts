import { expect } from 'chai';
import { movingMax, seasonalEstimate } from '../../../../src/prediction/dsp/seasonal-estimators.ts';
import { DEFAULT_AUTO_CONFIG, provisioning, selectAutoEstimator } from '../../../../src/prediction/dsp/auto-selection.ts';
import { SeededRandom } from '../../../../src/prediction/dsp/seeded-random.ts';
import { recentQuantileLevel } from '../../../../src/prediction/dsp/short-horizon.ts';
import { DAY_SECONDS } from '../../../../src/prediction/dsp/signal.ts';

// Three periods of four samples at 1 Hz: period "4 seconds".
const S = { sampleRate: 1, samples: Float64Array.from([1, 2, 3, 4, 3, 2, 5, 6, 2, 4, 4, 8]) };

describe('prediction/dsp seasonal estimators and auto selection', () => {
  it('seasonal naive repeats the last period; mean and quantile work per phase', () => {
    expect(Array.from(seasonalEstimate({ kind: 'seasonalNaive' }, S, 4))).to.deep.equal([2, 4, 4, 8]);
    expect(Array.from(seasonalEstimate({ kind: 'periodMean' }, S, 4))).to.deep.equal([2, 8 / 3, 4, 6]);
    expect(Array.from(seasonalEstimate({ kind: 'periodQuantile', quantile: 0.5 }, S, 4))).to.deep.equal([2, 2, 4, 6]);
    expect(Array.from(seasonalEstimate({ kind: 'periodQuantile', quantile: 1 }, S, 4))).to.deep.equal([3, 4, 5, 8]);
  });
  it('damped Holt-Winters follows a rising periodic series and never goes negative', () => {
    const rising = { sampleRate: 1, samples: Float64Array.from({ length: 40 }, (_, i) => 10 + i * 0.5 + (i % 4 === 3 ? 5 : 0)) };
    const f = seasonalEstimate({ kind: 'holtWinters', alpha: 0.3, beta: 0.1, gamma: 0.3, phi: 0.98 }, rising, 4);
    expect(f.length).to.equal(4);
    expect(f[3] as number).to.be.above(f[2] as number); // the seasonal spike survives
    expect(f[0] as number).to.be.above(25); // level carried forward (last values ~29-34)
    const falling = { sampleRate: 1, samples: Float64Array.from({ length: 40 }, (_, i) => Math.max(0, 20 - i)) };
    expect(seasonalEstimate({ kind: 'holtWinters', alpha: 0.5, beta: 0.5, gamma: 0.1, phi: 1 }, falling, 4).every((v) => v >= 0)).to.equal(true);
  });
  it('moving max is circular and O(n)', () => {
    expect(Array.from(movingMax(Float64Array.from([1, 0, 0, 0, 0, 2]), 1))).to.deep.equal([2, 1, 0, 0, 2, 2]);
    const x = Float64Array.from([3, 1, 4]);
    expect(movingMax(x, 0)).to.equal(x);
  });
  it('provisioning counts under-predicted points and over-provisioning relative to the actual total', () => {
    expect(provisioning([10, 10, 10, 10], [9, 10, 12, 14])).to.deep.equal({ under: 25, over: 15 });
    expect(provisioning([10, 10], [9, 9], 2)).to.deep.equal({ under: 0, over: 10 });
  });
  it("auto never under-predicts more than Crane's choice on the backtest and stays within the budget", () => {
    const rng = new SeededRandom(4);
    const samples = Float64Array.from({ length: 5 * 1440 }, (_, i) => 100 + 40 * Math.sin((2 * Math.PI * i) / 1440) + 30 * (rng.nextUint32() / 2 ** 32) ** 4);
    const sel = selectAutoEstimator({ sampleRate: 1 / 60, samples }, 5, DAY_SECONDS, DEFAULT_AUTO_CONFIG);
    expect(sel.under).to.be.at.most(sel.crane.under);
    expect(sel.over).to.be.at.most(sel.crane.over + DEFAULT_AUTO_CONFIG.overProvisionBudget + 1e-9);
    expect(sel.margin).to.be.at.least(0);
    expect(sel.candidates.length).to.equal((DEFAULT_AUTO_CONFIG.estimators.length + 1) * DEFAULT_AUTO_CONFIG.smoothingHalfWidths.length);
  });
  it('the short-horizon level is an upper quantile of the recent window', () => {
    const values = Array.from({ length: 200 }, (_, i) => i);
    expect(recentQuantileLevel(values, 60, { lookbackSeconds: 6000, quantile: 1, maxHorizonSeconds: 7200 })).to.equal(199);
    expect(recentQuantileLevel(values, 60, { lookbackSeconds: 6000, quantile: 0, maxHorizonSeconds: 7200 })).to.equal(100);
    expect(Number.isNaN(recentQuantileLevel([], 60, { lookbackSeconds: 60, quantile: 0.5, maxHorizonSeconds: 60 }))).to.equal(true);
  });
});
