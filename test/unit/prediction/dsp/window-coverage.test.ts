// Window-maximum scores on tiny series whose answers are worked out by hand.
import { expect } from 'chai';
import {
  conformalMultiplier,
  coverage,
  kthSmallest,
  coverRatio,
  multiplierForCoverage,
  realizedCoverage,
  scoreWindows,
  slack,
} from '../../../../src/prediction/dsp/window-coverage.ts';

const pairs = [
  { forecastMax: 10, actualMax: 8 }, // covered, 2 spare
  { forecastMax: 10, actualMax: 10 }, // covered exactly
  { forecastMax: 10, actualMax: 12 }, // missed by 20 %
  { forecastMax: 5, actualMax: 10 }, // missed by 100 %
];

describe('window-maximum scores', () => {
  it('coverage counts windows whose forecast max (times k) reaches the actual max', () => {
    expect(coverage(pairs)).to.equal(0.5);
    expect(coverage(pairs, 1.2)).to.equal(0.75);
    expect(coverage(pairs, 2)).to.equal(1);
    expect(Number.isNaN(coverage([]))).to.equal(true);
  });
  it('slack is the spare capacity over the summed actual maxima', () => {
    // (2 + 0 + 0 + 0) / 40
    expect(slack(pairs)).to.equal(2 / 40);
    // k = 2: 12 + 10 + 8 + 0 = 30 over 40
    expect(slack(pairs, 2)).to.equal(30 / 40);
    expect(slack(pairs, Infinity)).to.equal(Infinity);
  });
  it('the multiplier for a coverage is the right order statistic of actual / forecast', () => {
    // ratios 0.8, 1, 1.2, 2
    expect(multiplierForCoverage(pairs, 0.5)).to.equal(1);
    expect(multiplierForCoverage(pairs, 0.75)).to.equal(1.2);
    expect(multiplierForCoverage(pairs, 0.9)).to.equal(2);
    const s = scoreWindows(pairs, 0.75);
    expect(s).to.deep.include({ windows: 4, coverage: 0.5, multiplierAtLevel: 1.2 });
    // k = 1.2: 4 + 2 + 0 + 0 = 6 over 40
    expect(s.slackAtLevel).to.be.closeTo(6 / 40, 1e-12);
  });
  it('ratios: no load is covered by anything, a peak over a zero forecast by nothing', () => {
    expect(coverRatio({ forecastMax: 0, actualMax: 0 })).to.equal(0);
    expect(coverRatio({ forecastMax: 0, actualMax: 1 })).to.equal(Infinity);
    expect(coverRatio({ forecastMax: 4, actualMax: 2 })).to.equal(0.5);
  });
  it('conformal multiplier: the ceil((n+1)q)-th smallest ratio, the largest when the sample is too small', () => {
    const r = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10]; // n = 10
    // q = 0.8: ceil(11 * 0.8) = 9 -> 9
    expect(conformalMultiplier(r, 0.8)).to.deep.equal({ multiplier: 9, exact: true });
    // q = 0.9: ceil(9.9) = 10 -> 10
    expect(conformalMultiplier(r, 0.9)).to.deep.equal({ multiplier: 10, exact: true });
    // q = 0.95: ceil(10.45) = 11 > n
    expect(conformalMultiplier(r, 0.95)).to.deep.equal({ multiplier: 10, exact: false });
    expect(Number.isNaN(conformalMultiplier([], 0.9).multiplier)).to.equal(true);
  });
  it('realized coverage judges each elapsed window against the forecast in force at its start', () => {
    // Actual: 1 per minute, value = minute index; a spike of 100 at t = 600.
    const timestamps = Array.from({ length: 20 }, (_, i) => i * 60);
    const values = timestamps.map((t) => (t === 600 ? 100 : t / 60));
    // Forecast A (made at 0) says 50 everywhere; forecast B (made at 540) says 20 everywhere.
    const flat = (madeAt: number, v: number) => ({ madeAt, timestamps: timestamps.map((t) => t), values: timestamps.map(() => v) });
    const r = realizedCoverage([flat(540, 20), flat(0, 50)], { timestamps, values }, { now: 1140, windowSeconds: 120, strideSeconds: 60, lookbackSeconds: 1140 });
    // Windows start at 0, 60, ..., 1020 (18 windows). Starts 0..480 use A (50): actual max (t, t+120] ≤ 10 or
    // the spike at 600 (start 480 covers (480, 600]) -> start 480 missed. Starts 540..1020 use B (20): starts 540
    // (spike at 600) missed; 600..1020: max ≤ 19 covered.
    expect(r).to.deep.equal({ windows: 18, covered: 16, coverage: 16 / 18 });
  });
  it('realized coverage skips windows without a forecast in force', () => {
    const r = realizedCoverage([{ madeAt: 1000, timestamps: [1000], values: [1] }], { timestamps: [0, 60], values: [1, 1] }, { now: 120, windowSeconds: 60, strideSeconds: 60, lookbackSeconds: 120 });
    expect(r.windows).to.equal(0);
    expect(Number.isNaN(r.coverage)).to.equal(true);
  });

  it('edges: an infinite multiplier over a zero forecast, no load at all, a negative forecast, an empty sample', () => {
    expect(slack([{ forecastMax: 0, actualMax: 1 }], Infinity)).to.equal(Infinity);
    // No load anywhere: any spare capacity is infinitely much of nothing; none is none.
    expect(slack([{ forecastMax: 1, actualMax: 0 }])).to.equal(Infinity);
    expect(slack([{ forecastMax: 0, actualMax: 0 }])).to.equal(0);
    expect(coverRatio({ forecastMax: -1, actualMax: 2 })).to.equal(Infinity);
    expect(conformalMultiplier([], 0.9).exact).to.equal(false);
  });

  it('the multiplier for a coverage sorts the ratios first', () => {
    // Ratios 2, 0.8, 1.2, 1 in this order: the 3rd smallest is 1.2, not the 3rd listed.
    const shuffled = [pairs[3], pairs[0], pairs[2], pairs[1]] as typeof pairs;
    expect(multiplierForCoverage(shuffled, 0.75)).to.equal(1.2);
    expect(multiplierForCoverage(shuffled, 0.5)).to.equal(1);
  });

  it("realized coverage: the forecast's window is closed at its start, the actual one open; a forecast is in force only from when it was made", () => {
    const actual = { timestamps: [0, 60, 120], values: [9, 5, 5] };
    const o = { now: 120, windowSeconds: 120, strideSeconds: 120, lookbackSeconds: 120 };
    // One window, t = 0: forecast samples in [0, 120], actual in (0, 120] (the 9 at t = 0 is before it).
    expect(realizedCoverage([{ madeAt: 0, timestamps: [0, 60], values: [5, 1] }], actual, o)).to.deep.equal({ windows: 1, covered: 1, coverage: 1 });
    expect(realizedCoverage([{ madeAt: 0, timestamps: [0, 60], values: [4.9, 1] }], actual, o).covered).to.equal(0);
    // A forecast sample before t is not in the window.
    expect(realizedCoverage([{ madeAt: -60, timestamps: [-60, 0, 60], values: [50, 1, 1] }], actual, o).covered).to.equal(0);
    // A forecast made after t is not in force at t, even if it is the only one, nor when an older one is.
    expect(realizedCoverage([{ madeAt: 60, timestamps: [0, 60], values: [50, 50] }], actual, o).windows).to.equal(0);
    const r = realizedCoverage(
      [
        { madeAt: 0, timestamps: [0, 60], values: [1, 1] },
        { madeAt: 60, timestamps: [0, 60], values: [50, 50] },
      ],
      actual,
      o,
    );
    expect(r).to.deep.equal({ windows: 1, covered: 0, coverage: 0 });
  });

  it('realized coverage refuses a window or stride that is not positive', () => {
    const a = { timestamps: [0], values: [1] };
    for (const bad of [{ windowSeconds: 0, strideSeconds: 60 }, { windowSeconds: 60, strideSeconds: 0 }, { windowSeconds: Number.NaN, strideSeconds: 60 }]) {
      expect(() => realizedCoverage([], a, { now: 120, ...bad }), JSON.stringify(bad)).to.throw(RangeError, 'window and stride must be positive');
    }
  });

  it('kthSmallest is the k-th value of a sorted copy, for every k, on random arrays with ties, infinities and NaN', () => {
    // Reference: Float64Array's own sort (numeric, NaN last). Deterministic LCG.
    let seed = 3;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + Math.floor(next() * 40);
      const values = Float64Array.from({ length: n }, () => {
        const u = next();
        return u < 0.05 ? Infinity : u < 0.08 ? NaN : u < 0.1 ? 0 : Math.floor(next() * 8) / 2;
      });
      const sorted = Float64Array.from(values).sort();
      for (let k = 1; k <= n; k++) expect(Object.is(kthSmallest(Float64Array.from(values), k), sorted[k - 1]), `trial ${trial} k ${k}`).to.equal(true);
    }
  });
});
