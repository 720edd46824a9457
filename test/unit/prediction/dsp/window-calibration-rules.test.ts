// The window-maximum calibration's rules (src/prediction/dsp/window-calibration.ts), one at a time, against a
// naive computation written here from the documented procedure (docs/forecast-evaluation.md, "Calibrated
// auto"): backtest cut points every stride from the newest whole window back, a candidate's forecast at each,
// the ratios actual max / forecast max, the split-conformal rank ⌈(n + 1)·level⌉ over all of them and the rank
// at the target over the last day's, the larger of the two. The naive code scans and sorts; the module under
// test memoizes, selects and shares one array, so the two agree only if the rules do.
import { expect } from 'chai';
import { calibrateOrExplain, calibrateWindowMax, FORECAST_FLOOR_SHARE, MAX_MULTIPLIER, type CalibrationConfig } from '../../../../src/prediction/dsp/window-calibration.ts';

const DAY = 86_400;

/** A positive, non-periodic load at 60 s (deterministic LCG): a random walk plus noise, n samples. */
function walk(n: number, seed: number): Float64Array {
  const v = new Float64Array(n);
  let s = seed;
  let level = 20;
  const u = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < n; i++) {
    level = Math.max(5, level + (u() - 0.5));
    v[i] = level + 3 * u() * u();
  }
  return v;
}

const maxOf = (x: Float64Array, from: number, to: number) => {
  let m = -Infinity;
  for (let i = Math.max(0, from); i <= to; i++) m = Math.max(m, x[i] as number);
  return m;
};

interface Naive {
  cuts: number[];
  multiplier: number;
  exact: boolean;
  coverage: number;
  slack: number;
}

/**
 * The calibrated multiplier, coverage and slack of one plain candidate, computed from scratch. `forecastMax(c)`
 * is the candidate's maximum over the window after cut c; `start` is the first cut every candidate can use.
 */
function naiveCandidate(
  x: Float64Array,
  cfg: Required<Pick<CalibrationConfig, 'target' | 'windowSeconds'>> & CalibrationConfig,
  start: number,
  forecastMax: (c: number, w: number) => number,
): Naive {
  const dt = 60;
  const n = x.length;
  const w = Math.round(cfg.windowSeconds / dt);
  const stride = Math.round((cfg.strideSeconds ?? Math.min(cfg.windowSeconds, 3600) / 4) / dt);
  const back = Math.round((cfg.backtestSeconds ?? 7 * DAY) / dt);
  const cuts: number[] = [];
  for (let c = n - 1 - w; c >= Math.max(0, n - 1 - w - back); c -= stride) if (c >= start) cuts.push(c);
  cuts.reverse();
  const ratios = cuts.map((c) => maxOf(x, c + 1, c + w) / forecastMax(c, w));
  const rank = (r: number[], q: number) => {
    const sorted = [...r].sort((a, b) => a - b);
    const k = Math.ceil((sorted.length + 1) * q - 1e-9);
    return k > sorted.length ? { m: sorted[sorted.length - 1] as number, exact: false } : { m: sorted[k - 1] as number, exact: true };
  };
  const level = cfg.level ?? 1 - (1 - cfg.target) / 2;
  let { m, exact } = rank(ratios, level);
  const guard = cfg.guardSeconds ?? DAY;
  if (guard > 0) {
    const from = n - 1 - w - Math.round(guard / dt);
    const recent = ratios.filter((_, j) => (cuts[j] as number) >= from);
    if (recent.length > 0) {
      const g = rank(recent, cfg.target);
      if (g.m > m) ({ m, exact } = g);
    }
  }
  let covered = 0;
  let over = 0;
  let total = 0;
  cuts.forEach((c, j) => {
    const a = maxOf(x, c + 1, c + w);
    if ((ratios[j] as number) <= m) covered++;
    over += Math.max(0, m * forecastMax(c, w) - a);
    total += a;
  });
  return { cuts, multiplier: m, exact, coverage: covered / cuts.length, slack: over / total };
}

const recentMax = (x: Float64Array, samples: number) => (c: number) => maxOf(x, c - samples + 1, c);
const yesterday = (x: Float64Array) => (c: number, w: number) => maxOf(x, c - 1440 + 1, c - 1440 + w);

function candidate(summary: { candidates: { method: string; multiplier: number; backtestCoverage: number; backtestSlack: number; windowMax: number }[] } | undefined, method: string) {
  const c = summary?.candidates.find((s) => s.method === method);
  expect(c, `candidate ${method} in ${summary?.candidates.map((s) => s.method).join(' | ')}`).to.not.equal(undefined);
  return c as { method: string; multiplier: number; backtestCoverage: number; backtestSlack: number; windowMax: number };
}

function expectCandidate(actual: ReturnType<typeof candidate>, naive: Naive): void {
  expect(actual.multiplier, `${actual.method} multiplier`).to.equal(naive.multiplier);
  expect(actual.backtestCoverage, `${actual.method} coverage`).to.equal(naive.coverage);
  expect(actual.backtestSlack, `${actual.method} slack`).to.be.closeTo(naive.slack, 1e-12);
}

describe('window-maximum calibration rules against a naive computation', function () {
  this.timeout(60_000);
  // Three days at 60 s: the candidates are the last hour's maximum, yesterday's window and the maximum of the
  // two (two days back would need history before the week-long backtest's first cut, so it sits out).
  const x = walk(3 * 1440, 5);
  const input = { values: x, intervalSeconds: 60, periodSeconds: null, horizon: 120 };
  // Every candidate is judged from the first cut yesterday's window can be taken at (index 1439).
  const START = 1439;

  it('defaults: a quarter-window stride, the last hour, level 1 − (1 − target)/2 and a one-day guard at the target', () => {
    const cfg = { target: 0.9, windowSeconds: 3600 };
    const c = calibrateWindowMax(input, cfg);
    const naiveRecent = naiveCandidate(x, cfg, START, recentMax(x, 60));
    expectCandidate(candidate(c?.summary, 'recent max'), naiveRecent);
    expectCandidate(candidate(c?.summary, 'same window 1 day ago'), naiveCandidate(x, cfg, START, yesterday(x)));
    expectCandidate(
      candidate(c?.summary, 'max(same window 1 day ago, recent max)'),
      naiveCandidate(x, cfg, START, (cut, w) => Math.max(recentMax(x, 60)(cut), yesterday(x)(cut, w))),
    );
    // 189 cuts: 4259, 4244, ..., 1439.
    expect(naiveRecent.cuts.length).to.equal(189);
    expect(c?.summary.backtestWindows).to.equal(189);
    expect(c?.summary.target).to.equal(0.9);
    expect(c?.summary.windowSeconds).to.equal(3600);
  });

  it('the settings are honoured: stride, look-back, level, guard, window', () => {
    const variants: CalibrationConfig[] = [
      { target: 0.9, windowSeconds: 3600, level: 0.9, guardSeconds: 0 },
      { target: 0.8, windowSeconds: 3600 },
      { target: 0.9, windowSeconds: 3600, strideSeconds: 1800 },
      { target: 0.9, windowSeconds: 1800, recentSeconds: 1200 },
      { target: 0.95, windowSeconds: 7200, guardSeconds: 6 * 3600 },
      { target: 0.9, windowSeconds: 3600, level: 0.5, guardSeconds: 12 * 3600 },
      { target: 0.9, windowSeconds: 600 },
    ];
    const seen = new Set<number>();
    for (const cfg of variants) {
      const c = calibrateWindowMax(input, cfg);
      const recent = Math.round((cfg.recentSeconds ?? 3600) / 60);
      const naive = naiveCandidate(x, { ...cfg, target: cfg.target, windowSeconds: cfg.windowSeconds }, START, recentMax(x, recent));
      expectCandidate(candidate(c?.summary, 'recent max'), naive);
      expect(c?.summary.backtestWindows, JSON.stringify(cfg)).to.equal(naive.cuts.length);
      seen.add(naive.multiplier);
    }
    // The variants really differ (a setting that was ignored could not pass by coincidence everywhere).
    expect(seen.size).to.be.at.least(5);
  });

  it('without a period the backtest looks back at most backtestSeconds', () => {
    const cfg = { target: 0.9, windowSeconds: 3600, backtestSeconds: DAY };
    const c = calibrateWindowMax(input, cfg);
    // One day back from the newest whole window: cuts 4259 down to 2819, all past yesterday's start.
    const naive = naiveCandidate(x, cfg, START, recentMax(x, 60));
    expect(naive.cuts[0]).to.equal(2819);
    expect(naive.cuts.length).to.equal(97);
    expectCandidate(candidate(c?.summary, 'recent max'), naive);
  });

  it('the served forecast is the chosen candidate times its multiplier, and the least backtest slack is chosen', () => {
    const c = calibrateWindowMax(input, { target: 0.9, windowSeconds: 3600 });
    const s = c?.summary;
    for (const o of s?.candidates ?? []) expect(s?.backtestSlack).to.be.at.most(o.backtestSlack);
    expect(s?.multiplier).to.equal(candidate(s, s?.method ?? '').multiplier);
    const n = x.length;
    // The plain candidates' forecasts after the last sample, by hand; a blend is checked in window-calibration.test.ts.
    const plain: Record<string, (h: number) => number> = {
      'recent max': () => maxOf(x, n - 60, n - 1),
      'same window 1 day ago': (h) => x[n - 1440 + ((h - 1) % 1440)] as number,
      'max(same window 1 day ago, recent max)': (h) => Math.max(maxOf(x, n - 60, n - 1), x[n - 1440 + ((h - 1) % 1440)] as number),
    };
    const f = plain[s?.method ?? ''];
    if (f) expect(Array.from(c?.values ?? [])).to.deep.equal(Array.from({ length: 120 }, (_, i) => (s?.multiplier as number) * f(i + 1)));
    else expect(s?.method).to.match(/^blend\(/);
    expect(c?.values.length).to.equal(120);
  });

  it("each candidate's windowMax is its own forecast's maximum over the first window, by hand (what serving it alone gives)", () => {
    const n = x.length;
    for (const windowSeconds of [1800, 3600]) {
      const c = calibrateWindowMax(input, { target: 0.9, windowSeconds });
      const w = windowSeconds / 60;
      const byHand: Record<string, number> = {
        'recent max': maxOf(x, n - 60, n - 1),
        'same window 1 day ago': maxOf(x, n - 1440, n - 1440 + w - 1),
        'max(same window 1 day ago, recent max)': Math.max(maxOf(x, n - 60, n - 1), maxOf(x, n - 1440, n - 1440 + w - 1)),
      };
      for (const [method, expected] of Object.entries(byHand)) expect(candidate(c?.summary, method).windowMax, `${method} over ${w} samples`).to.equal(expected);
      // The served forecast is the chosen candidate × its multiplier, so its first window's maximum is too.
      const chosen = candidate(c?.summary, c?.summary.method ?? '');
      expect(Math.max(...Array.from(c?.values ?? []).slice(0, w))).to.equal(chosen.multiplier * chosen.windowMax);
    }
  });

  it('the guard: when the last day is rougher than the week, its own rank at the target sets the margin', () => {
    // Six quiet days (20 + noise below 1) and one spiky one: over the whole backtest the spiky windows are a
    // seventh, so the rank at 0.95 falls among quiet ones; over the last day alone the rank at 0.9 is a spike.
    let seed = 7;
    const u = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const n = 7 * 1440;
    const y = Float64Array.from({ length: n }, (_, i) => (i < n - 1440 ? 20 + u() : 20 + 30 * u() ** 8));
    const spiky = { values: y, intervalSeconds: 60, periodSeconds: null, horizon: 120 };
    const multipliers: number[] = [];
    for (const cfg of [{ target: 0.9, windowSeconds: 3600 }, { target: 0.9, windowSeconds: 3600, guardSeconds: 0 }, { target: 0.9, windowSeconds: 3600, guardSeconds: 6 * 3600 }]) {
      const c = calibrateWindowMax(spiky, cfg);
      const naive = naiveCandidate(y, cfg, START, recentMax(y, 60));
      expectCandidate(candidate(c?.summary, 'recent max'), naive);
      expectCandidate(candidate(c?.summary, 'same window 1 day ago'), naiveCandidate(y, cfg, START, yesterday(y)));
      multipliers.push(naive.multiplier);
      // The last hour's maximum needs the least slack here, and is served flat, times its multiplier.
      expect(c?.summary.method).to.equal('recent max');
      expect(Array.from(c?.values ?? [])).to.deep.equal(new Array<number>(120).fill(naive.multiplier * maxOf(y, n - 60, n - 1)));
    }
    // The guard raised the margin (the default day and six hours alike), so the cases above test it.
    expect(multipliers[0]).to.be.above(multipliers[1] as number);
    expect(multipliers[2]).to.be.above(multipliers[1] as number);
  });

  it("the blend: its score is its weights' mix of the ingredients' maxima, and no weights on the grid do better", () => {
    const cfg = { target: 0.9, windowSeconds: 3600 };
    const c = calibrateWindowMax(input, cfg);
    const s = c?.summary;
    const n = x.length;
    // The ingredients here: the last hour's and quarter hour's maxima, yesterday's window (per cut, and over the
    // first and second hour after the last sample).
    const ingredients: Record<string, { at: (cut: number, w: number) => number; block: (b: number) => number }> = {
      'recent max': { at: (cut) => maxOf(x, cut - 59, cut), block: () => maxOf(x, n - 60, n - 1) },
      'recent max (quarter)': { at: (cut) => maxOf(x, cut - 14, cut), block: () => maxOf(x, n - 15, n - 1) },
      'same window 1 day ago': { at: (cut, w) => maxOf(x, cut - 1439, cut - 1440 + w), block: (b) => maxOf(x, n - 1440 + 60 * b, n - 1440 + 60 * b + 59) },
    };
    const blend = /^blend\((.*)\)$/.exec(s?.method ?? '');
    expect(blend, s?.method).to.not.equal(null);
    const parts = (blend?.[1] ?? '').split(', ').map((part) => {
      const [, wt, name] = /^([0-9.]+) (.*)$/.exec(part) ?? [];
      expect(ingredients, part).to.have.property(name as string);
      expect(Number(wt), part).to.be.above(0);
      return { wt: Number(wt), ing: ingredients[name as string] as (typeof ingredients)[string] };
    });
    expect(parts.length).to.be.at.least(2);
    expect(parts.reduce((a, p) => a + p.wt, 0)).to.be.closeTo(1, 1e-9);
    const naive = naiveCandidate(x, cfg, START, (cut, w) => parts.reduce((a, p) => a + p.wt * p.ing.at(cut, w), 0));
    expectCandidate(candidate(s, s?.method ?? ''), naive);
    // Served: over each hour of the horizon, the weighted sum of the ingredients' maxima over that hour.
    for (const b of [0, 1]) {
      const v = naive.multiplier * parts.reduce((a, p) => a + p.wt * p.ing.block(b), 0);
      for (let h = 60 * b; h < 60 * b + 60; h++) expect(c?.values[h], `h ${h}`).to.be.closeTo(v, 1e-9);
    }
    // Every weight vector in tenths over the three ingredients, scored the naive way: none beats the blend by
    // more than rounding.
    const list = Object.values(ingredients);
    for (let a = 0; a <= 10; a++) {
      for (let b = 0; a + b <= 10; b++) {
        const wts = [a / 10, b / 10, (10 - a - b) / 10];
        const other = naiveCandidate(x, cfg, START, (cut, w) => wts.reduce((acc, wt, i) => acc + wt * (list[i] as (typeof list)[number]).at(cut, w), 0));
        expect(other.slack, wts.join(' ')).to.be.at.least(naive.slack - 1e-6);
      }
    }
  });

  it('a constant load: every mix ties, and the plain last-hour maximum is kept, not a blend', () => {
    const flat = calibrateWindowMax({ values: new Float64Array(3 * 1440).fill(4), intervalSeconds: 60, periodSeconds: null, horizon: 60 }, { target: 0.9, windowSeconds: 3600 });
    expect(flat?.summary.method).to.equal('recent max');
    expect(flat?.summary.candidates.map((x) => x.method)).to.deep.equal(['recent max', 'same window 1 day ago', 'max(same window 1 day ago, recent max)']);
  });

  it('a candidate no multiplier can make cover (a forecast of zero under load) is left out', () => {
    // Day 0 idle, then load: yesterday's window forecasts 0 for a day of windows with load.
    const y = walk(3 * 1440, 6);
    y.fill(0, 0, 1440);
    const c = calibrateWindowMax({ values: y, intervalSeconds: 60, periodSeconds: null, horizon: 60 }, { target: 0.9, windowSeconds: 3600 });
    const methods = c?.summary.candidates.map((m) => m.method) ?? [];
    expect(methods).to.include('recent max');
    expect(methods).to.not.include('same window 1 day ago');
    for (const m of c?.summary.candidates ?? []) expect(Number.isFinite(m.multiplier), m.method).to.equal(true);
  });

  it('guard off means off: a spike in the very last window does not raise the margin', () => {
    const y = walk(3 * 1440, 5);
    y.fill(200, y.length - 30);
    const cfg = { target: 0.9, windowSeconds: 3600, guardSeconds: 0 };
    const c = calibrateWindowMax({ values: y, intervalSeconds: 60, periodSeconds: null, horizon: 60 }, cfg);
    const naive = naiveCandidate(y, cfg, START, recentMax(y, 60));
    expectCandidate(candidate(c?.summary, 'recent max'), naive);
    // The premise: with a guard over that last window alone, the margin would be the spike's ratio.
    const lastRatio = 200 / maxOf(y, y.length - 120, y.length - 61);
    expect(naive.multiplier).to.be.below(lastRatio);
  });

  it('a candidate needs 20 backtest windows: 19 is too few (null), 20 is enough', () => {
    // One hour windows, stride 15, the last hour's maximum from cut 59: n = 405 gives cuts 344, 329, ..., 59.
    const enough = calibrateWindowMax({ values: walk(405, 2), intervalSeconds: 60, periodSeconds: null, horizon: 60 }, { target: 0.9, windowSeconds: 3600 });
    expect(enough?.summary.backtestWindows).to.equal(20);
    // Twenty windows: the conformal rank ⌈21 × 0.95⌉ = 20 is the largest ratio, still exact.
    expect(enough?.summary.exact).to.equal(true);
    expect(calibrateWindowMax({ values: walk(404, 2), intervalSeconds: 60, periodSeconds: null, horizon: 60 }, { target: 0.9, windowSeconds: 3600 })).to.equal(null);
  });

  it('too few windows for the rank: the largest ratio, marked not exact', () => {
    // 20 windows at level 0.99: rank ⌈21 × 0.99⌉ = 21 > 20.
    const c = calibrateWindowMax({ values: walk(405, 2), intervalSeconds: 60, periodSeconds: null, horizon: 60 }, { target: 0.9, windowSeconds: 3600, level: 0.99 });
    expect(c?.summary.exact).to.equal(false);
    const x405 = walk(405, 2);
    const ratios = Array.from({ length: 20 }, (_, k) => 344 - 15 * k).map((cut) => maxOf(x405, cut + 1, cut + 60) / maxOf(x405, cut - 59, cut));
    expect(candidate(c?.summary, 'recent max').multiplier).to.equal(Math.max(...ratios));
  });

  it('a periodic model: scored where its out-of-sample forecast exists, over all its history, served from its one period', () => {
    // Nine days; the model's backtest forecast is perfect (the values themselves) but missing for the first
    // three days. Its production forecast is one period of 1440 samples, repeated over a longer horizon.
    const n = 9 * 1440;
    const y = walk(n, 3);
    const backtest = Float64Array.from(y, (v, i) => (i < 3 * 1440 ? Number.NaN : v));
    const onePeriod = Float64Array.from({ length: 1440 }, (_, i) => 1 + (i % 7));
    const c = calibrateWindowMax(
      { values: y, intervalSeconds: 60, periodSeconds: DAY, horizon: 1500, models: [{ name: 'model', backtest, onePeriod }] },
      { target: 0.9, windowSeconds: 3600 },
    );
    // Cuts every 15 samples from 12899 down to the first whose window the model covers (4319), none dropped
    // for the week a non-periodic backtest is limited to: (12899 − 4319)/15 + 1 = 573.
    expect(c?.summary.backtestWindows).to.equal(573);
    expect(c?.summary.method).to.equal('model');
    expect(c?.summary.multiplier).to.equal(1);
    expect(c?.summary.backtestSlack).to.equal(0);
    // Served from the one period, floored like every candidate at FORECAST_FLOOR_SHARE of the history's mean.
    const floor = (FORECAST_FLOOR_SHARE * y.reduce((a, b) => a + b, 0)) / n;
    expect(floor).to.be.above(1).and.below(7);
    expect(Array.from(c?.values ?? [])).to.deep.equal(Array.from({ length: 1500 }, (_, h) => Math.max(floor, 1 + ((h % 1440) % 7))));
    // Its maximum with the last hour's is a candidate too, scored on the same windows.
    const cand = candidate(c?.summary, 'max(model, recent max)');
    const naive = naiveCandidate(y, { target: 0.9, windowSeconds: 3600, backtestSeconds: Infinity }, 4319, (cut, w) => Math.max(recentMax(y, 60)(cut), maxOf(y, cut + 1, cut + w)));
    expect(naive.cuts.length).to.equal(573);
    expectCandidate(cand, naive);
  });

  it('floors every candidate at a share of the mean, so a forecast of ~0 before a rise earns no runaway multiplier', () => {
    // A 3-hour outage (0.001) twice a day in a load of 10: at the cuts where the last hour was all outage and the
    // next has load, "recent max" forecast 0.001 against 10 (ratio 10,000 on 8 % of the windows, more than the
    // level forgives). Floored at a tenth of the mean it still needs ×11: more than MAX_MULTIPLIER, so it is
    // not served, and the day-ago window (which saw the same outage) is.
    const n = 8 * 1440;
    const y = Float64Array.from({ length: n }, (_, i) => (i % 720 >= 300 && i % 720 < 480 ? 0.001 : 10 + (i % 7) / 7));
    const c = calibrateWindowMax({ values: y, intervalSeconds: 60, periodSeconds: null, horizon: 120 }, { target: 0.9, windowSeconds: 3600 });
    const methods = (c?.summary.candidates ?? []).map((x) => x.method);
    expect(methods).to.include('same window 1 day ago');
    expect(methods).to.not.include('recent max');
    for (const cand of c?.summary.candidates ?? []) expect(cand.multiplier, cand.method).to.be.at.most(MAX_MULTIPLIER);
    expect(c?.summary.multiplier).to.be.at.most(1.2);
    const mean = y.reduce((a, b) => a + b, 0) / n;
    expect(Math.min(...(c?.values ?? [0]))).to.be.at.least(FORECAST_FLOOR_SHARE * mean);
    expect(Math.max(...(c?.values ?? [Infinity]))).to.be.at.most(12);
  });

  it('does not serve a candidate that needs more than MAX_MULTIPLIER to cover its windows', () => {
    // One isolated spike of 100 on a flat 1: no candidate's forecast covers its windows, and each needs ×100
    // to; at a 0.999 level (with no room for a miss in a week of windows) those windows count, so none may be
    // served.
    const n = 8 * 1440;
    const y = Float64Array.from({ length: n }, (_, i) => (i === n - 2000 ? 100 : 1));
    const strict = calibrateWindowMax({ values: y, intervalSeconds: 60, periodSeconds: null, horizon: 120 }, { target: 0.98, windowSeconds: 3600, level: 0.999, guardSeconds: 0 });
    expect(strict, 'nothing calibrated: the caller keeps its uncalibrated forecast').to.equal(null);
    expect(calibrateOrExplain({ values: y, intervalSeconds: 60, periodSeconds: null, horizon: 120 }, { target: 0.98, windowSeconds: 3600, level: 0.999, guardSeconds: 0 })).to.deep.equal({
      reason: `every candidate needs more than ×${MAX_MULTIPLIER} to cover its backtest windows, so none is calibrated`,
    });
    // At the default level the spike windows are the misses the target allows: served at ×1.
    const usual = calibrateWindowMax({ values: y, intervalSeconds: 60, periodSeconds: null, horizon: 120 }, { target: 0.9, windowSeconds: 3600 });
    expect(usual?.summary.multiplier).to.be.at.most(MAX_MULTIPLIER);
    expect(Math.max(...(usual?.values ?? [Infinity]))).to.be.below(5);
  });

  it('a weekly period makes the same window a week ago a candidate of its own; otherwise it only feeds the blend', () => {
    const n = 15 * 1440;
    const y = walk(n, 4);
    const lastWeek = (cut: number, w: number) => maxOf(y, cut - 10_080 + 1, cut - 10_080 + w);
    const cfg = { target: 0.9, windowSeconds: 3600 };
    const weekly = calibrateWindowMax({ values: y, intervalSeconds: 60, periodSeconds: 7 * DAY, horizon: 120 }, cfg);
    // All candidates start where the week-ago window exists: cut 10,079.
    expectCandidate(candidate(weekly?.summary, 'same window 7 days ago'), naiveCandidate(y, cfg, 10_079, lastWeek));
    expectCandidate(
      candidate(weekly?.summary, 'max(same window 7 days ago, recent max)'),
      naiveCandidate(y, cfg, 10_079, (cut, w) => Math.max(lastWeek(cut, w), recentMax(y, 60)(cut))),
    );
    expectCandidate(candidate(weekly?.summary, 'recent max'), naiveCandidate(y, cfg, 10_079, recentMax(y, 60)));
    // Two days back feeds the blend only, whatever the period.
    expect(weekly?.summary.candidates.map((x) => x.method)).to.not.include('same window 2 days ago');
    const daily = calibrateWindowMax({ values: y, intervalSeconds: 60, periodSeconds: DAY, horizon: 120 }, cfg);
    // The plain candidates, exactly, in order (the blend, last, is checked above): no 2- or 7-day window of its
    // own and no maximum of one with the last hour's.
    const plain = (c: typeof daily) => (c?.summary.candidates.map((x) => x.method) ?? []).filter((m) => !m.startsWith('blend('));
    expect(plain(daily)).to.deep.equal(['recent max', 'same window 1 day ago', 'max(same window 1 day ago, recent max)']);
    expect(plain(weekly)).to.deep.equal([
      'recent max',
      'same window 1 day ago',
      'max(same window 1 day ago, recent max)',
      'same window 7 days ago',
      'max(same window 7 days ago, recent max)',
    ]);
  });

  it('rejects a target or a level outside (0, 1)', () => {
    for (const bad of [{ target: 0 }, { target: 1, level: 0.95 }, { target: Number.NaN }]) {
      expect(() => calibrateWindowMax(input, { windowSeconds: 3600, ...bad }), JSON.stringify(bad)).to.throw(RangeError, 'coverage target must be in (0, 1)');
    }
    for (const bad of [{ target: 0.9, level: 1 }, { target: 0.9, level: 0 }]) {
      expect(() => calibrateWindowMax(input, { windowSeconds: 3600, ...bad }), JSON.stringify(bad)).to.throw(RangeError, 'conformal level must be in (0, 1)');
    }
  });
});
