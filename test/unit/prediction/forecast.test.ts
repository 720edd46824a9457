import { expect } from 'chai';
import { forecast, InvalidSeriesError, toPredictionSamples } from '../../../src/prediction/index.ts';
import { SeededRandom } from '../../../src/prediction/dsp/seeded-random.ts';

const T0 = 1_700_000_000 - (1_700_000_000 % 86_400);

function dailyHistory(days: number, seed = 5): { timestamps: number[]; values: number[] } {
  const rng = new SeededRandom(seed);
  const timestamps: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < days * 1440; i++) {
    timestamps.push(T0 + 60 * i);
    values.push(100 + 50 * Math.sin((2 * Math.PI * i) / 1440) + 10 * (rng.nextUint32() / 2 ** 32));
  }
  return { timestamps, values };
}

describe('prediction forecast()', function () {
  this.timeout(60_000);
  const history = dailyHistory(4);
  const now = history.timestamps[history.timestamps.length - 1] as number;

  it('crane mode: finds 24h, picks one of the 8 FFT estimators, repeats one period from last + interval', () => {
    const f = forecast(history, { algorithm: 'dsp', sampleIntervalSeconds: 60, estimators: 'crane' }, { now, seed: 1 });
    expect(f.period).to.equal('24h');
    expect(f.estimator).to.match(/^FFT Estimator/);
    // Crane's horizon: one period per whole period of history (4 days).
    expect(f.samples).to.have.length(4 * 1440);
    expect(f.samples[0]?.timestamp).to.equal(now + 60);
    expect(f.samples[1440]?.value).to.equal(f.samples[0]?.value);
    expect(f.samples[1080]?.value).to.be.within(45, 80); // the trough of the daily sine (~55), plus margin
  });
  it('the same input and seed give the same forecast', () => {
    const cfg = { algorithm: 'dsp', sampleIntervalSeconds: 60, estimators: 'auto', horizonSeconds: 3600 } as const;
    expect(forecast(history, cfg, { now, seed: 3 })).to.deep.equal(forecast(history, cfg, { now, seed: 3 }));
  });
  it('auto mode: a horizon-long forecast with its backtest and Crane reference', () => {
    const f = forecast(history, { algorithm: 'dsp', sampleIntervalSeconds: 60, estimators: 'auto', horizonSeconds: 6 * 3600 }, { now, seed: 1 });
    expect(f.period).to.equal('24h');
    expect(f.samples).to.have.length(360);
    expect(f.backtest).to.have.property('crane');
    const bt = f.backtest as { underPredictedPercent: number; crane: { underPredictedPercent: number } };
    expect(bt.underPredictedPercent).to.be.at.most(bt.crane.underPredictedPercent);
  });
  it('ignores history after now', () => {
    const cut = T0 + 3 * 86_400 + 3600;
    const f = forecast(history, { algorithm: 'dsp', sampleIntervalSeconds: 60, horizonSeconds: 120 }, { now: cut, seed: 1 });
    expect(f.samples[0]?.timestamp).to.equal(cut + 60);
  });
  it('without a period: crane mode returns nothing with a reason, auto a flat short forecast with a reason', () => {
    const rng = new SeededRandom(9);
    const noise = { timestamps: history.timestamps, values: history.values.map(() => 5 + rng.nextUint32() / 2 ** 32) };
    const c = forecast(noise, { algorithm: 'dsp', sampleIntervalSeconds: 60, estimators: 'crane', horizonSeconds: 86_400 }, { now, seed: 1 });
    expect(c.period).to.equal(null);
    expect(c.samples).to.have.length(0);
    expect(c.reason).to.match(/no daily or weekly period/);
    const a = forecast(noise, { algorithm: 'dsp', sampleIntervalSeconds: 60, estimators: 'auto', horizonSeconds: 86_400, coverage: null }, { now, seed: 1 });
    expect(a.samples).to.have.length(120); // uncalibrated: capped at 2h
    expect(a.reason).to.match(/flat short-horizon/);
    expect(a.samples[0]?.value).to.be.within(5.9, 6);
    // Calibrated (the default): the whole horizon, with the method chosen on the backtest.
    const cal = forecast(noise, { algorithm: 'dsp', sampleIntervalSeconds: 60, estimators: 'auto', horizonSeconds: 86_400 }, { now, seed: 1 });
    expect(cal.samples).to.have.length(1440);
    expect(cal.reason).to.match(/no daily or weekly period/);
    expect(cal.calibration?.target).to.equal(0.9);
    expect(cal.calibration?.backtestCoverage).to.be.at.least(0.9);
  });
  it('percentile: a constant value over the horizon', () => {
    const f = forecast(history, { algorithm: 'percentile', sampleIntervalSeconds: 60, horizonSeconds: 600 }, { now, seed: 1 });
    expect(f.samples).to.have.length(10);
    expect(new Set(f.samples.map((s) => s.value)).size).to.equal(1);
    expect(f.samples[0]?.value).to.equal(100); // values above the default histogram's max (100) land in its last bucket
  });
  it('toPredictionSamples formats values as Go %.5f for the TSP status', () => {
    expect(toPredictionSamples([{ timestamp: 60, value: 0.015625 }, { timestamp: 120, value: 2.718281828 }])).to.deep.equal([
      { value: '0.01562', timestamp: 60 },
      { value: '2.71828', timestamp: 120 },
    ]);
  });
  it('rejects a history off the sample grid', () => {
    const bad = { timestamps: [T0, T0 + 90], values: [1, 2] };
    expect(() => forecast(bad, { algorithm: 'dsp', sampleIntervalSeconds: 60 }, { now: T0 + 90, seed: 1 })).to.throw(InvalidSeriesError);
  });
});
