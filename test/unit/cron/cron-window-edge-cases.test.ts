// Edge cases of the cron window (src/cron/cron-window.ts). Expected values are worked out by hand from upstream:
//   - robfig/cron v3.0.1 spec.go SpecSchedule.Next: the first match at or after t's next whole second, on wall-clock
//     fields in the schedule's location, stepping hours with Add(1h) (so DST changes are crossed in real time), and
//     giving up once the year passes t's year + 5; constantdelay.go for `@every`;
//   - gocrane/crane pkg/metricprovider/cron_trigger.go IsActive (docs/crane-behaviour.md §C.5.1): active exactly when
//     the next end comes no later than the next start.
// Window answers are asserted only where starts and ends alternate around the instant (so Crane's rule and our window
// form agree, §C.7), and DST cases only use wall times that exist once (gaps and repeats are our own rule).
import { expect } from 'chai';
import { cronWindowActiveUncached, nextCronOccurrence, validateCronWindow, CronWindowError, type CronWindowSpec } from '../../../src/cron/cron-window.ts';
import { at, fresh } from './cron-test-helpers.ts';

/** cronWindowActive without its state cache; `@every` sides are passed as written (no trailing blanks allowed). */
function active(start: string, end: string, iso: string, timezone?: string): boolean {
  const spell = (e: string) => (e.startsWith('@every') ? e : fresh(e));
  const cron: CronWindowSpec = { start: spell(start), end: spell(end), ...(timezone === undefined ? {} : { timezone }) };
  return cronWindowActiveUncached(cron, at(iso), 'UTC');
}

/** robfig's Next(t) for `expr` in `zone`, as an ISO string. */
function next(expr: string, iso: string, zone: string): string | undefined {
  const t = nextCronOccurrence(fresh(expr), at(iso), zone);
  return t === undefined ? undefined : new Date(t).toISOString();
}

describe('cron window edge cases: schedules that differ in one detail are two schedules (Crane IsActive)', () => {
  // Only the same instants make a cron active at every instant (§C.7); these pairs differ in one day, weekday,
  // month, minute or hour, so they form ordinary windows. 2026-01-01 is a Thursday, 2026-01-05 a Monday.
  // [start, end, closed at, why closed, open at, why open]
  const rows: [string, string, string, string, string, string][] = [
    ['0 0 1,31 * *', '0 0 1 * *', '2026-01-15T12:00:00Z', 'next start Jan 31 before next end Feb 1',
      '2026-01-31T12:00:00Z', 'next start and next end both Feb 1'],
    ['0 9 * * 1,6', '0 9 * * 1', '2026-01-07T12:00:00Z', 'next start Sat Jan 10 before next end Mon Jan 12',
      '2026-01-10T12:00:00Z', 'next start and next end both Mon Jan 12'],
    ['0 0 1 * *', '0 0 2 * *', '2026-01-15T12:00:00Z', 'next start Feb 1 before next end Feb 2',
      '2026-01-01T12:00:00Z', 'next end Jan 2 before next start Feb 1'],
    // Day of month and day of week both restricted: robfig ORs them (spec.go dayMatches).
    ['0 0 1 * 1', '0 0 1 * 2', '2026-01-07T12:00:00Z', '1st or Monday vs 1st or Tuesday: next start Mon Jan 12 before next end Tue Jan 13',
      '2026-01-05T12:00:00Z', 'next end Tue Jan 6 before next start Mon Jan 12'],
    // `1 * 0-6` is "the 1st or any weekday", i.e. every day; `1 * *` is the 1st only (the star makes it AND).
    ['0 0 1 * 0-6', '0 0 1 * *', '2026-01-01T12:00:00Z', 'daily vs monthly: next start Jan 2 before next end Feb 1',
      '2026-01-31T12:00:00Z', 'next start and next end both Feb 1'],
    ['0 0 1 1 *', '0 0 1 2 *', '2026-03-15T00:00:00Z', 'next start 2027-01-01 before next end 2027-02-01',
      '2026-01-15T00:00:00Z', 'next end Feb 1 before next start 2027-01-01'],
    ['1,23 9 * * *', '1,2,3 9 * * *', '2026-01-05T09:10:00Z', 'next start 09:23 before next end 09:01 tomorrow',
      '2026-01-05T09:30:00Z', 'next start and next end both 09:01 tomorrow'],
    ['0 1,23 * * *', '0 1,2,3 * * *', '2026-01-05T10:00:00Z', 'next start 23:00 before next end 01:00 tomorrow',
      '2026-01-05T23:30:00Z', 'next start and next end both 01:00 tomorrow'],
  ];
  for (const [start, end, closedAt, whyClosed, openAt, whyOpen] of rows) {
    it(`${start} → ${end}: closed at ${closedAt}, open at ${openAt}`, () => {
      expect(active(start, end, closedAt), whyClosed).to.equal(false);
      expect(active(start, end, openAt), whyOpen).to.equal(true);
    });
  }
});

describe('cron window edge cases: the latest start opens the window', () => {
  it('two windows an hour: 09:00–09:15 and 09:30–09:45', () => {
    const [start, end] = ['0,30 9 * * *', '15,45 9 * * *'];
    expect(active(start, end, '2026-01-05T09:10:00Z'), 'next end 09:15 before next start 09:30').to.equal(true);
    expect(active(start, end, '2026-01-05T09:20:00Z'), 'next start 09:30 before next end 09:45').to.equal(false);
    expect(active(start, end, '2026-01-05T09:35:00Z'), 'next end 09:45 before next start 09:00 tomorrow').to.equal(true);
    expect(active(start, end, '2026-01-05T09:50:00Z'), 'next start 09:00 before next end 09:15 tomorrow').to.equal(false);
  });
});

describe('cron window edge cases: Next is strictly after now, at whole seconds (spec.go Next)', () => {
  // [expression, now, next occurrence]
  const rows: [string, string, string][] = [
    ['0 9 * * *', '2026-01-05T09:00:00.000Z', '2026-01-06T09:00:00.000Z'],
    ['0 9 * * *', '2026-01-05T09:00:00.999Z', '2026-01-06T09:00:00.000Z'],
    ['0 9 * * *', '2026-01-05T08:59:59.000Z', '2026-01-05T09:00:00.000Z'],
    ['0 9 * * *', '2026-01-05T08:59:59.999Z', '2026-01-05T09:00:00.000Z'],
    // Minutes named out of order: the earliest after now still comes first.
    ['30,10 * * * *', '2026-01-05T12:00:00.000Z', '2026-01-05T12:10:00.000Z'],
    ['30,10 * * * *', '2026-01-05T12:10:00.000Z', '2026-01-05T12:30:00.000Z'],
  ];
  for (const [expr, now, want] of rows) {
    it(`${expr} after ${now} → ${want}`, () => {
      expect(next(expr, now, 'UTC')).to.equal(want);
    });
  }

  it('a start at exactly now is behind it: with an @every end the cron is active (Crane compares the next ones)', () => {
    // At 09:00:00 the next start is tomorrow 09:00 and the next end 10:00, so the end comes first.
    expect(active('0 9 * * *', '@every 1h', '2026-01-05T09:00:00Z')).to.equal(true);
    // A second earlier the start (09:00:00) comes before the end (09:59:59).
    expect(active('0 9 * * *', '@every 1h', '2026-01-05T08:59:59Z')).to.equal(false);
  });
});

describe('cron window edge cases: days that change offset (spec.go Next on wall-clock time)', () => {
  // [expression, now, zone, next occurrence, why]
  const rows: [string, string, string, string, string][] = [
    ['30 0 * * *', '2026-03-28T22:45:00Z', 'Europe/Berlin', '2026-03-28T23:30:00.000Z',
      '00:30 CET on 2026-03-29, before that day\'s 02:00 → 03:00 change'],
    ['0 12 * * *', '2026-03-29T00:00:00Z', 'Europe/Berlin', '2026-03-29T10:00:00.000Z', '12:00 CEST after the change'],
    ['30 1 * * *', '2026-10-03T12:00:00Z', 'Australia/Sydney', '2026-10-03T15:30:00.000Z',
      '01:30 AEST (+10) on 2026-10-04, before that day\'s 02:00 → 03:00 change'],
    ['0 12 * * *', '2026-10-03T12:00:00Z', 'Australia/Sydney', '2026-10-04T01:00:00.000Z', '12:00 AEDT (+11) after the change'],
    // Nuuk, 2022: −02 until 01:00Z on Oct 30, when 23:00 Saturday becomes 22:00 (−03); 23:30 then comes once, at −03.
    ['30 23 * * *', '2022-10-29T12:00:00Z', 'America/Nuuk', '2022-10-30T02:30:00.000Z',
      '23:30 −03 on the Saturday the clocks went back at 23:00'],
    // Lord Howe springs forward 30 minutes (02:00 → 02:30, +10:30 → +11) on 2026-10-04: 02:20 does not exist that
    // day, 02:35 does and comes first.
    ['20,35 2 * * *', '2026-10-03T14:00:00Z', 'Australia/Lord_Howe', '2026-10-03T15:35:00.000Z',
      '02:35 +11, the first 02:xx of the day that exists'],
    // UTC+14: local midnight is 10:00Z the day before.
    ['0 1 * * *', '2026-01-05T12:00:00Z', 'Pacific/Kiritimati', '2026-01-06T11:00:00.000Z', '01:00 +14 on Jan 7'],
  ];
  for (const [expr, now, zone, want, why] of rows) {
    it(`${expr} in ${zone} after ${now} → ${want} (${why})`, () => {
      expect(next(expr, now, zone)).to.equal(want);
    });
  }

  it('finds the start of an open window when the local day is ahead of UTC (Pacific/Kiritimati, UTC+14)', () => {
    // 12:00Z on Jan 5 is 02:00 on Jan 6 there: the 01:00–05:00 window of Jan 6 is open until 15:00Z.
    const tz = 'Pacific/Kiritimati';
    expect(active('0 1 * * *', '0 5 * * *', '2026-01-05T10:59:59Z', tz), 'next start 11:00Z before next end 15:00Z').to.equal(false);
    expect(active('0 1 * * *', '0 5 * * *', '2026-01-05T12:00:00Z', tz), 'next end 15:00Z before next start (Jan 6 11:00Z)').to.equal(true);
    expect(active('0 1 * * *', '0 5 * * *', '2026-01-05T15:00:00Z', tz), 'next start (Jan 6 11:00Z) before next end (Jan 6 15:00Z)').to.equal(false);
  });
});

describe('cron window edge cases: the five-year search around 2100, which is no leap year', () => {
  // After 2096-02-29 the next February 29 is 2104-02-29, eight years on.
  it('Next finds 2104-02-29 from 2099-02-24, in UTC and in UTC+14: within robfig\'s limit (year <= 2099 + 5)', () => {
    expect(next('0 0 29 2 *', '2099-02-24T00:00:00Z', 'UTC')).to.equal('2104-02-29T00:00:00.000Z');
    // The same local dates in Pacific/Kiritimati (UTC+14, no DST): 2099-02-24 02:00 there is 2099-02-23 12:00Z.
    expect(next('0 0 29 2 *', '2099-02-23T12:00:00Z', 'Pacific/Kiritimati')).to.equal('2104-02-28T10:00:00.000Z');
  });

  it('a window opened on 2096-02-29 is still open in March 2101, when the next event is its end', () => {
    // Start 2096-02-29 12:00, end 2104-02-29 00:00. On 2101-03-05 robfig's next end (2104-02-29 00:00) comes before
    // its next start (2104-02-29 12:00): active.
    expect(active('0 12 29 2 *', '0 0 29 2 *', '2101-03-05T06:00:00Z')).to.equal(true);
  });

  it('a February-29 window that closed in 2096 stays closed in 2102: the next start comes before the next end', () => {
    // Window 12:00–13:00 on February 29. On 2102-06-01 robfig's next start is 2104-02-29 12:00, its next end 13:00.
    expect(active('0 12 29 2 *', '0 13 29 2 *', '2102-06-01T00:00:00Z')).to.equal(false);
  });
});

describe('validateCronWindow', () => {
  it('throws a CronWindowError for what robfig or time.LoadLocation refuses, and nothing for a valid cron', () => {
    expect(() => validateCronWindow({ start: fresh('0 9 * * *'), end: fresh('0 17 * * *') }, 'UTC')).not.to.throw();
    expect(() => validateCronWindow({ start: fresh('0 9 * * *'), end: fresh('0 17 * * 7') }, 'UTC'))
      .to.throw(CronWindowError, /invalid cron end: .*day-of-week value 7 is above the maximum 6/)
      .with.property('name', 'CronWindowError');
    expect(() => validateCronWindow({ start: fresh('0 9 * * 1/0'), end: fresh('0 17 * * *') }, 'UTC'))
      .to.throw(CronWindowError, /invalid cron start/);
    expect(() => validateCronWindow({ start: fresh('0 9 * * *'), end: fresh('0 17 * * *'), timezone: 'Mars/Olympus' }, 'UTC'))
      .to.throw(CronWindowError, /unknown time zone "Mars\/Olympus"/);
  });
});
