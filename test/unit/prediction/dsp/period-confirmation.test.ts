import { expect } from 'chai';
import { dspForecast } from '../../../../src/prediction/dsp/forecast.ts';
import { confirmPeriod, DEFAULT_PERIOD_CONFIRMATION, findConfirmedPeriod } from '../../../../src/prediction/dsp/period-confirmation.ts';
import { findPeriod } from '../../../../src/prediction/dsp/period.ts';
import { SeededRandom } from '../../../../src/prediction/dsp/seeded-random.ts';
import { DAY_SECONDS } from '../../../../src/prediction/dsp/signal.ts';

const MINUTE = { sampleRate: 1 / 60 };

function daily(days: number, seed: number, noise: number): Float64Array {
  const rng = new SeededRandom(seed);
  return Float64Array.from({ length: days * 1440 }, (_, i) => 100 + 40 * Math.sin((2 * Math.PI * i) / 1440) + noise * (rng.nextUint32() / 2 ** 32));
}

describe('prediction/dsp period confirmation', () => {
  it('scores the previous period against the previous mean on hourly means: hand-computed case', () => {
    // Two "days" at one sample per hour (24 bins of one sample). Day 1: 0 for 12h, 2 for 12h (mean 1).
    // Day 2: the same shape plus 1 on one hour. Seasonal naive MAE total = 1; flat (mean 1) = 12*1 + 11*1 + 2 = 25.
    const day1 = Array.from({ length: 24 }, (_, h) => (h < 12 ? 0 : 2));
    const day2 = day1.map((v, h) => (h === 12 ? v + 1 : v));
    const c = confirmPeriod({ sampleRate: 1 / 3600, samples: Float64Array.from([...day1, ...day2]) }, DAY_SECONDS);
    expect(c.folds).to.equal(1);
    expect(c.skill).to.be.closeTo(1 - 1 / 25, 1e-12);
    expect(c.confirmed).to.equal(true);
  });
  it('confirms a noisy daily cycle and rejects the same days shifted at random', () => {
    const x = daily(7, 2, 30);
    expect(confirmPeriod({ ...MINUTE, samples: x }, DAY_SECONDS).skill).to.be.above(0.8);
    // Each day's cycle starts at a random phase: a shape, but not one that repeats.
    const rng = new SeededRandom(8);
    const drifting = Float64Array.from(x);
    for (let d = 0; d < 7; d++) {
      const shift = rng.intn(1440);
      for (let i = 0; i < 1440; i++) drifting[d * 1440 + i] = 100 + 40 * Math.sin((2 * Math.PI * (i + shift)) / 1440);
    }
    const c = confirmPeriod({ ...MINUTE, samples: drifting }, DAY_SECONDS);
    expect(c.skill).to.be.below(DEFAULT_PERIOD_CONFIRMATION.minSkill);
    expect(c.confirmed).to.equal(false);
  });
  it('hourly means reveal an on/off daily envelope that random spikes hide sample by sample', () => {
    // Like Crane's input10: zero at night, random spikes by day.
    const rng = new SeededRandom(5);
    const samples = Float64Array.from({ length: 7 * 1440 }, (_, i) => (i % 1440 >= 480 && i % 1440 < 1200 && rng.nextUint32() % 4 === 0 ? 10 * (rng.nextUint32() / 2 ** 32) : 0));
    const perSample = confirmPeriod({ ...MINUTE, samples }, DAY_SECONDS, { binSeconds: 60, minSkill: 0.2 });
    const hourly = confirmPeriod({ ...MINUTE, samples }, DAY_SECONDS);
    expect(perSample.skill).to.be.below(0.2);
    expect(hourly.skill).to.be.above(0.6);
  });
  it('has nothing to confirm with fewer than two periods or a constant series', () => {
    expect(Number.isNaN(confirmPeriod({ ...MINUTE, samples: daily(1, 1, 1) }, DAY_SECONDS).skill)).to.equal(true);
    const flat = confirmPeriod({ ...MINUTE, samples: new Float64Array(3 * 1440).fill(4) }, DAY_SECONDS);
    expect(flat.confirmed).to.equal(false);
    expect(Number.isNaN(flat.skill)).to.equal(true);
  });
  it("keeps Crane's period when confirmed, on the window Crane decided on", () => {
    const signal = { ...MINUTE, samples: daily(4, 3, 10) };
    const c = findConfirmedPeriod(signal, 1);
    expect(c.cranePeriodSeconds).to.equal(findPeriod(signal, 1));
    expect(c.periodSeconds).to.equal(DAY_SECONDS);
    expect(c.confirmation?.folds).to.equal(3);
    const strict = findConfirmedPeriod(signal, 1, { binSeconds: 3600, minSkill: 1.01 });
    expect(strict.cranePeriodSeconds).to.equal(DAY_SECONDS);
    expect(strict.periodSeconds).to.equal(null);
  });
  it('auto forecast: a rejected period falls back to the flat forecast and says why; crane mode ignores the check', () => {
    const values = Array.from(daily(4, 3, 10));
    const history = { timestamps: values.map((_, i) => 1_700_006_400 + 60 * i), values };
    const cfg = { intervalSeconds: 60, historySeconds: 15 * DAY_SECONDS, horizonSeconds: 7200, periodConfirmation: { binSeconds: 3600, minSkill: 1.01 } };
    const a = dspForecast(history, { ...cfg, estimators: 'auto' }, 1);
    expect(a.periodSeconds).to.equal(null);
    expect(a.reason).to.match(/Crane's detector found 24h, but it predicts .* \(skill 0\.\d+ < 1\.01\): flat short-horizon/);
    expect(a.backtest['periodConfirmation']).to.include({ cranePeriod: '24h', confirmed: false, minSkill: 1.01 });
    expect(a.samples).to.have.length(120);
    const c = dspForecast(history, { ...cfg, estimators: 'crane' }, 1);
    expect(c.periodSeconds).to.equal(DAY_SECONDS);
    const ok = dspForecast(history, { ...cfg, estimators: 'auto', periodConfirmation: DEFAULT_PERIOD_CONFIRMATION }, 1);
    expect(ok.periodSeconds).to.equal(DAY_SECONDS);
    expect(ok.backtest['periodConfirmation']).to.include({ cranePeriod: '24h', confirmed: true });
  });
});
