// bench/calibration-replay.ts: recorded calibration inputs replayed through calibrateWindowMax give exactly the
// pairs the rolling-origin evaluation (bench/rolling-origin.ts rollingPairs) computes by refitting every cut,
// so a variant of the calibration can be judged on the replay alone.
import { expect } from 'chai';
import { autoLeast, recordTrace, replayCandidates, replayTrace, RIVALS, verdictStability } from '../../bench/calibration-replay.ts';
import type { WindowPair } from '../../src/prediction/dsp/window-coverage.ts';
import { rollingPairs, type RollingOptions } from '../../bench/rolling-origin.ts';
import { calibrateWindowMax } from '../../src/prediction/dsp/window-calibration.ts';

const DAY = 86_400;
const STEP = 300;
// Eight days at 5 minutes from an epoch-scale start (where the cut lookup once went wrong): a daily wave, a
// level that steps up on day 6, and deterministic jitter.
const start = 1_700_000_000;
const timestamps = Array.from({ length: (8 * DAY) / STEP }, (_, i) => start + i * STEP);
const values = timestamps.map((t, i) => {
  const day = (t - start) / DAY;
  return 10 + 4 * Math.sin((2 * Math.PI * (t % DAY)) / DAY) + (day >= 6 ? 3 : 0) + ((i * 7919) % 11) / 10;
});
const series = { timestamps, values };
const options: RollingOptions = {
  windowsSeconds: [1800, 3600],
  spanSeconds: 6 * 3600,
  strideSeconds: 3600,
  historySeconds: 15 * DAY,
  intervalSeconds: STEP,
  seed: 1,
  coverage: 0.9,
};

describe('calibration replay (bench/calibration-replay.ts)', function () {
  this.timeout(60_000);
  let recorded: ReturnType<typeof recordTrace> = [];
  let official: ReturnType<typeof rollingPairs>;
  before(() => {
    recorded = recordTrace(series, options);
    official = rollingPairs(series, options);
  });

  it('replays the shipped calibration to exactly the rolling-origin pairs of auto and every rival', () => {
    expect(recorded.length).to.equal(official.cuts).and.to.be.greaterThan(4);
    // The periodic path: the model and Crane's shape are among the recorded inputs.
    expect(recorded.every((c) => c.windows.every((w) => (w.input.models ?? []).map((m) => m.name).join() === 'model,crane shape'))).to.equal(true);
    const replayed = replayTrace(recorded);
    for (const w of options.windowsSeconds) {
      const got = replayed[w] as NonNullable<(typeof replayed)[number]>;
      const want = official.pairs[w] as NonNullable<(typeof official.pairs)[number]>;
      expect(got.auto).to.deep.equal(want.auto);
      expect(got.auto.length).to.be.greaterThan(4);
      for (const r of RIVALS) expect(got[r], r).to.deep.equal(want[r]);
    }
  });

  it('a calibration that declines (null) serves the uncalibrated forecast: the evaluation\'s "auto (before)"', () => {
    const replayed = replayTrace(recorded, () => null);
    for (const w of options.windowsSeconds) expect(replayed[w]?.auto).to.deep.equal(official.pairs[w]?.['auto (before)']);
  });

  it('--candidates: each family served alone; where calibrated auto chose a family, its pair is auto\'s own', () => {
    const byFamily = replayCandidates(recorded);
    const auto = replayTrace(recorded);
    for (const w of options.windowsSeconds) {
      const fams = byFamily[w] ?? {};
      const autoPairs = auto[w]?.auto ?? [];
      // Families scored at every cut point only, so every column lines up with auto's.
      expect(Object.keys(fams)).to.include.members(['recent max', 'model']);
      for (const pairs of Object.values(fams)) expect(pairs.map((p) => p.actualMax)).to.deep.equal(autoPairs.map((p) => p.actualMax));
      let matched = 0;
      recorded.forEach((c, i) => {
        const win = c.windows.find((x) => x.windowSeconds === w);
        if (!win || win.actualMax === undefined) return;
        const chosen = calibrateWindowMax(win.input, { target: c.coverage, windowSeconds: w })?.summary.method ?? '';
        const fam = fams[chosen.startsWith('blend(') ? 'blend' : chosen];
        if (!fam) return;
        expect(fam[i]?.forecastMax, `${w} s, cut ${i}, ${chosen}`).to.equal(autoPairs[i]?.forecastMax);
        matched++;
      });
      expect(matched).to.be.greaterThan(4);
    }
  });

  it('uses the variant it is given: doubling the calibrated forecast doubles every auto window maximum', () => {
    const doubled = replayTrace(recorded, (input, config) => {
      const r = calibrateWindowMax(input, config);
      return r && { ...r, values: r.values.map((v) => 2 * v) };
    });
    const plain = replayTrace(recorded);
    for (const w of options.windowsSeconds) {
      const a = doubled[w]?.auto ?? [];
      const b = plain[w]?.auto ?? [];
      expect(a.length).to.equal(b.length);
      a.forEach((p, i) => expect(p.forecastMax).to.equal(2 * (b[i]?.forecastMax as number)));
      expect(doubled[w]?.crane).to.deep.equal(plain[w]?.crane);
    }
  });
});

describe('calibration replay --stability (verdictStability)', () => {
  // 48 windows like the evaluation's two days; actual maxima vary so that scaling matters.
  const actual = Array.from({ length: 48 }, (_, i) => 10 + ((i * 37) % 13));
  const wobble = (i: number) => 1 + ((i * 53) % 17) / 20; // 1.0 … 1.8, no pattern a constant divides out
  const column = (f: (i: number) => number): WindowPair[] => actual.map((a, i) => ({ forecastMax: a * f(i), actualMax: a }));
  const methods = (auto: (i: number) => number, rival: (i: number) => number) =>
    Object.fromEntries([['auto', column(auto)], ...RIVALS.map((r) => [r, column(rival)])]) as Record<'auto' | (typeof RIVALS)[number], WindowPair[]>;

  it('a forecast of the exact peak beats noisy rivals on both days and on every resample', () => {
    const v = verdictStability(methods(() => 1, wobble), { resamples: 200 });
    expect(v).to.deep.equal({ least: true, leastFirstHalf: true, leastSecondHalf: true, leastShare: 1, coveredShare: 1 });
  });

  it('a forecast exact on day 1 and noisy on day 2 against a rival the other way round: the days disagree and the resamples split', () => {
    const v = verdictStability(methods((i) => (i < 24 ? 1 : wobble(i)), (i) => (i < 24 ? wobble(i) : 1)), { resamples: 400 });
    expect([v.leastFirstHalf, v.leastSecondHalf]).to.deep.equal([true, false]);
    expect(v.leastShare).to.be.greaterThan(0.05).and.lessThan(0.95);
    expect(v.coveredShare).to.equal(1);
  });

  it('coverage: 6 of 48 windows under the peak is 87.5 %, so most resamples fall short of 90 % and some do not', () => {
    const under = new Set([3, 11, 19, 27, 35, 43]);
    const v = verdictStability(methods((i) => (under.has(i) ? 0.8 : 1), wobble), { resamples: 400 });
    expect(v.coveredShare).to.be.greaterThan(0).and.lessThan(0.5);
  });

  it('is reproducible from its seed, and autoLeast ignores a rival never scored', () => {
    const m = methods((i) => (i < 24 ? 1 : wobble(i)), (i) => (i < 24 ? wobble(i) : 1));
    expect(verdictStability(m, { seed: 7 })).to.deep.equal(verdictStability(m, { seed: 7 }));
    const noCrane = { ...methods(() => 1, wobble), crane: [] };
    expect(autoLeast(noCrane, [0, 1, 2, 3])).to.equal(true);
  });

  it('refuses rivals scored on other windows than auto', () => {
    const m = methods(() => 1, wobble);
    expect(() => verdictStability({ ...m, 'last value': m['last value'].slice(1) })).to.throw(RangeError, /same windows/);
  });
});
