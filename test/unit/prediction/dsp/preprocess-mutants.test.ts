import { expect } from 'chai';
import {
  fillMissingData,
  InvalidSeriesError,
  MAX_GAP_SECONDS,
  removeExtremeOutliers,
  stats066Percentile,
} from '../../../../src/prediction/dsp/preprocess.ts';

// Edge cases of Crane's preprocessing (docs/crane-behaviour.md §D.6) that the main preprocess tests leave open.
describe('prediction/dsp preprocess: boundaries of Crane behaviour', () => {
  describe('fillMissingData', () => {
    it('rejects timestamps and values of different lengths with an InvalidSeriesError that names itself', () => {
      let caught: unknown;
      try {
        fillMissingData({ timestamps: [0, 60], values: [1] }, 60, 60);
      } catch (e) {
        caught = e;
      }
      expect(caught).to.be.instanceOf(InvalidSeriesError);
      // The name is what logs and `String(err)` show for a dropped series.
      expect((caught as Error).name).to.equal('InvalidSeriesError');
      expect((caught as Error).message).to.match(/differ in length/);
      expect(String(caught)).to.match(/^InvalidSeriesError: /);
    });

    it('bridges a gap of exactly one hour by interpolation (only a gap longer than an hour discards)', () => {
      expect(MAX_GAP_SECONDS).to.equal(3600);
      // diff = 3600 = 60 intervals of 60 s: 59 points inserted, v[i-1] + (v[i] - v[i-1]) * j / 60 = j.
      const r = fillMissingData({ timestamps: [0, 3600], values: [0, 60] }, 60, 60);
      expect(r.start).to.equal(0);
      expect(Array.from(r.values)).to.deep.equal(Array.from({ length: 61 }, (_, j) => j));
    });

    it('a gap one interval longer than an hour discards everything before it', () => {
      const r = fillMissingData({ timestamps: [0, 3660, 3720], values: [5, 6, 7] }, 60, 60);
      expect(r.start).to.equal(3660);
      expect(Array.from(r.values)).to.deep.equal([6, 7]);
    });

    it('rejects a repeated timestamp (diff = 0 is not a positive multiple of the interval)', () => {
      expect(() => fillMissingData({ timestamps: [0, 60, 60], values: [1, 2, 3] }, 60, 60)).to.throw(
        InvalidSeriesError,
        /invalid time series/,
      );
    });

    it('the error names the two offending consecutive samples', () => {
      // Samples 60 and 150 are 90 s apart, not a multiple of 60; the sample after them (180) is not involved.
      expect(() => fillMissingData({ timestamps: [0, 60, 150, 180], values: [1, 2, 3, 4] }, 60, 60)).to.throw(
        InvalidSeriesError,
        'samples at 60 and 150 are not a positive multiple of 60s apart',
      );
    });

    it('keeps nothing when the interval is longer than the unit (floor(unit / interval) = 0 samples per unit)', () => {
      // A 2-hour grid cannot hold a whole 1-hour unit: no whole unit, so no data (Crane would divide by zero).
      const r = fillMissingData({ timestamps: [0, 7200], values: [1, 2] }, 7200, 3600);
      expect(r.values.length).to.equal(0);
    });
  });

  describe('stats066Percentile (montanaflynn/stats v0.6.6)', () => {
    it('an empty input is an error (NaN)', () => {
      expect(Number.isNaN(stats066Percentile([], 50))).to.equal(true);
    });

    it('a percent of 0 or below is an error (NaN), even where idx = 0 would be integral', () => {
      // idx = 0/100 * 3 = 0 is integral; v0.6.6 rejects percent <= 0 before that.
      expect(Number.isNaN(stats066Percentile([3, 1, 2], 0))).to.equal(true);
      expect(Number.isNaN(stats066Percentile([3, 1, 2], -10))).to.equal(true);
    });

    it('a percent above 100 is an error (NaN), even where idx would be integral', () => {
      // idx = 150/100 * 2 = 3 is integral, past the end of the two sorted values.
      expect(Number.isNaN(stats066Percentile([3, 1], 150))).to.equal(true);
      expect(Number.isNaN(stats066Percentile([4, 3, 2, 1], 125))).to.equal(true); // idx 5
    });

    it('percent 100 is allowed and gives the maximum (idx = n, sorted[n - 1])', () => {
      expect(stats066Percentile([3, 9, 1], 100)).to.equal(9);
    });
  });

  describe('removeExtremeOutliers', () => {
    it('values equal to P0.1 or P99.9 are not outliers: only values strictly outside are replaced', () => {
      // 1000 samples cycling 1..10 (100 of each). Sorted c: c[0..99] = 1, ..., c[900..999] = 10.
      // P0.1: idx = 0.001 * 1000 = 1 (integral) -> c[0] = 1.
      // P99.9: idx = 0.999 * 1000 = 999.0000000000001 in float64 -> mean(c[998], c[999]) = 10.
      // So low = 1 = the minimum and high = 10 = the maximum: nothing is strictly outside, nothing changes.
      const v = Float64Array.from({ length: 1000 }, (_, i) => (i % 10) + 1);
      const before = Array.from(v);
      removeExtremeOutliers(v);
      expect(Array.from(v)).to.deep.equal(before);
    });
  });
});
