// Edges of the period confirmation that period-confirmation.test.ts leaves open. Every case runs at one sample
// per second with a made-up 4-second "period" and 1-second bins, so the skill can be worked out by hand.
import { expect } from 'chai';
import { confirmPeriod, periodName } from '../../../../src/prediction/dsp/period-confirmation.ts';
import { DAY_SECONDS, WEEK_SECONDS } from '../../../../src/prediction/dsp/signal.ts';

const PER_SECOND = (values: number[]) => ({ sampleRate: 1, samples: Float64Array.from(values) });

describe('prediction/dsp period confirmation: edges', () => {
  it('less than one whole period: nothing to backtest (no folds, NaN skill, not confirmed)', () => {
    const c = confirmPeriod(PER_SECOND([1, 5, 2]), 4, { binSeconds: 1, minSkill: 0.2 });
    expect(c.folds).to.equal(0);
    expect(Number.isNaN(c.skill)).to.equal(true);
    expect(c.confirmed).to.equal(false);
  });
  it('one whole period is not confirmed either, even with a skill floor below any skill', () => {
    const c = confirmPeriod(PER_SECOND([0, 0, 2, 2, 7]), 4, { binSeconds: 1, minSkill: -Infinity });
    expect(c.folds).to.equal(0);
    expect(Number.isNaN(c.skill)).to.equal(true);
    expect(c.confirmed).to.equal(false);
  });
  it('a bin longer than the period leaves nothing to score: no folds, NaN skill', () => {
    // Two whole 4-sample periods, 8-sample bins: not one bin fits in a period.
    const c = confirmPeriod(PER_SECOND([0, 0, 2, 2, 2, 0, 2, 2]), 4, { binSeconds: 8, minSkill: -Infinity });
    expect(c.folds).to.equal(0);
    expect(Number.isNaN(c.skill)).to.equal(true);
    expect(c.confirmed).to.equal(false);
  });
  it('one bin per period: the seasonal forecast is the previous mean, the same as the flat one, so skill 0', () => {
    // Bins of 4 = the period. Period means 1 and 1.5; both forecasts say 1, both miss by 0.5: skill 1 - 0.5/0.5 = 0.
    const c = confirmPeriod(PER_SECOND([0, 0, 2, 2, 2, 0, 2, 2]), 4, { binSeconds: 4, minSkill: 0.2 });
    expect(c.folds).to.equal(1);
    expect(c.skill).to.equal(0);
    expect(c.confirmed).to.equal(false);
  });
  it('a skill equal to minSkill confirms the period (the floor is inclusive)', () => {
    // Period 1: 0,0,2,2 (mean 1). Period 2: 2,0,2,2.
    // Seasonal errors |2-0|+|0-0|+|2-2|+|2-2| = 2; flat errors |2-1|+|0-1|+|2-1|+|2-1| = 4; skill 1 - 2/4 = 0.5.
    const c = confirmPeriod(PER_SECOND([0, 0, 2, 2, 2, 0, 2, 2]), 4, { binSeconds: 1, minSkill: 0.5 });
    expect(c.folds).to.equal(1);
    expect(c.skill).to.equal(0.5);
    expect(c.confirmed).to.equal(true);
  });
  it('a flat forecast with no error leaves nothing for a period to explain: NaN, not -Infinity', () => {
    // Period 1: 0,0,2,2 (mean 1). Period 2: 1,1,1,1. Flat errors 0; seasonal errors 1+1+1+1 = 4.
    const c = confirmPeriod(PER_SECOND([0, 0, 2, 2, 1, 1, 1, 1]), 4, { binSeconds: 1, minSkill: 0.2 });
    expect(c.folds).to.equal(1);
    expect(Number.isNaN(c.skill)).to.equal(true);
    expect(c.confirmed).to.equal(false);
  });
  it('periodName: 24h, 168h, and none for anything else', () => {
    expect(periodName(DAY_SECONDS)).to.equal('24h');
    expect(periodName(WEEK_SECONDS)).to.equal('168h');
    expect(periodName(null)).to.equal('none');
    expect(periodName(3600)).to.equal('none');
  });
});
