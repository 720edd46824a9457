// The rolling-origin evaluation's pure parts (bench/rolling-origin.ts) on tiny series worked out by hand.
import { expect } from 'chai';
import { atOrBefore, baselineMax, cutPoints, forecastMax, maxIn } from '../../../bench/rolling-origin.ts';

const DAY = 86_400;

// One sample every 10 minutes for two days; value = hour of the day, except a spike of 50 at day 1 10:20.
const timestamps = Array.from({ length: 2 * 144 }, (_, i) => i * 600);
const values = timestamps.map((t) => (t === DAY + 10 * 3600 + 1200 ? 50 : Math.floor((t % DAY) / 3600)));
const s = { timestamps, values };

describe('rolling-origin evaluation', () => {
  it('window maxima are over (from, to]', () => {
    expect(maxIn(s, DAY + 10 * 3600, DAY + 11 * 3600)).to.equal(50);
    expect(maxIn(s, DAY + 10 * 3600 + 1200, DAY + 11 * 3600)).to.equal(11); // the spike is at the open end
    expect(maxIn(s, 5, 9)).to.equal(undefined);
  });
  it('cut points: every stride back from the last sample that leaves the longest window', () => {
    const last = timestamps[timestamps.length - 1] as number; // 2 days - 600
    const cuts = cutPoints(s, { spanSeconds: 3 * 3600, strideSeconds: 3600, longestWindowSeconds: 7200 });
    expect(cuts).to.deep.equal([last - 7200 - 2 * 3600, last - 7200 - 3600, last - 7200]);
  });
  it('baselines: last value, max of the last hour, same window yesterday, and the larger of the two', () => {
    // Cut at day 1 10:00, window 1 h.
    const b = baselineMax(s, DAY + 10 * 3600, 3600);
    expect(b).to.deep.equal({
      'last value': 10,
      'max last hour': 10, // (09:00, 10:00]: 9 ... 9 and 10 at 10:00
      'same window yesterday': 11, // day 0 (10:00, 11:00]: 10 ... 10 and 11 at 11:00
      'max(last hour, yesterday)': 11,
    });
    // Day 0 has no yesterday.
    expect(baselineMax(s, 3600, 3600)['same window yesterday']).to.equal(undefined);
    expect(baselineMax(s, 3600, 3600)['max(last hour, yesterday)']).to.equal(undefined);
  });
  it('at epoch-second timestamps a cut keeps its own sample (t + 1e-9 rounds to t there)', () => {
    const base = 1_422_568_800; // nyc_taxi's first cut: 2015-01-29T22:00Z
    const ts = [base - 1800, base, base + 1800];
    expect(atOrBefore(ts, base)).to.equal(1);
    expect(atOrBefore(ts, base - 1)).to.equal(0);
    expect(atOrBefore(ts, base - 1800 - 1)).to.equal(-1);
    expect(atOrBefore(ts, base + 10 * 1800)).to.equal(2);
    const epoch = { timestamps: timestamps.map((t) => t + base), values };
    const last = (epoch.timestamps[epoch.timestamps.length - 1] as number);
    expect(cutPoints(epoch, { spanSeconds: 3 * 3600, strideSeconds: 3600, longestWindowSeconds: 7200 })).to.deep.equal([last - 4 * 3600, last - 3 * 3600, last - 7200]);
    // The spike at day 1 10:20 is the last value at that cut, not the sample before it.
    expect(baselineMax(epoch, base + DAY + 10 * 3600 + 1200, 3600)['last value']).to.equal(50);
  });
  it('forecast max over (cut, cut + w]', () => {
    const f = [100, 160, 220, 280].map((timestamp, i) => ({ timestamp, value: [5, 7, 3, 9][i] as number }));
    expect(forecastMax(f, 100, 120)).to.equal(7);
    expect(forecastMax(f, 100, 180)).to.equal(9);
    expect(forecastMax(f, 280, 60)).to.equal(undefined);
  });
});
