// Realized coverage of published forecasts (src/prediction/controller/realized-coverage.ts) on constructed
// histories: which forecast is in force at each judged instant, which kept forecasts are dropped, and the
// pooling over series matched by label set.
import { expect } from 'chai';
import { judgeKept, judgeStrideSeconds, keepForecast, sumCounts } from '../../../../src/prediction/controller/realized-coverage.ts';
import type { HistorySeries } from '../../../../src/prometheus/series.ts';

const T0 = 1_800_000_000;
const DAY = 86_400;

/** A flat series at `value` every 60 s over [from, to]. */
function flat(labels: Record<string, string>, from: number, to: number, value: number | ((t: number) => number)): HistorySeries {
  const timestamps: number[] = [];
  for (let t = from; t <= to; t += 60) timestamps.push(t);
  return { labels, timestamps, values: timestamps.map((t) => (typeof value === 'number' ? value : value(t))) };
}

describe('realized coverage of kept forecasts', () => {
  const span = { spanSeconds: 2 * DAY };

  it('judges each instant against the forecast in force then: a covering forecast replaced by a short one', () => {
    // A (10) from before the lookback, B (5) from 12 h ago; the load is 8 all day.
    let kept = keepForecast([], [flat({ pod: 'a' }, T0 - DAY - 3600, T0 + DAY, 10)], T0 - DAY - 3600, span);
    kept = keepForecast(kept, [flat({ pod: 'a' }, T0 - DAY / 2, T0 + DAY, 5)], T0 - DAY / 2, span);
    const actual = [flat({ pod: 'a' }, T0 - 15 * DAY, T0, 8)];
    const r = judgeKept(kept, actual, { now: T0, windowSeconds: 3600, strideSeconds: 900 });
    // Instants T0 - 1 d, + 15 min, ..., T0 - 1 h: 93; those before T0 - 12 h (48) fall under A and are covered.
    expect(r).to.deep.equal({ windows: 93, covered: 48 });
  });

  it('a peak above the forecast misses exactly the windows that contain it', () => {
    const kept = keepForecast([], [flat({}, T0 - 2 * DAY, T0 + DAY, 2)], T0 - 2 * DAY, span);
    const peak = T0 - 6 * 3600;
    const actual = [flat({}, T0 - 3 * DAY, T0, (t) => (t === peak ? 3 : 1.5))];
    const r = judgeKept(kept, actual, { now: T0, windowSeconds: 3600, strideSeconds: 900 });
    // Windows (t, t + 1 h] holding the peak: t = peak - 1 h, - 45, - 30, - 15 min.
    expect(r).to.deep.equal({ windows: 93, covered: 89 });
  });

  it('matches series by label set; a series the forecast never had is not judged; metrics pool', () => {
    const kept = keepForecast([], [flat({ pod: 'a' }, T0 - 2 * DAY, T0 + DAY, 2)], T0 - 2 * DAY, span);
    const actual = [flat({ pod: 'a' }, T0 - 2 * DAY, T0, 1), flat({ pod: 'b' }, T0 - 2 * DAY, T0, 100)];
    const a = judgeKept(kept, actual, { now: T0, windowSeconds: 3600, strideSeconds: 900 });
    expect(a).to.deep.equal({ windows: 93, covered: 93 });
    expect(sumCounts([a, undefined, { windows: 7, covered: 0 }])).to.deep.equal({ windows: 100, covered: 93 });
  });

  it('keeps the forecast in force at the start of the lookback and drops older ones; trims samples to the span', () => {
    const f = (madeAt: number) => [flat({}, madeAt, madeAt + 3 * DAY, 1)];
    let kept = keepForecast([], f(T0 - 2 * DAY), T0 - 2 * DAY, { spanSeconds: DAY });
    kept = keepForecast(kept, f(T0 - DAY - 60), T0 - DAY - 60, { spanSeconds: DAY });
    kept = keepForecast(kept, f(T0 - 3600), T0 - 3600, { spanSeconds: DAY });
    kept = keepForecast(kept, f(T0), T0, { spanSeconds: DAY });
    // At T0 the lookback starts at T0 - 1 d: the forecast made at T0 - 1 d - 60 s is then in force.
    expect(kept.map((k) => k.madeAt)).to.deep.equal([T0 - DAY - 60, T0 - 3600, T0]);
    const s = kept[2]!.series.get('')!;
    expect(s.timestamps[0]).to.equal(T0);
    expect(s.timestamps[s.timestamps.length - 1]).to.equal(T0 + DAY);
    expect(s.timestamps.length).to.equal(1441);
  });

  it('keeps a forecast the span fully covers by reference (no copy), and copies only the stretch of a longer one', () => {
    const short = flat({ pod: 'a' }, T0, T0 + 3600, 3);
    const kept = keepForecast([], [short], T0, { spanSeconds: 2 * 3600 });
    const k = kept[0]!.series.get('{pod="a"}') ?? [...kept[0]!.series.values()][0]!;
    expect(k.timestamps).to.equal(short.timestamps);
    expect(k.values).to.equal(short.values);
    const long = flat({ pod: 'a' }, T0, T0 + 3 * 3600, 3);
    const cut = [...keepForecast([], [long], T0, { spanSeconds: 3600 })[0]!.series.values()][0]!;
    expect(cut.timestamps).to.not.equal(long.timestamps);
    expect(Array.from(cut.timestamps)).to.deep.equal(long.timestamps.slice(0, 61));
    expect(Array.from(cut.values)).to.deep.equal(long.values.slice(0, 61));
  });

  it('judges every quarter of min(window, 1 h), never finer than the history step', () => {
    expect(judgeStrideSeconds(3600, 60)).to.equal(900);
    expect(judgeStrideSeconds(7200, 60)).to.equal(900);
    expect(judgeStrideSeconds(600, 60)).to.equal(150);
    expect(judgeStrideSeconds(60, 60)).to.equal(60);
  });
});
