// src/simulate/frontier.ts: the iso-cost comparison's pure scoring, on points worked out by hand.
import { expect } from 'chai';
import { fixedRuleScore, frontierCostAt, frontierShortAt, verdict, type FrontierPoint } from '../../../src/simulate/frontier.ts';

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

describe('iso-cost frontier scoring (src/simulate/frontier.ts)', () => {
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

});
