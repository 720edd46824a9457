// Edge cases of parseStandardCron, our reimplementation of robfig/cron v3.0.1 `ParseStandard`
// (docs/crane-behaviour.md §C.5.4). Every accept/reject decision and every value below was worked out by hand from
// the upstream source, not taken from our output:
//   - robfig/cron v3.0.1 parser.go: Parse (empty text, the TZ=/CRON_TZ= prefix, strings.Fields), getField,
//     getRange ("too many slashes", "below minimum", the star bit), mustParseInt (strconv.Atoi), parseDescriptor;
//   - robfig/cron v3.0.1 constantdelay.go: Every (at least one second, whole seconds);
//   - Go time.ParseDuration (time/format.go): at most 1<<63-1 ns, or exactly -1<<63 when negative.
// Error texts are ours; where a test looks at one, it checks the part that carries robfig's reason.
import { expect } from 'chai';
import { parseStandardCron, cronExpressionError } from '../../../src/cron/standard-cron.ts';
import { isIanaZone } from '../../../src/cron/cron-window.ts';
import { syntaxError } from './cron-test-helpers.ts';


const allFalse = (n: number) => new Array<boolean>(n).fill(false);
const allTrue = (n: number, from: number) => allFalse(n).map((_, i) => i >= from);

describe('parseStandardCron edge cases: what robfig/cron v3.0.1 rejects (parser.go getRange, mustParseInt)', () => {
  // [expression, what our message must say, robfig's reason]
  const rows: [string, RegExp, string][] = [
    ['1/2/3 * * * *', /invalid minute field "1\/2\/3"/, 'getRange: too many slashes: 1/2/3'],
    ['0 0 0 * *', /day-of-month value 0 is below the minimum 1/, 'getRange: beginning of range (0) below minimum (1)'],
    ['0 0 1 0 *', /month value 0 is below the minimum 1/, 'getRange: beginning of range (0) below minimum (1)'],
    ['a5 * * * *', /invalid minute value "a5"/, 'strconv.Atoi("a5"): invalid syntax'],
    ['5a * * * *', /invalid minute value "5a"/, 'strconv.Atoi("5a"): invalid syntax'],
    ['0 x9 * * *', /invalid hour value "x9"/, 'strconv.Atoi("x9"): invalid syntax'],
    ['*/a5 * * * *', /invalid minute step "a5"/, 'the step goes through mustParseInt too'],
    ['*/5a * * * *', /invalid minute step "5a"/, 'the step goes through mustParseInt too'],
    ['0 0 1-31/2x * *', /invalid day-of-month step "2x"/, 'the step goes through mustParseInt too'],
  ];
  for (const [expr, message, why] of rows) {
    it(`rejects ${JSON.stringify(expr)} (${why})`, () => {
      const err = syntaxError(expr);
      expect(err.message).to.match(message);
      expect(err.name).to.equal('CronSyntaxError');
    });
  }

  it('rejects an empty text with robfig\'s own words, "empty spec string" (parser.go Parse)', () => {
    expect(syntaxError('').message).to.equal('empty spec string');
  });

  it('refuses a TZ= prefix with no schedule after it (robfig slices spec[eq+1:-1] and panics; we say why)', () => {
    for (const expr of ['TZ=UTC', 'CRON_TZ=Asia/Tokyo']) {
      expect(syntaxError(expr).message, expr).to.match(/a TZ= prefix must be followed by a space and a schedule/);
    }
  });
});

describe('parseStandardCron edge cases: @every durations at the int64 limit (constantdelay.go Every, Go time.ParseDuration)', () => {
  it('accepts the largest whole hours Go accepts, 2562047h, and refuses 2562048h and 9999999999h as overflows', () => {
    // 2562047 h = 9223369200 s < (1<<63-1) ns; ParseDuration refuses v > 1<<63/unit with `time: invalid duration "…"`,
    // which parseDescriptor wraps as `failed to parse duration @every …: …`.
    expect(parseStandardCron('@every 2562047h').everyMs).to.equal(2562047 * 3600 * 1000);
    for (const d of ['2562048h', '9999999999h']) {
      expect(syntaxError(`@every ${d}`).message, d).to.match(new RegExp(`failed to parse duration @every ${d}: time: invalid duration "${d}"$`));
    }
  });

  it('accepts exactly -1<<63 ns, which Go keeps as the minimum Duration, as a one-second delay', () => {
    // ParseDuration: d = 1<<63 passes `d > 1<<63` and, being negative, returns -Duration(d) = math.MinInt64;
    // Every() raises anything below one second to one second.
    expect(parseStandardCron('@every -9223372036854775808ns').everyMs).to.equal(1000);
    expect(parseStandardCron('@every -2562047h').everyMs).to.equal(1000);
  });
});

describe('parseStandardCron edge cases: the parsed form', () => {
  it('gives dense masks (day of month 0–31, month 0–12, day of week 0–6), false where robfig has no bit', () => {
    const c = parseStandardCron('0 0 1 1 *');
    expect(c.months).to.deep.equal([false, true, ...allFalse(11)]);
    expect(c.daysOfMonth).to.deep.equal([false, true, ...allFalse(30)]);
    expect(c.daysOfWeek).to.deep.equal(new Array<boolean>(7).fill(true));
  });

  it('lists minutes and hours ascending whatever order the field names them in (robfig keeps bit sets)', () => {
    const c = parseStandardCron('45,5,30,15 17,9,13 * * *');
    expect(c.minutes).to.deep.equal([5, 15, 30, 45]);
    expect(c.hours).to.deep.equal([9, 13, 17]);
  });

  it('reports no zone without a TZ= prefix, for fields and for @every alike', () => {
    expect(parseStandardCron('0 9 * * *')).to.deep.equal({
      minutes: [0], hours: [9], daysOfMonth: allTrue(32, 1), months: allTrue(13, 1), daysOfWeek: allTrue(7, 0), dayRule: 'and',
    });
    expect(parseStandardCron('@every 5m')).to.deep.equal({
      minutes: [], hours: [], daysOfMonth: allFalse(32), months: allFalse(13), daysOfWeek: allFalse(7), dayRule: 'and', everyMs: 300_000,
    });
  });

  it('keeps the TZ= zone of an @every schedule, so a bad zone is refused as robfig refuses it', () => {
    // parser.go Parse loads the location before it looks at descriptors: `TZ=<bad> @every 5m` fails with
    // "provided bad location <bad>: unknown time zone <bad>", although Every() itself ignores the zone.
    expect(parseStandardCron('TZ=Asia/Tokyo @every 5m')).to.include({ zone: 'Asia/Tokyo', everyMs: 300_000 });
    expect(cronExpressionError('TZ=Asia/Tokyo @every 5m', isIanaZone)).to.equal(undefined);
    expect(cronExpressionError('TZ=Mars/Olympus @every 5m', isIanaZone)).to.equal('provided bad location Mars/Olympus');
    expect(cronExpressionError('CRON_TZ=Mars/Olympus 0 9 * * *', isIanaZone)).to.equal('provided bad location Mars/Olympus');
  });

  it('splits fields on runs of blanks and ignores leading and trailing ones, as strings.Fields does', () => {
    // Parse only trims after a TZ= prefix; without one, strings.Fields alone drops the outer blanks.
    for (const expr of [' 0 9 * * *', '0 9 * * * ', '  0   9\t* *\n*  ', 'TZ=UTC   0 9 * * *  ']) {
      const c = parseStandardCron(expr);
      expect([c.minutes, c.hours], JSON.stringify(expr)).to.deep.equal([[0], [9]]);
    }
  });
});
