// bench/value-score.ts: the value evaluation's pure scoring, on points worked out by hand.
import { expect } from 'chai';
import { bars, fixedRuleScore, forecastBoundRatio, frontierCostAt, frontierShortAt, holdEvery, scaleToMean, verdict, type FrontierPoint } from '../../../bench/value-score.ts';

// A typical frontier: lower targets cost more and are short less.
const frontier: FrontierPoint[] = [
  { target: 50, replicaHours: 100, shortMinutes: 400 },
  { target: 45, replicaHours: 110, shortMinutes: 300 },
  { target: 40, replicaHours: 125, shortMinutes: 150 },
  { target: 35, replicaHours: 140, shortMinutes: 100 },
  { target: 30, replicaHours: 160, shortMinutes: 60 },
  { target: 25, replicaHours: 190, shortMinutes: 30 },
  { target: 20, replicaHours: 240, shortMinutes: 10 },
];

describe('value evaluation scoring (bench/value-score.ts)', () => {
  describe('fixedRuleScore', () => {
    const step = (usageCores: number, replicas: number, readyReplicas: number) => ({ usageCores, ehpa: { replicas, readyReplicas }, plain: { replicas: 10, readyReplicas: 10 } });
    it('judges ready replicas × the one per-pod threshold and counts every pod in replica-hours', () => {
      // 0.5 core per pod: 3 cores need 6 ready pods.
      const steps = [step(3, 8, 6), step(3, 8, 5), step(3.2, 8, 6), step(1, 2, 2)];
      expect(fixedRuleScore(steps, 'ehpa', 0.5, 60)).to.deep.equal({ shortMinutes: 2, replicaHours: (26 * 60) / 3600 });
      expect(fixedRuleScore(steps, 'plain', 0.5, 60)).to.deep.equal({ shortMinutes: 0, replicaHours: (40 * 60) / 3600 });
      // The threshold is the caller's one rule; a looser one (0.6 core per pod) finds no short step here.
      expect(fixedRuleScore(steps, 'ehpa', 0.6, 60).shortMinutes).to.equal(0);
    });
  });

  describe('frontierShortAt', () => {
    it('interpolates between neighbouring targets', () => {
      expect(frontierShortAt(frontier, 105)).to.equal(350);
      expect(frontierShortAt(frontier, 130)).to.be.closeTo(150 - (5 / 15) * 50, 1e-9);
      expect(frontierShortAt(frontier, 240)).to.equal(10);
      expect(frontierShortAt(frontier, 100)).to.equal(400);
    });
    it('off the frontier past the 20 % HPA, below it under the 50 % HPA', () => {
      expect(frontierShortAt(frontier, 241)).to.equal('off');
      expect(frontierShortAt(frontier, 99)).to.equal('below');
    });
    it('on a frontier that folds back, the least shortage any bracketing segment gives', () => {
      const folded: FrontierPoint[] = [
        { target: 50, replicaHours: 100, shortMinutes: 100 },
        { target: 45, replicaHours: 120, shortMinutes: 50 },
        { target: 40, replicaHours: 110, shortMinutes: 40 },
      ];
      // 115: on 50→45 gives 62.5, on 45→40 gives 45.
      expect(frontierShortAt(folded, 115)).to.equal(45);
    });
  });

  describe('frontierCostAt', () => {
    it('interpolates replica-hours at a shortage', () => {
      expect(frontierCostAt(frontier, 350)).to.equal(105);
      expect(frontierCostAt(frontier, 80)).to.equal(150);
      expect(frontierCostAt(frontier, 5)).to.equal('unreachable');
      expect(frontierCostAt(frontier, 500)).to.equal('above');
    });
  });

  describe('verdict', () => {
    it('pays when short less than the frontier at its cost', () => {
      expect(verdict({ replicaHours: 130, shortMinutes: 100 }, frontier)).to.deep.include({ pays: true });
    });
    it('pays when cheaper than the frontier at its shortage (also under the 50 % HPA)', () => {
      expect(verdict({ replicaHours: 95, shortMinutes: 350 }, frontier)).to.deep.equal({ pays: true, why: 'fewer replica-hours at its shortage' });
    });
    it('does not pay on or above the frontier', () => {
      expect(verdict({ replicaHours: 130, shortMinutes: 140 }, frontier)).to.deep.equal({ pays: false, why: 'on or above the frontier' });
      expect(verdict({ replicaHours: 105, shortMinutes: 350 }, frontier).pays).to.equal(false); // exactly on it: a tie
    });
    it('does not pay off the frontier, however rarely short', () => {
      expect(verdict({ replicaHours: 250, shortMinutes: 0 }, frontier)).to.deep.equal({ pays: false, why: 'off frontier: dearer than every plain HPA' });
    });
    it('cheaper than every plain HPA but short more often than all: does not pay', () => {
      expect(verdict({ replicaHours: 90, shortMinutes: 450 }, frontier)).to.deep.equal({ pays: false, why: 'cheaper than every plain HPA but short more often' });
    });
    it('short less than any plain HPA at a cost within theirs: pays', () => {
      expect(verdict({ replicaHours: 200, shortMinutes: 2 }, frontier).pays).to.equal(true);
    });
  });

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
