// How dspForecast (src/prediction/dsp/forecast.ts) assembles a forecast around the estimators: the history
// window it keeps, the horizon it repeats a period over, and the names, reasons and backtest records that land in
// the TSP status, where users read them. Expected texts are written out here; numbers come from the forecast's
// own parts (its selection, its calibration summary) only where the test is about how they are put together.
import { expect } from 'chai';
import { DEFAULT_AUTO_CONFIG as DEFAULT_AUTO } from '../../../../src/prediction/dsp/auto-selection.ts';
import { DEFAULT_CRANE_ESTIMATORS, craneEstimatorName } from '../../../../src/prediction/dsp/crane-estimators.ts';
import { dspCalibrationInputs, dspForecast, dspForecastCalibrations, type DspForecastConfig } from '../../../../src/prediction/dsp/forecast.ts';
import { SeededRandom } from '../../../../src/prediction/dsp/seeded-random.ts';

const DAY = 86_400;
const T0 = 1_700_000_000 - (1_700_000_000 % DAY);

function daily(days: number, seed = 5): { timestamps: number[]; values: number[] } {
  const rng = new SeededRandom(seed);
  const timestamps = Array.from({ length: days * 1440 }, (_, i) => T0 + 60 * i);
  const values = timestamps.map((_, i) => 100 + 50 * Math.sin((2 * Math.PI * i) / 1440) + 10 * (rng.nextUint32() / 2 ** 32));
  return { timestamps, values };
}

function noise(samples: number, seed = 9): { timestamps: number[]; values: number[] } {
  const rng = new SeededRandom(seed);
  const timestamps = Array.from({ length: samples }, (_, i) => T0 + 60 * i);
  return { timestamps, values: timestamps.map(() => 5 + rng.nextUint32() / 2 ** 32) };
}

const base: DspForecastConfig = { intervalSeconds: 60, historySeconds: 15 * DAY, horizonSeconds: null, estimators: 'crane' };

describe('dsp forecast assembly: history window, horizon, names and reasons', function () {
  this.timeout(120_000);
  const hist = daily(4);
  const last = hist.timestamps[hist.timestamps.length - 1] as number;

  it("crane mode: Crane's horizon (one period per whole period kept), its backtest record, one period repeated", () => {
    const f = dspForecast(hist, base, 1);
    expect(f.periodSeconds).to.equal(DAY);
    expect(f.samples).to.have.length(4 * 1440);
    expect(f.samples[0]?.timestamp).to.equal(last + 60);
    expect(f.samples[4 * 1440 - 1]?.timestamp).to.equal(last + 4 * 1440 * 60);
    for (const i of [0, 1, 700, 1439]) expect(f.samples[i + 2 * 1440]?.value).to.equal(f.samples[i]?.value);
    const bt = f.backtest as { method: string; periods: number; errors: { estimator: string; error: number | null; kind: string | null }[] };
    expect(bt.method).to.equal('crane asymmetric MAPE on the last period');
    expect(bt.periods).to.equal(4);
    expect(bt.errors.map((e) => e.estimator)).to.deep.equal(DEFAULT_CRANE_ESTIMATORS.map(craneEstimatorName));
    expect(bt.errors.some((e) => typeof e.error === 'number')).to.equal(true);
    expect(f.estimator).to.be.oneOf(DEFAULT_CRANE_ESTIMATORS.map(craneEstimatorName));
  });

  it('history: Crane fetches the history length plus an hour before now; an asked horizon is cut to whole samples', () => {
    // Two days (+ 1 h) of the four: two whole periods, so Crane's horizon is two periods.
    const two = dspForecast(hist, { ...base, historySeconds: 2 * DAY }, 1);
    expect((two.backtest as { periods: number }).periods).to.equal(2);
    expect(two.samples).to.have.length(2 * 1440);
    const asked = dspForecast(hist, { ...base, horizonSeconds: 3630 }, 1);
    expect(asked.samples).to.have.length(60);
  });

  it('now: the history window is measured back from now truncated to the interval', () => {
    // One day (+ 1 h) back from now = 30 s past the third day's end keeps T0 + 2 days − 1 h onwards (the fourth
    // day's samples after now are the caller's to drop: forecast() does): two whole periods. One day back from
    // the last sample keeps one period and a bit, too little for a period.
    const f = dspForecast(hist, { ...base, historySeconds: DAY, nowSeconds: T0 + 3 * DAY + 30 }, 1);
    expect((f.backtest as { periods: number }).periods).to.equal(2);
    const g = dspForecast(hist, { ...base, historySeconds: DAY }, 1);
    expect(g.periodSeconds).to.equal(null);
    expect(g.samples).to.have.length(0);
    expect(g.reason).to.equal('no daily or weekly period in the history');
  });

  it('the history window to the sample: its first sample is the one exactly at now − history − 1 h', () => {
    // now truncated = T0 + 3 days; history 23 h: the window starts at T0 + 2 days, and with the fourth day
    // exactly 2 × 1440 samples remain, two whole periods. One minute less history and one sample is missing.
    const now = T0 + 3 * DAY + 30;
    const exact = dspForecast(hist, { ...base, historySeconds: DAY - 3600, nowSeconds: now }, 1);
    expect(exact.periodSeconds).to.equal(DAY);
    expect((exact.backtest as { periods: number }).periods).to.equal(2);
    const short = dspForecast(hist, { ...base, historySeconds: DAY - 3660, nowSeconds: now }, 1);
    expect(short.periodSeconds).to.equal(null);
  });

  it("crane mode: no estimator to score is a reason, not a forecast; each estimator's error says its kind", () => {
    const none = dspForecast(hist, { ...base, craneEstimators: [] }, 1);
    expect(none.samples).to.deep.equal([]);
    expect(none.reason).to.equal('no estimator could be scored');
    const f = dspForecast(hist, base, 1);
    const errors = (f.backtest as { errors: { error: number | null; kind: string | null }[] }).errors;
    for (const e of errors) if (e.error !== null) expect(e.kind).to.equal('mape');
    expect(errors.filter((e) => e.error !== null).length).to.be.above(0);
  });

  it("crane mode ignores the period check; auto mode says why it rejected Crane's period", () => {
    const strict = { binSeconds: 3600, minSkill: 1.01 };
    const c = dspForecast(hist, { ...base, periodConfirmation: strict }, 1);
    expect(c.periodSeconds).to.equal(DAY);
    const a = dspForecast(hist, { ...base, estimators: 'auto', horizonSeconds: 3600, periodConfirmation: strict }, 1);
    expect(a.periodSeconds).to.equal(null);
    expect(a.reason).to.match(
      /^no daily or weekly period in the history: Crane's detector found 24h, but it predicts the held-back periods no better than a flat forecast \(skill 0\.\d{3} < 1\.01\): flat short-horizon forecast \(at most 2h\)$/,
    );
  });

  it('calibration asked of crane mode is refused', () => {
    const cal = [{ target: 0.9, windowSeconds: 3600 }];
    expect(() => dspForecastCalibrations(hist, base, 1, cal)).to.throw(RangeError, 'calibration is an auto-mode feature');
    expect(() => dspCalibrationInputs(hist, base, 1, cal)).to.throw(RangeError, 'calibration is an auto-mode feature');
  });

  it('auto mode: the estimator name carries smoothing and margin, the backtest says what was compared', () => {
    const f = dspForecast(hist, { ...base, estimators: 'auto', horizonSeconds: 7200 }, 1);
    expect(f.samples).to.have.length(120);
    const bt = f.backtest as {
      method: string;
      periods: number;
      margin: number;
      underPredictedPercent: number;
      overProvisionPercent: number;
      crane: { estimator: string; underPredictedPercent: number; overProvisionPercent: number };
      periodConfirmation: { method: string; cranePeriod: string; skill: number; minSkill: number; folds: number; confirmed: boolean };
    };
    expect(bt.method).to.equal("fewest under-predicted points on the last period within Crane's over-provisioning + 3 points");
    expect(bt.periods).to.equal(4);
    expect(bt.crane.estimator).to.be.oneOf(DEFAULT_CRANE_ESTIMATORS.map(craneEstimatorName));
    expect(bt.underPredictedPercent).to.be.at.most(bt.crane.underPredictedPercent);
    expect(bt.periodConfirmation).to.deep.include({ cranePeriod: '24h', minSkill: 0.2, confirmed: true, folds: 3 });
    expect(bt.periodConfirmation.method).to.equal(
      "1 - MAE(last period's profile) / MAE(last period's mean), 60-minute means, each whole period forecast from the one before",
    );
    expect(bt.margin).to.be.above(0);
    expect(f.estimator?.endsWith(` + margin ${Number(bt.margin.toPrecision(6))}`), f.estimator ?? '').to.equal(true);
    expect(f.reason).to.equal(undefined);
    // The budget in the method follows the configuration.
    const wider = dspForecast(hist, { ...base, estimators: 'auto', horizonSeconds: 60, auto: { ...DEFAULT_AUTO, overProvisionBudget: 7 } }, 1);
    expect((wider.backtest as { method: string }).method).to.equal("fewest under-predicted points on the last period within Crane's over-provisioning + 7 points");
  });

  it("auto mode's name: smoothing and margin only when chosen, from the configured candidates", () => {
    const auto = (o: Partial<typeof DEFAULT_AUTO>) => dspForecast(hist, { ...base, estimators: 'auto', horizonSeconds: 120, auto: { ...DEFAULT_AUTO, ...o } }, 1);
    // Any in-budget candidate beats the one before it: the last, the seasonal naive smoothed ±5, wins.
    const smoothed = auto({ estimators: [{ kind: 'seasonalNaive' }], smoothingHalfWidths: [5], minImprovement: -1000, overProvisionBudget: 1000 });
    expect(smoothed.estimator).to.match(/^seasonal naive \(last period\) \+ moving max ±5 \+ margin \d+(\.\d+)?$/);
    // Nothing fits a negative budget: Crane's choice as it is, no smoothing, no margin.
    const plain = auto({ estimators: [{ kind: 'seasonalNaive' }], smoothingHalfWidths: [0], overProvisionBudget: -1e9 });
    expect(plain.estimator).to.equal((plain.backtest as { crane: { estimator: string } }).crane.estimator);
    expect((plain.backtest as { margin: number }).margin).to.equal(0);
  });

  it("a calibrated periodic forecast: Crane's horizon, the method's name with the model's, the multiplier and the rule", () => {
    const plain = dspForecast(hist, { ...base, estimators: 'auto' }, 1);
    const f = dspForecast(hist, { ...base, estimators: 'auto', calibration: { target: 0.9, windowSeconds: 3630 } }, 1);
    const c = f.calibration;
    expect(c).to.not.equal(undefined);
    // Crane's horizon: four periods, as the uncalibrated forecast.
    expect(f.samples).to.have.length(4 * 1440);
    expect(plain.samples).to.have.length(4 * 1440);
    expect(f.samples[0]?.timestamp).to.equal(last + 60);
    expect(f.samples[1]?.timestamp).to.equal(last + 120);
    expect(f.samples[4 * 1440 - 1]?.timestamp).to.equal(last + 4 * 1440 * 60);
    const method = (c?.method ?? '').replace(/\bmodel\b/, plain.estimator ?? '').replace('crane shape', (plain.backtest as { crane: { estimator: string } }).crane.estimator);
    expect(f.estimator).to.equal(`${method} × ${Number(c?.multiplier.toPrecision(4))}`);
    // 3630 s is 60.5 samples, rounded to 61: the rule names the window the maximum is really taken over.
    expect((f.backtest as { calibration: { rule: string } }).calibration.rule).to.equal(
      'window maximum over 3660s calibrated by split-conformal multiplier for 90.0% coverage',
    );
    expect(f.reason).to.equal(undefined);
    // The model's backtest covers the last seven periods at most, here the three after the first: 3 days of
    // hourly windows every 15 min, less the last hour's.
    expect(c?.backtestWindows).to.be.at.most(3 * 96);
    expect(c?.backtestWindows).to.be.at.least(3 * 96 - 8);
  });

  it('the calibration input: the model and Crane\'s shape, aligned to the history, and the horizon asked for', () => {
    const { inputs, first } = dspCalibrationInputs(hist, { ...base, estimators: 'auto' }, 1, [{ target: 0.9, windowSeconds: 3600 }]);
    const input = inputs[0];
    expect(first).to.equal(last + 60);
    expect(input?.periodSeconds).to.equal(DAY);
    expect(input?.horizon).to.equal(4 * 1440);
    expect(input?.models?.map((m) => m.name)).to.deep.equal(['model', 'crane shape']);
    for (const m of input?.models ?? []) {
      expect(m.backtest.length).to.equal(4 * 1440);
      expect(m.onePeriod.length).to.equal(1440);
      // Period 0 has nothing before it; periods 1-3 are forecast from the ones before.
      expect(m.backtest.subarray(0, 1440).every((v) => Number.isNaN(v))).to.equal(true);
      expect(m.backtest.subarray(1440).every((v) => Number.isFinite(v))).to.equal(true);
    }
    const noPeriod = dspCalibrationInputs(noise(2 * 1440), { ...base, estimators: 'auto' }, 1, [{ target: 0.9, windowSeconds: 1800 }]);
    expect(noPeriod.inputs[0]?.periodSeconds).to.equal(null);
    expect(noPeriod.inputs[0]?.models).to.deep.equal([]);
    // Without a period and without an asked horizon: two windows.
    expect(noPeriod.inputs[0]?.horizon).to.equal(60);
  });

  it('without a period: the flat forecast names its quantile and look-back, and the calibrated one its method', () => {
    const h = noise(2 * 1440);
    const flat = dspForecast(h, { ...base, estimators: 'auto', horizonSeconds: 86_400 }, 1);
    expect(flat.estimator).to.equal('flat P99 of the last 1h');
    expect(flat.samples).to.have.length(120);
    const lastNoise = h.timestamps[h.timestamps.length - 1] as number;
    expect(flat.samples.map((x) => x.timestamp)).to.deep.equal(Array.from({ length: 120 }, (_, i) => lastNoise + 60 * (i + 1)));
    expect(flat.reason).to.match(/^no daily or weekly period in the history.*: flat short-horizon forecast \(at most 2h\)$/);
    const custom = dspForecast(h, { ...base, estimators: 'auto', horizonSeconds: 1800, shortHorizon: { lookbackSeconds: 7200, quantile: 0.5, maxHorizonSeconds: 3600 } }, 1);
    expect(custom.estimator).to.equal('flat P50 of the last 2h');
    expect(custom.samples).to.have.length(30);
    expect(custom.reason).to.match(/: flat short-horizon forecast \(at most 1h\)$/);
    const cal = dspForecast(h, { ...base, estimators: 'auto', calibration: { target: 0.9, windowSeconds: 1800 } }, 1);
    const c = cal.calibration;
    expect(cal.samples).to.have.length(60);
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    expect(cal.reason?.endsWith(`: ${c?.method} × ${Number(c?.multiplier.toPrecision(4))} (backtest coverage ${pct(c?.backtestCoverage ?? NaN)}, slack ${pct(c?.backtestSlack ?? NaN)})`), cal.reason).to.equal(true);
    expect(cal.reason?.startsWith('no daily or weekly period in the history')).to.equal(true);
  });

  it('a periodic forecast with too little backtest for its window: uncalibrated, and the reason is that alone', () => {
    // Two days and a one-day window: the model's backtest (day 2 forecast from day 1) holds one window.
    const f = dspForecast(daily(2), { ...base, estimators: 'auto', calibration: { target: 0.9, windowSeconds: DAY } }, 1);
    expect(f.periodSeconds).to.equal(DAY);
    expect(f.calibration).to.equal(undefined);
    expect(f.reason).to.equal('too little history to calibrate the window maximum: uncalibrated');
  });

  it('too little history to calibrate: the uncalibrated forecast, and the reason says so', () => {
    const h = noise(300);
    const f = dspForecast(h, { ...base, estimators: 'auto', horizonSeconds: 3600, calibration: { target: 0.9, windowSeconds: 3600 } }, 1);
    const plain = dspForecast(h, { ...base, estimators: 'auto', horizonSeconds: 3600 }, 1);
    expect(f.calibration).to.equal(undefined);
    expect(f.samples).to.deep.equal(plain.samples);
    expect(f.reason).to.equal(`${plain.reason}; too little history to calibrate the window maximum: uncalibrated`);
  });
});
