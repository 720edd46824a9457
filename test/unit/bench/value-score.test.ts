// bench/value-score.ts: the evaluation-only scoring (bound check, bars, trace preparation), by hand.
import { expect } from 'chai';
import type { FrontierPoint } from '../../../src/simulate/frontier.ts';
import { bars, forecastBoundRatio, holdEvery, scaleToMean } from '../../../bench/value-score.ts';

describe('value evaluation scoring (bench/value-score.ts)', () => {
  describe('forecastBoundRatio', () => {
    it('the largest forecast over the largest value of the lookback before each step', () => {
      const history = { timestamps: [0, 100, 200, 300, 400], values: [10, 2, 3, 1, 4] };
      const steps = [
        { t: 150, forecastWindowMaxCores: 20 }, // history max over (−50, 150]: 10 → 2
        { t: 350, forecastWindowMaxCores: 9 }, // over (150, 350]: 3 → 3
        { t: 400, forecastWindowMaxCores: null },
        { t: 450, forecastWindowMaxCores: 8 }, // over (250, 450]: 4 → 2
      ];
      expect(forecastBoundRatio(steps, history, 200)).to.deep.equal({ ratio: 3, t: 350 });
      expect(forecastBoundRatio([{ t: 5, forecastWindowMaxCores: null }], history, 200)).to.equal(null);
    });
  });

  it('bars: the cost over the own-target plain HPA, the shortage beyond the frontier, the saving and the reduction', () => {
    const f: FrontierPoint[] = [
      { target: 50, replicaHours: 100, shortMinutes: 1000 },
      { target: 45, replicaHours: 110, shortMinutes: 100 },
      { target: 40, replicaHours: 120, shortMinutes: 20 },
    ];
    // At 105 replica-hours the frontier is short 550 min; 50 short min cost it 110 + 10 × 50/80 = 116.25.
    const good = bars({ replicaHours: 105, shortMinutes: 50 }, f, 50);
    expect(good.costRatio).to.be.closeTo(1.05, 1e-12);
    expect(good.worseBy).to.be.closeTo(-500, 1e-9);
    expect(good.saving).to.be.closeTo(1 - 105 / 116.25, 1e-12);
    expect(good.shortReduction).to.be.closeTo(11, 1e-12);
    // Worse off: at 115 the frontier is short 60, this EHPA 200.
    expect(bars({ replicaHours: 115, shortMinutes: 200 }, f, 50).worseBy).to.be.closeTo(140, 1e-9);
    // Dearer than every plain HPA; cheaper than all (compared with the own-target HPA); never short.
    expect(bars({ replicaHours: 130, shortMinutes: 0 }, f, 50)).to.include({ worseBy: 'off', shortReduction: null });
    expect(bars({ replicaHours: 90, shortMinutes: 1200 }, f, 50).worseBy).to.equal(200);
    expect(bars({ replicaHours: 115, shortMinutes: 0 }, f, 50).shortReduction).to.equal(Infinity);
    expect(() => bars({ replicaHours: 1, shortMinutes: 1 }, f, 60)).to.throw(RangeError);
  });

  it('scaleToMean scales to the mean, refuses an all-zero series', () => {
    expect(scaleToMean([1, 3], 8)).to.deep.equal({ values: [4, 12], factor: 4 });
    expect(scaleToMean([0, 0], 8)).to.equal(null);
  });

  it('holdEvery holds each sample until the next, at most maxHold after it', () => {
    expect(holdEvery({ timestamps: [0, 900, 5000], values: [1, 2, 3] }, 300, 900)).to.deep.equal({
      timestamps: [0, 300, 600, 900, 1200, 1500, 1800, 5000],
      values: [1, 1, 1, 2, 2, 2, 2, 3],
    });
  });
});
