// `auto` mode's estimator selection (src/prediction/dsp/auto-selection.ts), rule by rule, on signals whose
// backtest is known by hand: a load that repeats exactly is forecast without error by the seasonal naive, so its
// over-provisioning at an additive margin m is 100·m / mean(load) percent, and the margin that spends a budget
// B is B·mean(load)/100. Crane's own choice is whatever its FFT selection makes of the signal; the tests read its
// scores from the result only to form the budget, never as the value under test.
import { expect } from 'chai';
import {
  autoEstimatorName,
  autoFoldForecasts,
  autoForecastOnePeriod,
  estimateOnePeriod,
  provisioning,
  quantileOf,
  selectAutoEstimator,
  type AutoConfig,
} from '../../../../src/prediction/dsp/auto-selection.ts';
import { craneEstimatorName } from '../../../../src/prediction/dsp/crane-estimators.ts';
import { SeededRandom } from '../../../../src/prediction/dsp/seeded-random.ts';

const at1Hz = (xs: number[]) => ({ sampleRate: 1, samples: Float64Array.from(xs) });

// A load that repeats exactly every 256 s (6 periods of random values 1..10 at 1 Hz): Crane's FFT estimators
// keep at most 100 of its 128 spectrum lines and under-predict part of every period; the seasonal naive is exact.
const PER = 256;
const rng = new SeededRandom(3);
const PERIOD = Array.from({ length: PER }, () => 1 + (rng.nextUint32() % 10));
const MEAN = PERIOD.reduce((a, b) => a + b, 0) / PER;
const periodic = at1Hz(Array.from({ length: 6 }, () => PERIOD).flat());
const naiveOnly = (o: Partial<AutoConfig> = {}): AutoConfig => ({
  overProvisionBudget: 3,
  folds: 3,
  minImprovement: 2,
  estimators: [{ kind: 'seasonalNaive' }],
  smoothingHalfWidths: [0],
  ...o,
});

describe('prediction/dsp auto selection, rule by rule', () => {
  it('quantileOf interpolates between order statistics and leaves its input alone', () => {
    const x = Float64Array.from([4, 1, 3, 2]);
    expect(quantileOf(x, 0)).to.equal(1);
    expect(quantileOf(x, 1)).to.equal(4);
    expect(quantileOf(x, 0.5)).to.equal(2.5);
    expect(quantileOf(x, 1 / 3)).to.equal(2);
    expect(quantileOf(x, 0.25)).to.equal(1.75);
    expect(Array.from(x)).to.deep.equal([4, 1, 3, 2]);
  });

  it('provisioning: a point exactly met is not under; no load counts spare capacity as is; empty is zero', () => {
    expect(provisioning([5], [5])).to.deep.equal({ under: 0, over: 0 });
    expect(provisioning([10], [8], 2)).to.deep.equal({ under: 0, over: 0 });
    expect(provisioning([10], [8], 1)).to.deep.equal({ under: 100, over: 0 });
    expect(provisioning([10, 10, 10, 10], [11, 8, 10, 12])).to.deep.equal({ under: 25, over: 7.5 });
    expect(provisioning([0, 0], [1, 2])).to.deep.equal({ under: 0, over: 3 });
    expect(provisioning([], [])).to.deep.equal({ under: 0, over: 0 });
  });

  it("names: Crane's estimators by Crane's String(), the seasonal ones by their own", () => {
    const fft = { kind: 'fft', minNumOfSpectrumItems: 3, maxNumOfSpectrumItems: 100, highFrequencyThreshold: 0, lowAmplitudeThreshold: 1, marginFraction: 0 } as const;
    expect(autoEstimatorName(fft)).to.equal(craneEstimatorName(fft));
    expect(autoEstimatorName({ kind: 'maxValue', marginFraction: 0.1 })).to.equal('Max Value Estimator {marginFraction: 0.100000}');
    expect(autoEstimatorName({ kind: 'periodMean' })).to.equal('mean of past periods');
  });

  it("a shape that under-predicts clearly less than Crane's wins, with the margin that spends the whole budget", () => {
    const sel = selectAutoEstimator(periodic, 6, PER, naiveOnly());
    // The premise: Crane's choice misses more than minImprovement points on this backtest.
    expect(sel.crane.under).to.be.above(2);
    expect(sel.name).to.equal('seasonal naive (last period)');
    expect(sel.smoothingHalfWidth).to.equal(0);
    const budget = sel.crane.over + 3;
    // Exact forecast: over = 100·m/MEAN, so the margin is budget·MEAN/100 (to the bisection's precision).
    expect(sel.margin).to.be.closeTo((budget * MEAN) / 100, 1e-9 * budget);
    expect(sel.margin).to.be.at.most((budget * MEAN) / 100);
    expect(sel.under).to.equal(0);
    expect(sel.over).to.be.closeTo(budget, 1e-8);
    expect(sel.over).to.be.at.most(budget);
    // Crane's own choice (first, unsmoothed) and the seasonal naive: one score each per half-width.
    expect(sel.candidates.map((c) => c.estimator)).to.deep.equal([sel.crane.estimator, 'seasonal naive (last period)']);
    expect(sel.candidates[1]?.margin).to.equal(sel.margin);
  });

  it('a big budget is spent too: the margin search doubles past 1 before it bisects', () => {
    const sel = selectAutoEstimator(periodic, 6, PER, naiveOnly({ overProvisionBudget: 400 }));
    const budget = sel.crane.over + 400;
    // The seasonal naive's score (Crane's shape also misses nothing at such a margin, and keeps its place).
    const naive = sel.candidates[1];
    expect(naive?.estimator).to.equal('seasonal naive (last period)');
    expect(naive?.margin).to.be.above(1);
    expect(naive?.margin).to.be.closeTo((budget * MEAN) / 100, 1e-9 * budget);
    expect(naive?.under).to.equal(0);
  });

  it("another shape must beat Crane's by more than minImprovement points, else Crane's choice stays", () => {
    // Crane's shape at the budget-spending margin still misses some points; the seasonal naive misses none.
    const craneUnder = selectAutoEstimator(periodic, 6, PER, naiveOnly()).candidates[0]?.under as number;
    expect(craneUnder).to.be.above(0);
    const sel = selectAutoEstimator(periodic, 6, PER, naiveOnly({ minImprovement: craneUnder }));
    expect(sel.name).to.equal(sel.crane.estimator);
    expect(sel.estimator).to.deep.equal(sel.craneSpec);
    // Crane's shape smoothed is another shape too: it does not replace the unsmoothed baseline by being in budget.
    // (A budget wide enough for the smoothed shape; a minImprovement nothing can beat.)
    const smoothed = selectAutoEstimator(periodic, 6, PER, naiveOnly({ overProvisionBudget: 200, minImprovement: 1000, smoothingHalfWidths: [0, 5] }));
    expect(smoothed.candidates[1]?.smoothingHalfWidth).to.equal(5);
    expect(smoothed.candidates[1]?.over).to.be.at.most(smoothed.crane.over + 200);
    expect(smoothed.name).to.equal(smoothed.crane.estimator);
    expect(smoothed.smoothingHalfWidth).to.equal(0);
    // Crane's shape still gets the margin that spends the budget.
    expect(sel.over).to.be.at.most(sel.crane.over + 3);
    expect(sel.margin).to.be.above(0);
  });

  it('with a budget nothing fits in, every candidate is skipped and Crane\'s plain backtest stands', () => {
    // A budget below zero: no margin makes over-provisioning negative.
    const craneOver = selectAutoEstimator(periodic, 6, PER, naiveOnly()).crane.over;
    const sel = selectAutoEstimator(periodic, 6, PER, naiveOnly({ overProvisionBudget: -(craneOver + 1) }));
    expect(sel.name).to.equal(sel.crane.estimator);
    expect(sel.margin).to.equal(0);
    expect(sel.under).to.equal(sel.crane.under);
    expect(sel.over).to.equal(sel.crane.over);
    // Both were scored at margin 0 (over budget at any margin), and neither was taken.
    for (const c of sel.candidates) expect(c.margin).to.equal(0);
  });

  it('backtest scores are the mean over the folds', () => {
    // Each period is the one before plus 1: the seasonal naive misses every point of every fold by 1 (100 %
    // under, nothing over) whatever the number of folds, and a budget below zero leaves it at margin 0.
    const rising = at1Hz(Array.from({ length: 6 }, (_, k) => PERIOD.map((v) => v + k)).flat());
    for (const folds of [1, 3]) {
      const sel = selectAutoEstimator(rising, 6, PER, naiveOnly({ folds, overProvisionBudget: -1e9 }));
      expect(sel.candidates[1], `${folds} folds`).to.deep.equal({ estimator: 'seasonal naive (last period)', smoothingHalfWidth: 0, margin: 0, under: 100, over: 0 });
    }
  });

  it('smoothing widths multiply the candidates; a smoothed exact shape over-provisions and loses', () => {
    const sel = selectAutoEstimator(periodic, 6, PER, naiveOnly({ smoothingHalfWidths: [0, 1] }));
    expect(sel.candidates.map((c) => [c.estimator === sel.crane.estimator ? 'crane' : c.estimator, c.smoothingHalfWidth])).to.deep.equal([
      ['crane', 0],
      ['crane', 1],
      ['seasonal naive (last period)', 0],
      ['seasonal naive (last period)', 1],
    ]);
    expect(sel.smoothingHalfWidth).to.equal(0);
  });

  it('fold forecasts: period k forecast from periods 0..k-1, for the last `count` periods and never period 0', () => {
    const s = at1Hz([1, 2, 3, 4, 5, 6, 7, 8]);
    const sel = { estimator: { kind: 'seasonalNaive' } as const, smoothingHalfWidth: 0, margin: 0.5 };
    const two = autoFoldForecasts(s, 4, 2, sel, 2).map((f) => (f ? Array.from(f) : undefined));
    expect(two).to.deep.equal([undefined, undefined, [3.5, 4.5], [5.5, 6.5]]);
    const all = autoFoldForecasts(s, 4, 2, sel, 9).map((f) => (f ? Array.from(f) : undefined));
    expect(all).to.deep.equal([undefined, [1.5, 2.5], [3.5, 4.5], [5.5, 6.5]]);
    // Smoothing before the margin: the circular ±1 maximum of [5, 6] is [6, 6].
    const smoothed = autoFoldForecasts(s, 4, 2, { ...sel, smoothingHalfWidth: 1 }, 1);
    expect(smoothed.map((f) => (f ? Array.from(f) : undefined))).to.deep.equal([undefined, undefined, undefined, [6.5, 6.5]]);
  });

  it("the one-period forecast is the chosen shape, smoothed, plus the chosen margin", () => {
    const { selection, values } = autoForecastOnePeriod(periodic, 6, PER, naiveOnly());
    expect(selection.name).to.equal('seasonal naive (last period)');
    expect(Array.from(values)).to.deep.equal(PERIOD.map((v) => v + selection.margin));
    expect(Array.from(estimateOnePeriod({ kind: 'periodMean' }, at1Hz([1, 2, 3, 6]), 2))).to.deep.equal([2, 4]);
  });
});
