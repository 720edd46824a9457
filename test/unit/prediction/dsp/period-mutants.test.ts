// Behaviour of Crane's period detection that period.test.ts leaves open: the isPeak edges, the permutation
// threshold's definition, the candidate list, the bounded ACF peak search and findPeriodIn's window choice.
// Expected values are hand-derived (see comments) or come from the naive references below, never from the
// functions under test.
import { expect } from 'chai';
import { detectPeriod, findPeriodIn, isPeak } from '../../../../src/prediction/dsp/period.ts';
import { SeededRandom } from '../../../../src/prediction/dsp/seeded-random.ts';
import { DAY_SECONDS, WEEK_SECONDS } from '../../../../src/prediction/dsp/signal.ts';

/** Naive O(n^2) |X[k]| for 1 <= k < floor(n/2) (the lines the threshold looks at: no DC, no Nyquist). */
function naiveMagnitudes(x: ArrayLike<number>): number[] {
  const n = x.length;
  const out: number[] = [];
  for (let k = 1; k < Math.floor(n / 2); k++) {
    let re = 0, im = 0;
    for (let j = 0; j < n; j++) {
      const a = (-2 * Math.PI * k * j) / n;
      re += (x[j] as number) * Math.cos(a);
      im += (x[j] as number) * Math.sin(a);
    }
    out.push(Math.hypot(re, im));
  }
  return out;
}

/**
 * The documented threshold: shuffle the series 100 times in a row with SeededRandom(seed) (the shuffles
 * accumulate), take each shuffle's strongest non-DC line, and return the value that 99 of the 100 maxima
 * do not exceed, i.e. the second largest maximum.
 */
function referenceThreshold(samples: ArrayLike<number>, seed: number): number {
  const x = Float64Array.from(samples);
  const rng = new SeededRandom(seed);
  const maxima: number[] = [];
  for (let p = 0; p < 100; p++) {
    rng.shuffle(x);
    maxima.push(Math.max(0, ...naiveMagnitudes(x)));
  }
  maxima.sort((a, b) => b - a);
  return maxima[1] as number;
}

/** Least-squares slope of acf over the lags [from, to] (naive, for the reasoning in the ACF tests). */
function lsSlope(y: (j: number) => number, from: number, to: number): number {
  const m = to - from + 1;
  const mx = (from + to) / 2;
  let my = 0;
  for (let j = from; j <= to; j++) my += y(j) / m;
  let num = 0, den = 0;
  for (let j = from; j <= to; j++) {
    num += (j - mx) * (y(j) - my);
    den += (j - mx) ** 2;
  }
  return num / den;
}

describe('prediction/dsp period detection: edge behaviour', () => {
  describe('isPeak', () => {
    it('accepts a peak at index 1, the first index with a left neighbour', () => {
      // Left window [0,1]: slope 1 - 0 = 1 > 0; right window [1,2]: slope 0 - 1 = -1 < 0.
      expect(isPeak([0, 1, 0], 1, 1)).to.equal(true);
    });
    it('rejects a point on a falling or a valley-shaped stretch: the left slope must rise', () => {
      // [2,1,0] at 1: left slope -1 (right slope -1 would pass on its own).
      expect(isPeak([2, 1, 0], 1, 1)).to.equal(false);
      // [2,1,2] at 1: a valley, left slope -1.
      expect(isPeak([2, 1, 2], 1, 1)).to.equal(false);
    });
    it('a flat left side is not a rise and a flat right side is not a fall', () => {
      // [1,1,0] at 1: left slope 0 (not > 0), right slope -1.
      expect(isPeak([1, 1, 0], 1, 1)).to.equal(false);
      // [0,1,1] at 1: left slope 1, right slope 0 (not < 0).
      expect(isPeak([0, 1, 1], 1, 1)).to.equal(false);
    });
    it('clips the right window at the end of the series instead of running past it', () => {
      // n = 5, i = 3, k = 3: left window [0,3] = 0,1,2,3 (slope 1); right window [3, min(4, 6)] = 3,2 (slope -1).
      expect(isPeak([0, 1, 2, 3, 2], 3, 3)).to.equal(true);
    });
  });

  describe('permutation threshold', () => {
    it('is the second largest of the 100 accumulated shuffles\' strongest non-DC lines (naive DFT reference)', () => {
      // A sawtooth-ish series with noise: its shuffles give varied maxima, and its highest line is not the last one.
      const rng = new SeededRandom(21);
      const samples = Float64Array.from({ length: 40 }, (_, i) => (i % 10) + 3 * (rng.nextUint32() / 2 ** 32));
      for (const seed of [1, 5]) {
        const d = detectPeriod({ sampleRate: 1, samples }, seed);
        expect(d.threshold).to.be.closeTo(referenceThreshold(samples, seed), 1e-9);
      }
    });
    it('is also right for an odd-length series (naive DFT reference)', () => {
      const rng = new SeededRandom(4);
      const samples = Float64Array.from({ length: 33 }, (_, i) => Math.sin(i) * 5 + (rng.nextUint32() / 2 ** 32));
      expect(detectPeriod({ sampleRate: 1, samples }, 9).threshold).to.be.closeTo(referenceThreshold(samples, 9), 1e-9);
    });
  });

  describe('candidates', () => {
    it('a flat series has no spectral line above the threshold, no candidate and no period (-1)', () => {
      // All zeros: every |X[k]| is exactly 0, so is every shuffle's maximum and the threshold; 0 > 0 fails.
      const d = detectPeriod({ sampleRate: 1 / 60, samples: new Float64Array(64) }, 1);
      expect(d.threshold).to.equal(0);
      expect(d.candidates).to.deep.equal([]);
      expect(d.periodSeconds).to.equal(-1);
    });
    it('lists distinct lags, longest first, one per group of lines with the same whole-sample lag', () => {
      // n = 128, unit cosines at k = 4, 26, 27: lines of magnitude n/2 = 64; every other line is 0.
      // The shuffles spread the energy sum x^2 = 192 over 63 lines (|X|^2 about 192 each, max far below 64^2).
      // Lags floor(128/4) = 32, floor(128/26) = 4, floor(128/27) = 4: candidates [32, 4].
      const n = 128;
      const samples = Float64Array.from({ length: n }, (_, i) => [4, 26, 27].reduce((s, k) => s + Math.cos((2 * Math.PI * k * i) / n), 0));
      const d = detectPeriod({ sampleRate: 1, samples }, 3);
      expect(d.threshold).to.be.below(64 * 0.9);
      expect(d.candidates).to.deep.equal([32, 4]);
    });
  });

  describe('ACF peak search', () => {
    // n = 100, x = cos(2 pi 3 i / 100): one spectral line (k = 3, magnitude 50), candidate lag floor(100/3) = 33,
    // just short of the true period 33.33. The circular ACF is cos(0.06 pi l).
    const n = 100;
    const samples = Float64Array.from({ length: n }, (_, i) => Math.cos((2 * Math.PI * 3 * i) / n));
    const acf = (l: number) => Math.cos(0.06 * Math.PI * l);

    it('searches half the lag either side when 4 hours is wider: finds the 33-sample period at 1 Hz', () => {
      // 4h at 1 Hz is 14400 samples, so the radius is floor(33/2) = 16: left [17,33] rises, right [33,49] falls.
      expect(lsSlope(acf, 17, 33)).to.be.above(0);
      expect(lsSlope(acf, 33, 49)).to.be.below(0);
      // A radius of a whole lag or more would take in lag 0 (acf 1 > acf(33)), and [0,33] slopes down.
      expect(lsSlope(acf, 0, 33)).to.be.below(0);
      const d = detectPeriod({ sampleRate: 1, samples }, 1);
      expect(d.candidates).to.deep.equal([33]);
      expect(d.periodSeconds).to.equal(33);
    });
    it('never searches further than 4 hours either side: at 8-hour sampling that is no sample, so no period', () => {
      // maxR = trunc(4h * 1/8h) = 0: both windows are the single point [33,33], whose slope is undefined, so the
      // lag is not a peak; a lag that is not an ACF peak is never chosen, however high its ACF (here 0.998).
      expect(acf(33)).to.be.above(0.99);
      const d = detectPeriod({ sampleRate: 1 / 28800, samples }, 1);
      expect(d.candidates).to.deep.equal([33]);
      expect(d.periodSeconds).to.equal(-1);
    });
  });

  describe('findPeriodIn', () => {
    const HOURLY = 1 / 3600;
    it('with fewer than two whole weeks decides on the whole days (10 days hourly: all 240 samples)', () => {
      // 240 samples hold one whole week (168), not two, and ten whole days.
      const samples = Float64Array.from({ length: 240 }, (_, i) => 100 + 40 * Math.sin((2 * Math.PI * i) / 24));
      const f = findPeriodIn({ sampleRate: HOURLY, samples }, 1);
      expect(f.window?.samples.length).to.equal(240);
      expect(f.periodSeconds).to.equal(DAY_SECONDS);
    });
    it('reports a weekly period (168h) found on three whole weeks', () => {
      // 504 hourly samples of a 168-sample sinusoid: one line at k = 3, lag 168, ACF peak 1 there; 168 h = 604800 s.
      const samples = Float64Array.from({ length: 3 * 168 }, (_, i) => 100 + 40 * Math.sin((2 * Math.PI * i) / 168));
      const f = findPeriodIn({ sampleRate: HOURLY, samples }, 1);
      expect(f.periodSeconds).to.equal(WEEK_SECONDS);
      expect(f.window?.samples.length).to.equal(504);
    });
  });
});
