import { expect } from 'chai';
import { cronWindowActive, cronWindowActiveUncached, resolveCronZone, CronWindowError } from '../../../src/cron/cron-window.ts';
import { parseStandardCron } from '../../../src/cron/standard-cron.ts';

const at = (iso: string) => Date.parse(iso);
const active = (start: string, end: string, iso: string, timezone?: string) =>
  cronWindowActive({ start, end, ...(timezone === undefined ? {} : { timezone }) }, at(iso), 'Asia/Shanghai');

describe('cronWindowActive', () => {
  it('is active on [start, end): the crane-behaviour.md §C.5.1 example 10:15–14:15', () => {
    const s = '15 10 ? * *';
    const e = '15 14 ? * *';
    expect(active(s, e, '2026-01-05T10:14:59Z')).to.equal(false);
    expect(active(s, e, '2026-01-05T10:15:00Z')).to.equal(true);
    expect(active(s, e, '2026-01-05T13:15:00Z')).to.equal(true);
    expect(active(s, e, '2026-01-05T14:14:59.999Z')).to.equal(true);
    // Crane's own test tc3 claims 14:15:00 is active; the rule it implements says inactive (§C.5.1).
    expect(active(s, e, '2026-01-05T14:15:00Z')).to.equal(false);
    expect(active(s, e, '2026-01-05T17:00:00Z')).to.equal(false);
  });

  it('handles windows that cross midnight', () => {
    const s = '0 22 * * *';
    const e = '0 6 * * *';
    expect(active(s, e, '2026-01-05T21:59:00Z')).to.equal(false);
    expect(active(s, e, '2026-01-05T22:00:00Z')).to.equal(true);
    expect(active(s, e, '2026-01-05T23:59:59Z')).to.equal(true);
    expect(active(s, e, '2026-01-06T00:00:00Z')).to.equal(true);
    expect(active(s, e, '2026-01-06T05:59:59Z')).to.equal(true);
    expect(active(s, e, '2026-01-06T06:00:00Z')).to.equal(false);
    expect(active(s, e, '2026-01-06T12:00:00Z')).to.equal(false);
  });

  it('is always active when start and end are the same schedule, as Crane\'s `nextEnd <= nextStart` makes it', () => {
    for (const iso of ['2026-01-05T09:00:00Z', '2026-01-05T09:00:30Z', '2026-01-05T08:59:59Z', '2026-01-05T15:00:00Z']) {
      expect(active('0 9 * * *', '0 9 * * *', iso), iso).to.equal(true);
      // Same instants, other spellings: `?` for `*`, a descriptor for its fields.
      expect(active('0 9 ? * *', '00 09 * * *', iso), iso).to.equal(true);
      expect(active('@daily', '0 0 * * *', iso), iso).to.equal(true);
    }
    // Different zones make different instants: an ordinary window again.
    // (09:00 Tokyo is 00:00Z: the window runs 09:00Z → 00:00Z.)
    expect(active('0 9 * * *', 'TZ=Asia/Tokyo 0 9 * * *', '2026-01-05T02:00:00Z', 'UTC')).to.equal(false);
    expect(active('0 9 * * *', 'TZ=Asia/Tokyo 0 9 * * *', '2026-01-05T12:00:00Z', 'UTC')).to.equal(true);
  });

  it('closes a window at the first end after its start, and an end coinciding with a start empties that window', () => {
    // Daily start 09:00, end 09:00 on Mondays only: Monday's window is empty, Tuesday's runs to next Monday.
    expect(active('0 9 * * *', '0 9 * * 1', '2026-01-05T09:30:00Z')).to.equal(false); // Monday
    expect(active('0 9 * * *', '0 9 * * 1', '2026-01-06T09:30:00Z')).to.equal(true); // Tuesday
  });

  it('follows day-of-week ranges (weekday business hours; 2026-01-05 is a Monday)', () => {
    const s = '0 9 * * mon-fri';
    const e = '0 17 * * 1-5';
    expect(active(s, e, '2026-01-05T12:00:00Z')).to.equal(true); // Mon
    expect(active(s, e, '2026-01-09T16:59:00Z')).to.equal(true); // Fri
    expect(active(s, e, '2026-01-10T12:00:00Z')).to.equal(false); // Sat
    expect(active(s, e, '2026-01-11T12:00:00Z')).to.equal(false); // Sun
    expect(active(s, e, '2026-01-05T17:00:00Z')).to.equal(false);
  });

  it('runs a weekend window from Saturday 00:00 to Monday 00:00', () => {
    const s = '0 0 * * 6';
    const e = '0 0 * * 1';
    expect(active(s, e, '2026-01-09T23:59:59Z')).to.equal(false); // Fri
    expect(active(s, e, '2026-01-10T00:00:00Z')).to.equal(true); // Sat
    expect(active(s, e, '2026-01-11T23:00:00Z')).to.equal(true); // Sun
    expect(active(s, e, '2026-01-12T00:00:00Z')).to.equal(false); // Mon
  });

  it('evaluates wall-clock time in the cron time zone; unset means UTC, Local the process zone', () => {
    const s = '0 9 * * *';
    const e = '0 17 * * *';
    // 02:00Z is 10:00 in Shanghai (UTC+8), 21:00 the day before in New York.
    expect(active(s, e, '2026-01-05T02:00:00Z', 'Asia/Shanghai')).to.equal(true);
    expect(active(s, e, '2026-01-05T02:00:00Z', 'Local')).to.equal(true); // local zone given as Asia/Shanghai
    expect(active(s, e, '2026-01-05T02:00:00Z')).to.equal(false);
    expect(active(s, e, '2026-01-05T02:00:00Z', 'UTC')).to.equal(false);
    expect(active(s, e, '2026-01-05T02:00:00Z', 'America/New_York')).to.equal(false);
    expect(active(s, e, '2026-01-05T15:00:00Z', 'America/New_York')).to.equal(true); // 10:00 EST
  });

  describe('DST (America/New_York: 2026-03-08 02:00 → 03:00, 2026-11-01 02:00 → 01:00)', () => {
    const ny = 'America/New_York';
    it('keeps a 09:00–17:00 window on local wall-clock time across spring-forward', () => {
      expect(active('0 9 * * *', '0 17 * * *', '2026-03-07T14:00:00Z', ny)).to.equal(true); // 09:00 EST
      expect(active('0 9 * * *', '0 17 * * *', '2026-03-08T13:00:00Z', ny)).to.equal(true); // 09:00 EDT
      expect(active('0 9 * * *', '0 17 * * *', '2026-03-08T12:59:00Z', ny)).to.equal(false); // 08:59 EDT
      expect(active('0 9 * * *', '0 17 * * *', '2026-03-08T21:00:00Z', ny)).to.equal(false); // 17:00 EDT
    });
    it('opens a window whose start falls in the spring-forward gap just after the gap', () => {
      // 02:30 does not exist on 2026-03-08; the window 02:30–05:00 opens at 03:30 EDT (07:30Z).
      expect(active('30 2 * * *', '0 5 * * *', '2026-03-08T07:29:00Z', ny)).to.equal(false);
      expect(active('30 2 * * *', '0 5 * * *', '2026-03-08T07:30:00Z', ny)).to.equal(true);
      expect(active('30 2 * * *', '0 5 * * *', '2026-03-08T08:59:00Z', ny)).to.equal(true); // 04:59 EDT
      expect(active('30 2 * * *', '0 5 * * *', '2026-03-08T09:00:00Z', ny)).to.equal(false);
    });
    it('fires a repeated fall-back wall time once, at its first occurrence', () => {
      // 01:30 happens at 05:30Z (EDT) and again at 06:30Z (EST); the window 01:30–01:45 is the first one only.
      expect(active('30 1 * * *', '45 1 * * *', '2026-11-01T05:30:00Z', ny)).to.equal(true);
      expect(active('30 1 * * *', '45 1 * * *', '2026-11-01T05:50:00Z', ny)).to.equal(false);
      expect(active('30 1 * * *', '45 1 * * *', '2026-11-01T06:35:00Z', ny)).to.equal(false);
    });
    it('keeps a window spanning the fall-back hour open for its whole (25-hour-day) length', () => {
      // 00:00–03:00 local on 2026-11-01 lasts four real hours: 04:00Z … 08:00Z.
      expect(active('0 0 * * *', '0 3 * * *', '2026-11-01T04:00:00Z', ny)).to.equal(true);
      expect(active('0 0 * * *', '0 3 * * *', '2026-11-01T06:30:00Z', ny)).to.equal(true); // 01:30 EST (second 01:30)
      expect(active('0 0 * * *', '0 3 * * *', '2026-11-01T07:59:00Z', ny)).to.equal(true);
      expect(active('0 0 * * *', '0 3 * * *', '2026-11-01T08:00:00Z', ny)).to.equal(false);
    });
  });

  it('reads the daily schedule from the Crane EHPA tutorial (7 crons covering the day) with exactly one active', () => {
    const crons = [
      ['0 0 ? * *', '0 6 ? * *'], ['0 6 ? * *', '0 9 ? * *'], ['00 9 ? * *', '00 11 ? * *'], ['00 11 ? * *', '00 14 ? * *'],
      ['00 14 ? * *', '00 17 ? * *'], ['00 17 ? * *', '00 20 ? * *'], ['00 20 ? * *', '00 00 ? * *'],
    ] as const;
    for (let h = 0; h < 24; h++) {
      const iso = `2026-01-05T${String(h).padStart(2, '0')}:30:00Z`;
      const on = crons.map(([s, e]) => active(s, e, iso));
      expect(on.filter(Boolean).length, iso).to.equal(1);
    }
  });

  it('gives a clear error for a bad zone, bad syntax, an empty field or a date that never comes', () => {
    const bad: [Parameters<typeof cronWindowActive>[0], RegExp][] = [
      [{ start: '0 9 * * *', end: '0 17 * * *', timezone: 'Mars/Olympus' }, /unknown time zone "Mars\/Olympus"/],
      [{ start: '0 9 * *', end: '0 17 * * *' }, /invalid cron start: .*expected exactly 5 fields, found 4/],
      [{ start: '0 9 * * *', end: '0 17 * * 7' }, /invalid cron end: .*day-of-week value 7 is above the maximum 6/],
      [{ start: '0 25 * * *', end: '0 17 * * *' }, /hour value 25/],
      [{ start: '0 9 * * *', end: '' }, /cron end must not be empty/],
      [{ start: '0 9 L * *', end: '0 17 * * *' }, /invalid day-of-month value "L"/],
      [{ start: '0 0 30 2 *', end: '0 17 * * *' }, /never matches/],
      [{ start: '0 0 * * *', end: '0 0 31 4,6 *' }, /cron end "0 0 31 4,6 \*" never matches/],
      [{ start: '@every 1x', end: '0 17 * * *' }, /invalid cron start: .*failed to parse duration @every 1x/],
      [{ start: '@DAILY', end: '0 17 * * *' }, /unrecognized descriptor: @DAILY/],
    ];
    for (const [spec, re] of bad) {
      expect(() => cronWindowActive(spec, at('2026-01-05T00:00:00Z'), 'UTC'), JSON.stringify(spec)).to.throw(CronWindowError, re);
    }
  });
});

describe('parseStandardCron (robfig ParseStandard subset)', () => {
  it('expands names, steps and ? and keeps robfig star flags for the day rule', () => {
    const c = parseStandardCron('*/20 9-17/4 ? JAN,Mar mon-fri');
    expect(c.minutes).to.deep.equal([0, 20, 40]);
    expect(c.hours).to.deep.equal([9, 13, 17]);
    expect(c.months.flatMap((on, i) => (on ? [i] : []))).to.deep.equal([1, 3]);
    expect(c.daysOfWeek.flatMap((on, i) => (on ? [i] : []))).to.deep.equal([1, 2, 3, 4, 5]);
    expect(c.dayRule).to.equal('and');
    expect(parseStandardCron('5/15 3/10 * * *').minutes).to.deep.equal([5, 20, 35, 50]);
    expect(parseStandardCron('5/15 3/10 * * *').hours).to.deep.equal([3, 13, 23]);
    expect(parseStandardCron('@daily').hours).to.deep.equal([0]);
  });
  it('ORs restricted day-of-month and day-of-week (a step > 1 clears the star flag, robfig getRange)', () => {
    expect(parseStandardCron('0 0 1 * 1').dayRule).to.equal('or');
    expect(parseStandardCron('0 0 */2 * 1').dayRule).to.equal('or');
    expect(parseStandardCron('0 0 */1 * 1').dayRule).to.equal('and');
    // 2026-01-01 is a Thursday: "1st of the month or Monday" fires on Jan 1 and Jan 5.
    expect(active('0 0 1 * 1', '0 1 * * *', '2026-01-01T00:30:00Z')).to.equal(true);
    expect(active('0 0 1 * 1', '0 1 * * *', '2026-01-05T00:30:00Z')).to.equal(true);
    expect(active('0 0 1 * 1', '0 1 * * *', '2026-01-06T00:30:00Z')).to.equal(false);
  });
  it('takes a TZ= prefix as the zone', () => {
    expect(parseStandardCron('TZ=Asia/Tokyo 0 9 * * *').zone).to.equal('Asia/Tokyo');
    expect(parseStandardCron('CRON_TZ=UTC 0 9 * * *').zone).to.equal('UTC');
    // 09:00 Tokyo is 00:00Z.
    expect(active('TZ=Asia/Tokyo 0 9 * * *', 'TZ=Asia/Tokyo 0 10 * * *', '2026-01-05T00:30:00Z')).to.equal(true);
  });
  it('resolves zones', () => {
    expect(resolveCronZone(undefined, 'Europe/Paris')).to.equal('UTC');
    expect(resolveCronZone('', 'Europe/Paris')).to.equal('UTC');
    expect(resolveCronZone('Local', 'Europe/Paris')).to.equal('Europe/Paris');
  });
});

describe('cronWindowActive state cache', () => {
  // The cache keeps a window's state until its next open or close; it must answer exactly what a fresh
  // scan answers, at every minute, going forward and jumping back, in zones with DST.
  const pairs = [
    { start: '0 9 * * 1-5', end: '0 17 * * 1-5', timezone: 'Europe/Berlin' },
    { start: '0 22 * * *', end: '0 6 * * *', timezone: 'America/New_York' },
    { start: '30 2 * * *', end: '30 3 * * *', timezone: 'America/New_York' },
    { start: '0 0 28 2 *', end: '0 0 29 2 *', timezone: 'UTC' },
    { start: '*/7 * * * *', end: '*/5 * * * *' },
    { start: '0 8 * * *', end: '0 8 * * *' },
  ];
  it('agrees with the uncached scan every 7 minutes across the 2026 DST changes, and after jumps back', () => {
    let checked = 0;
    for (const from of [Date.UTC(2026, 2, 6), Date.UTC(2026, 9, 30)]) {
      for (const cron of pairs) {
        for (let t = from; t < from + 3 * 86_400_000; t += 7 * 60_000) {
          expect(cronWindowActive(cron, t, 'UTC'), `${JSON.stringify(cron)} at ${new Date(t).toISOString()}`).to.equal(cronWindowActiveUncached(cron, t, 'UTC'));
          checked++;
        }
        // Back in time: the cached span does not cover it, so it is recomputed.
        const back = from - 86_400_000 + 17 * 60_000;
        expect(cronWindowActive(cron, back, 'UTC')).to.equal(cronWindowActiveUncached(cron, back, 'UTC'));
      }
    }
    expect(checked).to.equal(2 * pairs.length * Math.ceil((3 * 1440) / 7));
  });
});
