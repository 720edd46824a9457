// refitAgeMs (src/prediction/controller/refit-spread.ts): each cached forecast's age limit lies in
// (1 − spread, 1] × --model-update-interval, the same for the same key, and a thousand TSPs fitted together
// come back spread over the whole band instead of at one instant, so the refits after a restart do not all land on the same pass.
import { expect } from 'chai';
import { DEFAULT_REFIT_SPREAD, refitAgeMs } from '../../../../src/prediction/controller/refit-spread.ts';

const HOUR = 3_600_000;

describe('refitAgeMs: refits spread over a fifth of the model update interval', () => {
  it('is the same for the same key, pass after pass (a steady rhythm per TSP)', () => {
    expect(refitAgeMs('shop/ehpa-web\u0000crane_pod_cpu_usage', 12 * HOUR)).to.equal(refitAgeMs('shop/ehpa-web\u0000crane_pod_cpu_usage', 12 * HOUR));
    expect(refitAgeMs('shop/ehpa-web\u0000crane_pod_cpu_usage', 12 * HOUR)).to.not.equal(refitAgeMs('shop/ehpa-api\u0000crane_pod_cpu_usage', 12 * HOUR));
  });

  it('10,000 TSP keys land in (0.8, 1] × 12 h, about a tenth in each tenth of the band', () => {
    const lo = 12 * HOUR * (1 - DEFAULT_REFIT_SPREAD);
    const deciles = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const age = refitAgeMs(`ns-${i % 1000}/ehpa-app-${i}\u0000crane_pod_cpu_usage`, 12 * HOUR);
      expect(age).to.be.above(lo).and.at.most(12 * HOUR);
      deciles[Math.min(9, Math.floor(((age - lo) / (12 * HOUR - lo)) * 10))]! += 1;
    }
    // A uniform spread puts 1,000 in each; a hash that clusters (e.g. on the shared suffix) would not.
    for (const d of deciles) expect(d).to.be.within(850, 1150);
  });

  it('spread 0 is the interval itself (Crane: every forecast refits at --model-update-interval)', () => {
    expect(refitAgeMs('any/key', 12 * HOUR, 0)).to.equal(12 * HOUR);
  });
});
