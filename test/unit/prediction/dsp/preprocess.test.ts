import { expect } from 'chai';
import {
  fillMissingData,
  InvalidSeriesError,
  preprocess,
  removeExtremeOutliers,
  stats066Percentile,
} from '../../../../src/prediction/dsp/preprocess.ts';

describe('prediction/dsp preprocess', () => {
  // gocrane/crane pkg/prediction/dsp/prediction_test.go TestPreProcessTimeSeries (docs/crane-behaviour.md §D.6): points at
  // -2h, -2h+1m, -10m, -7m, 0 with values 0.1, 0.8, 1.0, 1.3, 2.0.
  const t0 = 1_700_000_000;
  const ts = { timestamps: [t0 - 7200, t0 - 7140, t0 - 600, t0 - 420, t0], values: [0.1, 0.8, 1.0, 1.3, 2.0] };
  it('drops data before a gap > 1h and fills linearly (Crane test, unit 1m: 11 samples 0.1 apart)', () => {
    const r = fillMissingData(ts, 60, 60);
    expect(r.values.length).to.equal(11);
    expect(r.start).to.equal(t0 - 600);
    r.values.forEach((v, i) => expect(v).to.be.closeTo(1.0 + 0.1 * i, 1e-12));
  });
  it('keeps the last whole units (Crane test, unit 10m: 10 samples)', () => {
    const r = fillMissingData(ts, 60, 600);
    expect(r.values.length).to.equal(10);
    expect(r.start).to.equal(t0 - 540);
    expect(r.values[r.values.length - 1]).to.equal(2.0);
  });
  it('keeps only whole hours by default and leaves nothing from less than an hour', () => {
    expect(fillMissingData(ts, 60).values.length).to.equal(0);
    const hour = { timestamps: Array.from({ length: 130 }, (_, i) => t0 + 60 * i), values: Array.from({ length: 130 }, (_, i) => i) };
    const r = fillMissingData(hour, 60);
    expect(r.values.length).to.equal(120);
    expect(r.values[0]).to.equal(10);
  });
  it('rejects timestamps off the interval grid, out of order and empty series', () => {
    expect(() => fillMissingData({ timestamps: [0, 90], values: [1, 2] }, 60)).to.throw(InvalidSeriesError, /not a positive multiple/);
    expect(() => fillMissingData({ timestamps: [60, 0], values: [1, 2] }, 60)).to.throw(InvalidSeriesError);
    expect(() => fillMissingData({ timestamps: [], values: [] }, 60)).to.throw(InvalidSeriesError, /empty/);
  });
  it('montanaflynn/stats v0.6.6 percentile: integral index takes c[idx-1], else the mean of two neighbours', () => {
    const data = Array.from({ length: 2000 }, (_, i) => 2000 - i); // 1..2000 reversed
    // 0.999 * 2000 is 1998.0000000000002 in float64, not integral: the mean of c[1997] and c[1998].
    expect(stats066Percentile(data, 99.9)).to.equal(1998.5);
    expect(stats066Percentile(data, 50)).to.equal(1000); // idx 1000 exactly
    expect(stats066Percentile(data, 0.1)).to.equal(2); // idx 2
    const small = [5, 1, 3];
    expect(stats066Percentile(small, 50)).to.equal(2); // idx 1.5: mean of c[0]=1 and c[1]=3
    expect(Number.isNaN(stats066Percentile(small, 0.1))).to.equal(true); // idx 0.003 < 1: an error in Go
    expect(stats066Percentile([7], 0.1)).to.equal(7);
  });
  it('replaces outliers by the previous value, cascading, never sample 0', () => {
    const v = new Float64Array(2000).map((_, i) => 10 + (i % 10));
    v[0] = 1000; // above P99.9 but sample 0 is kept
    v[1000] = 1e6;
    v[1001] = 1e6;
    v[1500] = -50;
    removeExtremeOutliers(v);
    expect(v[0]).to.equal(1000);
    expect(v[1000]).to.equal(v[999]);
    expect(v[1001]).to.equal(v[999]);
    expect(v[1500]).to.equal(v[1499]);
  });
  it('removes nothing from fewer than 1000 samples (P0.1 is an error in stats v0.6.6)', () => {
    const v = Float64Array.from([1, 1, 500, 1]);
    removeExtremeOutliers(v);
    expect(Array.from(v)).to.deep.equal([1, 1, 500, 1]);
  });
  it('preprocess fills, then clamps', () => {
    const n = 3 * 60;
    const timestamps = Array.from({ length: n }, (_, i) => t0 + 60 * i).filter((_, i) => i !== 50);
    const values = timestamps.map((t) => (t - t0) / 60);
    const r = preprocess({ timestamps, values }, 60);
    expect(r.values.length).to.equal(180);
    expect(r.values[50]).to.equal(50);
  });
});
