// What `auto` serves stays within a bound derived from the series' own history: never above
// HISTORY_BOUND_FACTOR × the peak of the history it was fitted on, never below 0 (src/prediction/dsp/forecast.ts).
// Before the bound, `forecast` on 7-day histories of the bursty NAB EC2 trace gave window maxima 46–80× the
// history's largest value, and `simulate` held the EHPA at maxReplicas for days.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { forecast } from '../../../../src/prediction/index.ts';
import { boundedByHistory, HISTORY_BOUND_FACTOR } from '../../../../src/prediction/dsp/forecast.ts';
import { parseSeriesCsv } from '../../../../src/prediction/series-csv.ts';

const trace = (path: string) => parseSeriesCsv(readFileSync(new URL(`../../../fixtures/traces/${path}`, import.meta.url), 'utf8'));

describe('auto forecasts are bounded by their history', function () {
  this.timeout(120_000);

  it('holds values in [0, factor × peak] and says how many it moved', () => {
    const f = { periodSeconds: null, estimator: 'x', backtest: {}, samples: [5, 20, -1, 14].map((value, i) => ({ timestamp: i, value })) };
    const b = boundedByHistory(f, Float64Array.from([1, 10, 3]));
    expect(b.samples.map((s) => s.value)).to.deep.equal([5, 10 * HISTORY_BOUND_FACTOR, 0, 14]);
    expect(b.reason).to.equal(`2 of 4 forecast values held within [0, ${HISTORY_BOUND_FACTOR} × the history's peak 10]`);
    // Nothing to move: the same object back, no remark.
    const inside = { ...f, samples: [{ timestamp: 0, value: 3 }] };
    expect(boundedByHistory(inside, Float64Array.from([1, 10]))).to.equal(inside);
  });

  // The bursty NAB EC2 traces (near-zero stretches, isolated spikes, level shifts) and a Crane trace with a
  // step change: 7 days of history at each of several cut points, as the EHPA's TSP would be fitted.
  const cases = [
    { file: 'nab/ec2_cpu_utilization_24ae8d.csv', interval: 300 },
    { file: 'nab/ec2_cpu_utilization_53ea38.csv', interval: 300 },
    { file: 'crane/input6.csv', interval: 60 },
  ];
  for (const { file, interval } of cases) {
    it(`${file}: every served value within [0, ${HISTORY_BOUND_FACTOR} × the 7-day history's peak] at each cut`, () => {
      const s = trace(file);
      const first = s.timestamps[0] as number;
      const last = s.timestamps[s.timestamps.length - 1] as number;
      for (let now = first + 7 * 86_400; now < last - 3600; now += 1.5 * 86_400) {
        const f = forecast(s, { algorithm: 'dsp', sampleIntervalSeconds: interval, historySeconds: 7 * 86_400, horizonSeconds: 7200, coverageWindowSeconds: 3600 }, { now, seed: 1 });
        let peak = 0;
        s.timestamps.forEach((t, i) => {
          if (t <= now && t > now - 7 * 86_400 - 3600) peak = Math.max(peak, s.values[i] as number);
        });
        const values = f.samples.map((x) => x.value);
        expect(values.length, `${file} at ${now}: ${f.reason}`).to.be.above(0);
        expect(Math.max(...values), `${file} at ${now}: ${f.estimator}`).to.be.at.most(HISTORY_BOUND_FACTOR * peak);
        expect(Math.min(...values)).to.be.at.least(0);
        if (f.calibration) expect(f.calibration.multiplier).to.be.at.most(4);
      }
    });
  }
});
