import { expect } from 'chai';
import { autoCorrelation } from '../../../../src/prediction/dsp/autocorrelation.ts';
import { detectPeriod, findPeriod, isPeak } from '../../../../src/prediction/dsp/period.ts';
import { SeededRandom } from '../../../../src/prediction/dsp/seeded-random.ts';
import { DAY_SECONDS } from '../../../../src/prediction/dsp/signal.ts';

describe('prediction/dsp period detection', () => {
  it('autocorrelation of a square-ish 5 Hz wave at 1 kHz: acf[100] = -1, acf[200] = 1 (crane auto_correlation_test)', () => {
    const x = Float64Array.from({ length: 1000 }, (_, i) => {
      const t = i / 1000;
      let v = 0;
      for (let k = 1; k <= 9; k += 2) v += Math.sin(2 * Math.PI * 5 * k * t) / k;
      return v;
    });
    const acf = autoCorrelation(x);
    expect(acf[0]).to.be.closeTo(1, 1e-12);
    expect(acf[100]).to.be.closeTo(-1, 1e-12);
    expect(acf[200]).to.be.closeTo(1, 1e-12);
  });
  it('autocorrelation of a constant series is NaN (std 0), as in Crane', () => {
    expect(Number.isNaN(autoCorrelation(new Float64Array(10).fill(3))[1])).to.equal(true);
  });
  it('isPeak needs a rising left and a falling right least-squares slope', () => {
    const tri = [0, 1, 2, 3, 4, 3, 2, 1, 0];
    expect(isPeak(tri, 4, 3)).to.equal(true);
    expect(isPeak(tri, 2, 2)).to.equal(false);
    expect(isPeak(tri, 0, 2)).to.equal(false);
    expect(isPeak(tri, 9, 2)).to.equal(false);
  });
  it('the seeded shuffle is a deterministic permutation', () => {
    const a = Float64Array.from({ length: 50 }, (_, i) => i);
    const b = Float64Array.from(a);
    new SeededRandom(7).shuffle(a);
    new SeededRandom(7).shuffle(b);
    expect(Array.from(a)).to.deep.equal(Array.from(b));
    expect(Array.from(a).sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
    expect(Array.from(a)).to.not.deep.equal(Array.from({ length: 50 }, (_, i) => i));
  });
  it('finds a daily period in 3 days of noisy daily load, the same for every seed', () => {
    const rng = new SeededRandom(11);
    const samples = Float64Array.from({ length: 3 * 1440 }, (_, i) => 100 + 40 * Math.sin((2 * Math.PI * i) / 1440) + 20 * (rng.nextUint32() / 2 ** 32));
    for (const seed of [1, 2, 3]) expect(findPeriod({ sampleRate: 1 / 60, samples }, seed)).to.equal(DAY_SECONDS);
    expect(detectPeriod({ sampleRate: 1 / 60, samples }, 1).candidates[0]).to.equal(1440);
  });
  it('finds no period in white-ish noise, and none with fewer than 2 days', () => {
    const rng = new SeededRandom(3);
    const noise = Float64Array.from({ length: 3 * 1440 }, () => rng.nextUint32() / 2 ** 32);
    expect(findPeriod({ sampleRate: 1 / 60, samples: noise }, 1)).to.equal(null);
    expect(findPeriod({ sampleRate: 1 / 60, samples: new Float64Array(1500).map((_, i) => i % 1440) }, 1)).to.equal(null);
  });
});
