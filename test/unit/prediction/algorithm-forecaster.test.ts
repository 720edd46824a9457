import { expect } from 'chai';
import { AlgorithmForecaster } from '../../../src/prediction/algorithm-forecaster.ts';
import { SeededRandom } from '../../../src/prediction/dsp/seeded-random.ts';
import type { HistorySeries } from '../../../src/prediction/history/types.ts';

const DAY = 86_400;
const T0 = 1_700_000_000 - (1_700_000_000 % DAY);

function daily(days: number, labels: Record<string, string>, seed: number): HistorySeries {
  const rng = new SeededRandom(seed);
  const timestamps: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < days * 1440; i++) {
    timestamps.push(T0 + 60 * i);
    values.push(100 + 50 * Math.sin((2 * Math.PI * i) / 1440) + 10 * (rng.nextUint32() / 2 ** 32));
  }
  return { labels, timestamps, values };
}

describe('prediction AlgorithmForecaster (the TSP controller seam)', function () {
  this.timeout(60_000);
  const f = new AlgorithmForecaster();
  const a = daily(3, { pod: 'a' }, 1);
  const nowS = (a.timestamps[a.timestamps.length - 1] as number) + 30;

  it("history windows follow Crane's config rules (+1h for DSP, as Crane fetches)", () => {
    expect(f.historyWindow({ algorithmType: 'dsp' })).to.deep.equal({ lengthSeconds: 15 * DAY + 3600, stepSeconds: 60 });
    expect(f.historyWindow({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '1d' } })).to.deep.equal({ lengthSeconds: 15 * DAY + 3600, stepSeconds: 60 });
    expect(f.historyWindow({ algorithmType: 'dsp', dsp: { sampleInterval: '5m', historyLength: '3d' } })).to.deep.equal({ lengthSeconds: 3 * DAY + 3600, stepSeconds: 300 });
    expect(f.historyWindow({ algorithmType: 'percentile' })).to.deep.equal({ lengthSeconds: 7 * DAY, stepSeconds: 60 });
  });
  it('dsp: one forecast per series, labels kept, covering now .. now + horizon', () => {
    const b = daily(3, { pod: 'b' }, 2);
    const out = f.forecast([a, b], { algorithmType: 'dsp' }, { nowS, horizonSeconds: 7200 });
    expect(out.map((s) => s.labels)).to.deep.equal([{ pod: 'a' }, { pod: 'b' }]);
    for (const s of out) {
      expect(s.timestamps[0]).to.equal(nowS - 30 + 60);
      expect(s.timestamps[s.timestamps.length - 1] as number).to.be.at.least(nowS + 7200);
    }
  });
  it('dsp: a block that lists estimators gets exactly those (Crane mode)', () => {
    const algorithm = { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d', estimators: { maxValue: [{ marginFraction: '0.5' }] } } };
    const [s] = f.forecast([a], algorithm, { nowS, horizonSeconds: 7200 });
    // maxValue over 3 days x 1.5: at least 1.5 x the daily minimum (~50)
    expect(Math.min(...(s as HistorySeries).values)).to.be.above(70);
  });
  it('dsp: drops a series that fails preprocessing and keeps the others', () => {
    const bad: HistorySeries = { labels: { pod: 'bad' }, timestamps: [T0, T0 + 90], values: [1, 2] };
    const out = f.forecast([bad, a], { algorithmType: 'dsp' }, { nowS, horizonSeconds: 3600 });
    expect(out.map((s) => s.labels)).to.deep.equal([{ pod: 'a' }]);
  });
  it('percentile: a constant from now truncated to the interval, end exclusive; aggregated or per series', () => {
    const h1: HistorySeries = { labels: { pod: 'x' }, timestamps: [0, 60, 120], values: [1, 1, 1] };
    const h2: HistorySeries = { labels: { pod: 'y' }, timestamps: [0, 60, 120], values: [9, 9, 9] };
    const agg = f.forecast([h1, h2], { algorithmType: 'percentile' }, { nowS: 1000, horizonSeconds: 300 });
    expect(agg).to.have.length(1);
    expect(agg[0]?.labels).to.deep.equal({});
    expect(agg[0]?.timestamps).to.deep.equal([960, 1020, 1080, 1140, 1200, 1260]);
    expect(agg[0]?.values[0]).to.be.closeTo(9.1, 1e-9); // P99 by value weight sits in the 9.0 bucket: its end
    const block = { sampleInterval: '1m', historyLength: '1d', histogram: { halfLife: '24h' }, aggregated: false };
    const per = f.forecast([h1, h2], { algorithmType: 'percentile', percentile: block }, { nowS: 1000, horizonSeconds: 120 });
    expect(per.map((s) => s.labels['pod'])).to.deep.equal(['x', 'y']);
    expect(per[0]?.values[0]).to.be.closeTo(1.1, 1e-9);
    expect(per[1]?.values[0]).to.be.closeTo(9.1, 1e-9);
    expect(per[0]?.timestamps).to.deep.equal([960, 1020, 1080]);
  });
});
