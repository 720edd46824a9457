// The window-maximum calibration on synthetic series whose answers are known by hand.
import { expect } from 'chai';
import { calibrateWindowMax } from '../../../../src/prediction/dsp/window-calibration.ts';
import { dspForecast, dspForecastCalibrations } from '../../../../src/prediction/dsp/forecast.ts';
import { forecast } from '../../../../src/prediction/index.ts';

const DAY = 86_400;

describe('window-maximum calibration', function () {
  this.timeout(60_000);

  it('a constant load needs no margin: multiplier 1, full coverage, no slack', () => {
    const values = new Float64Array(3 * 1440).fill(4);
    const c = calibrateWindowMax({ values, intervalSeconds: 60, periodSeconds: null, horizon: 120 }, { target: 0.9, windowSeconds: 3600 });
    expect(c).to.not.equal(null);
    expect(c?.summary.multiplier).to.equal(1);
    expect(c?.summary.backtestCoverage).to.equal(1);
    expect(c?.summary.backtestSlack).to.equal(0);
    expect(Array.from(c?.values ?? []).every((v) => v === 4)).to.equal(true);
  });

  it('a daily square wave is forecast by the same window yesterday, with no margin', () => {
    // 1 from 08:00 to 20:00, else 0.2; 3 days at 60 s. The recent max is wrong at every switch, yesterday never.
    const values = Float64Array.from({ length: 3 * 1440 }, (_, i) => ((i % 1440) >= 480 && (i % 1440) < 1200 ? 1 : 0.2));
    const c = calibrateWindowMax({ values, intervalSeconds: 60, periodSeconds: null, horizon: 60 }, { target: 0.9, windowSeconds: 3600 });
    expect(c?.summary.method).to.equal('same window 1 day ago');
    expect(c?.summary.multiplier).to.equal(1);
    expect(c?.summary.backtestSlack).to.equal(0);
    // The series ends at 24:00: the next hour is yesterday's 00:00-01:00, 0.2.
    expect(Array.from(c?.values ?? []).every((v) => v === 0.2)).to.equal(true);
  });

  it('the multiplier covers the target share of the backtest windows', () => {
    // Recent max is 1 except for a growing load: each hour's max is 1.1x the previous hour's.
    const values = Float64Array.from({ length: 2 * 1440 }, (_, i) => Math.pow(1.1, Math.floor(i / 60)));
    const c = calibrateWindowMax({ values, intervalSeconds: 60, periodSeconds: null, horizon: 60 }, { target: 0.9, windowSeconds: 3600, recentSeconds: 3600 });
    expect(c?.summary.backtestCoverage).to.be.at.least(0.9);
    // The growth needs about x1.1 over the last hour's max, and much more over yesterday's.
    expect(c?.summary.method).to.equal('recent max');
    expect(c?.summary.multiplier).to.be.closeTo(1.1, 1e-9);
  });

  // A level that wanders (a slow random walk, deterministic LCG) under a daily sine: the last hour knows the
  // level, yesterday knows the shape, neither alone knows both.
  const wandering = (): Float64Array => {
    const v = new Float64Array(9 * 1440);
    let seed = 11;
    let level = 10;
    for (let i = 0; i < v.length; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      level = Math.max(3, level + (seed / 2147483648 - 0.5) * 0.2);
      v[i] = level + 2 * Math.sin((2 * Math.PI * i) / 1440);
    }
    return v;
  };

  it('a blend of level and shape wins when it needs less slack than every plain candidate', () => {
    const values = wandering();
    const c = calibrateWindowMax({ values, intervalSeconds: 60, periodSeconds: null, horizon: 120 }, { target: 0.9, windowSeconds: 3600 });
    const s = c?.summary;
    expect(s?.method).to.match(/^blend\(/);
    const others = (s?.candidates ?? []).filter((x) => x.method !== s?.method);
    expect(others.length).to.be.at.least(3);
    for (const o of others) expect(s?.backtestSlack).to.be.below(o.backtestSlack, o.method);
  });

  it("the blend's first window is the weighted sum of its ingredients' maxima, times the multiplier", () => {
    const values = wandering();
    const n = values.length;
    const c = calibrateWindowMax({ values, intervalSeconds: 60, periodSeconds: null, horizon: 120 }, { target: 0.9, windowSeconds: 3600 });
    const s = c?.summary;
    // Each ingredient's maximum over the next hour, computed here from the series itself.
    const max = (from: number, to: number) => Math.max(...values.subarray(from, to + 1));
    const ingredient: Record<string, number> = {
      'recent max': max(n - 60, n - 1),
      'recent max (quarter)': max(n - 15, n - 1),
      'same window 1 day ago': max(n - 1440, n - 1440 + 59),
    };
    const parts = /^blend\((.*)\)$/.exec(s?.method ?? '')?.[1]?.split(', ') ?? [];
    expect(parts.length).to.be.at.least(2);
    let expected = 0;
    let weights = 0;
    for (const part of parts) {
      const [, w, name] = /^([0-9.]+) (.*)$/.exec(part) ?? [];
      expect(ingredient, name).to.have.property(name as string);
      expected += Number(w) * (ingredient[name as string] as number);
      weights += Number(w);
    }
    expect(weights).to.be.closeTo(1, 1e-9);
    const first = Array.from(c?.values.subarray(0, 60) ?? []);
    for (const v of first) expect(v).to.be.closeTo((s?.multiplier as number) * expected, 1e-9);
  });

  it('too little history to backtest: null, and the forecaster keeps its uncalibrated forecast', () => {
    const values = new Float64Array(90).fill(1);
    expect(calibrateWindowMax({ values, intervalSeconds: 60, periodSeconds: null, horizon: 60 }, { target: 0.9, windowSeconds: 3600 })).to.equal(null);
    expect(() => calibrateWindowMax({ values, intervalSeconds: 60, periodSeconds: null, horizon: 60 }, { target: 1, windowSeconds: 3600 })).to.throw(RangeError);
  });

  it('auto without a period serves windows longer than 2h once calibrated; crane mode is unchanged', () => {
    const t0 = 1_700_000_000 - (1_700_000_000 % 3600);
    const timestamps: number[] = [];
    const values: number[] = [];
    // Non-periodic: a slow random walk (deterministic LCG).
    let x = 10;
    let seed = 7;
    for (let i = 0; i < 4 * 1440; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      x = Math.max(1, x + (seed / 2147483648 - 0.5));
      timestamps.push(t0 + i * 60);
      values.push(x);
    }
    const now = timestamps[timestamps.length - 1] as number;
    const cfg = { algorithm: 'dsp', sampleIntervalSeconds: 60, horizonSeconds: 8 * 3600 } as const;
    const a = forecast({ timestamps, values }, { ...cfg, estimators: 'auto', coverageWindowSeconds: 4 * 3600 }, { now, seed: 1 });
    expect(a.samples.length).to.equal(8 * 60);
    expect(a.calibration?.windowSeconds).to.equal(4 * 3600);
    expect(a.calibration?.target).to.equal(0.9);
    const before = forecast({ timestamps, values }, { ...cfg, estimators: 'auto', coverage: null }, { now, seed: 1 });
    expect(before.samples.length).to.equal(120);
    expect(before.calibration).to.equal(undefined);
    const c = forecast({ timestamps, values }, { ...cfg, estimators: 'crane' }, { now, seed: 1 });
    expect(c.samples.length).to.equal(0);
    expect(c.calibration).to.equal(undefined);
  });

  it('one fit calibrated for several windows equals separate forecasts', () => {
    const timestamps = Array.from({ length: 3 * 1440 }, (_, i) => 1_700_000_000 - (1_700_000_000 % 3600) + i * 60);
    const values = timestamps.map((t, i) => 5 + Math.sin((2 * Math.PI * t) / DAY) + ((i * 7919) % 13) / 13);
    const base = { intervalSeconds: 60, historySeconds: 15 * DAY, horizonSeconds: 7200, estimators: 'auto' } as const;
    const cals = [{ target: 0.9, windowSeconds: 1800 }, { target: 0.95, windowSeconds: 3600 }];
    const many = dspForecastCalibrations({ timestamps, values }, base, 1, cals);
    cals.forEach((c, i) => expect(many[i]).to.deep.equal(dspForecast({ timestamps, values }, { ...base, calibration: c }, 1)));
  });
});
