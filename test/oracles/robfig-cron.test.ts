// Differential test: our robfig-grammar parser and occurrence search (src/cron) against robfig/cron v3.0.1,
// the library Crane parses EHPA crons with (docs/crane-behaviour.md §C.5.4), on 3,000 seeded random expressions in
// zones without DST (where both define the same instants; DST handling deliberately differs, see
// src/cron/cron-window.ts). Validity must agree, and every next occurrence must be the same millisecond. Then
// fixed lists: descriptors and `@every`; the review's parity cases (grammar corners, int64 limits, Go's blanks,
// Next's year limit); Crane's IsActive where our window follows it; and robfig's side of the differences we keep.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cronWindowActive, nextCronOccurrence, CronWindowError } from '../../src/cron/cron-window.ts';
import { cronExpressionError } from '../../src/cron/standard-cron.ts';
import { mulberry32 } from '../helpers/seeded-random.ts';
import { requireGo } from './go-toolchain.ts';

const moduleDir = fileURLToPath(new URL('./robfig-cron/', import.meta.url));
const binary = join(homedir(), '.cache', 'ehpa-adapter', 'robfig-cron-oracle-v3.0.1', 'oracle');

function buildOracle(): void {
  requireGo();
  const source = join(moduleDir, 'main.go');
  if (existsSync(binary) && statSync(binary).mtimeMs >= statSync(source).mtimeMs) return;
  mkdirSync(join(binary, '..'), { recursive: true });
  const r = spawnSync('go', ['build', '-o', binary, '.'], { cwd: moduleDir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building the robfig oracle failed:\n${r.stderr}`);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function expressions(rand: () => number, n: number): string[] {
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const value = (lo: number, hi: number, names?: string[], nameBase = 0) => {
    // Mostly in range; sometimes one past either end, to compare rejections.
    const v = rand() < 0.04 ? pick([lo - 1, hi + 1]) : int(lo, hi);
    if (names && v >= nameBase && v - nameBase < names.length && rand() < 0.3) {
      const name = names[v - nameBase] as string;
      return rand() < 0.5 ? name.toUpperCase() : name;
    }
    return String(v);
  };
  const part = (lo: number, hi: number, names?: string[], nameBase = 0) => {
    switch (int(0, 7)) {
      case 0: return pick(['*', '?']);
      case 1: return `*/${int(1, 20)}`;
      case 2: {
        const a = int(lo, hi);
        const b = rand() < 0.85 ? int(a, hi) : int(lo, a);
        return `${value(a, a, names, nameBase)}-${value(b, b, names, nameBase)}`;
      }
      case 3: return `${value(lo, hi, names, nameBase)}-${value(lo, hi, names, nameBase)}/${int(1, 6)}`;
      case 4: return `${value(lo, hi, names, nameBase)}/${int(1, 15)}`;
      default: return value(lo, hi, names, nameBase);
    }
  };
  const field = (lo: number, hi: number, names?: string[], nameBase = 0) =>
    Array.from({ length: rand() < 0.75 ? 1 : int(2, 3) }, () => part(lo, hi, names, nameBase)).join(',');
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (rand() < 0.02) {
      out.push(pick(['@daily', '@hourly', '@weekly', '@monthly', '@yearly', '@midnight', '0 9 * * 7', '0 0 0 * * *', '* * *']));
      continue;
    }
    // Keep day-of-month mostly small, so Feb and 30-day months still match often.
    out.push([field(0, 59), field(0, 23), rand() < 0.5 ? pick(['*', '?']) : field(1, 31), rand() < 0.6 ? '*' : field(1, 12, MONTHS, 1), rand() < 0.5 ? pick(['*', '?']) : field(0, 6, DAYS, 0)].join(' '));
  }
  return out;
}

describe('cron occurrences vs robfig/cron v3.0.1 (Go oracle)', function () {
  this.timeout(600_000);
  it('agrees on validity and on every next occurrence (3,000 expressions, zones without DST)', function () {
    buildOracle();
    const rand = mulberry32(74);
    const zones = ['UTC', 'Asia/Kolkata', 'Asia/Kathmandu', 'Asia/Tokyo', 'Asia/Shanghai'];
    const queries = expressions(rand, 3000).map((expr) => ({
      expr,
      zone: zones[Math.floor(rand() * zones.length)] as string,
      afterMs: Date.UTC(2020, 0, 1) + Math.floor(rand() * 10 * 365 * 86_400_000) + (rand() < 0.2 ? 0 : Math.floor(rand() * 1000)),
    }));
    const r = spawnSync(binary, { input: queries.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(r.status, r.stderr).to.equal(0);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { nextMs?: number; error?: string });
    expect(answers).to.have.length(queries.length);
    const mismatches: string[] = [];
    let valid = 0;
    let invalid = 0;
    for (const [i, q] of queries.entries()) {
      const want = answers[i]!;
      let got: number | undefined;
      let err: string | undefined;
      try {
        got = nextCronOccurrence(q.expr, q.afterMs, q.zone);
      } catch (e) {
        if (!(e instanceof CronWindowError)) throw e;
        err = e.message;
      }
      if (want.error !== undefined) {
        invalid++;
        if (err === undefined) mismatches.push(`${q.expr}: robfig rejects (${want.error}), we accept`);
      } else if (want.nextMs === 0) {
        // robfig gives up after five years; we reject such an expression up front as never matching.
        if (!(err ?? '').includes('never matches') && got !== undefined) mismatches.push(`${q.expr}: robfig never matches, we say ${got}`);
      } else {
        valid++;
        if (err !== undefined) mismatches.push(`${q.expr}: robfig accepts, we reject (${err})`);
        else if (got !== want.nextMs) mismatches.push(`${q.expr} in ${q.zone} after ${new Date(q.afterMs).toISOString()}: robfig ${new Date(want.nextMs!).toISOString()}, ours ${got === undefined ? 'none' : new Date(got).toISOString()}`);
      }
    }
    expect(mismatches.slice(0, 20), `${mismatches.length} mismatches`).to.deep.equal([]);
    // The generator must exercise both sides.
    expect(valid).to.be.greaterThan(1500);
    expect(invalid).to.be.greaterThan(50);
  });

  // Descriptors (robfig parser.go parseDescriptor): exact names, `@every <Go duration>` (constantdelay.go:
  // at least 1 s, truncated to seconds, counted from the asked time's whole second), TZ= prefixes, and the
  // spellings robfig refuses (other case, stray spaces, Go-invalid durations).
  const DESCRIPTOR_EXPRS = [
    '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly',
    '@every 1h', '@every 90s', '@every 1h30m', '@every 1.5s', '@every 2.999s', '@every 100ms', '@every 0', '@every -5m',
    '@every 1µs', '@every 1us', '@every .5h', '@every 1h0m0.5s', '@every 3000000000ns', '@every 2562047h',
    '@every 1d', '@every 5', '@every ', '@every', '@every 1h ', '@every  1h', '@every 1H', '@every 9999999999h',
    '@Daily', '@HOURLY', '@daily ', ' @daily', '@fortnightly', '@', 'TZ=Asia/Tokyo @daily', 'CRON_TZ=UTC @every 5m',
    'TZ= 0 9 * * *', 'TZ=Asia/Kolkata 30 9 * * *',
  ];
  it('agrees on descriptors, @every and TZ= prefixes (validity and next occurrence)', function () {
    buildOracle();
    const rand = mulberry32(75);
    const queries = DESCRIPTOR_EXPRS.flatMap((expr) =>
      Array.from({ length: 4 }, () => ({ expr, zone: 'UTC', afterMs: Date.UTC(2020, 0, 1) + Math.floor(rand() * 10 * 365 * 86_400_000) + Math.floor(rand() * 1000) })));
    const r = spawnSync(binary, { input: queries.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { nextMs?: number; error?: string });
    const mismatches: string[] = [];
    let valid = 0;
    for (const [i, q] of queries.entries()) {
      const want = answers[i]!;
      let got: number | undefined;
      let err: string | undefined;
      try {
        got = nextCronOccurrence(q.expr, q.afterMs, q.zone);
      } catch (e) {
        if (!(e instanceof CronWindowError)) throw e;
        err = e.message;
      }
      if (want.error !== undefined) {
        if (err === undefined) mismatches.push(`${JSON.stringify(q.expr)}: robfig rejects (${want.error}), we accept`);
      } else {
        valid++;
        if (err !== undefined) mismatches.push(`${JSON.stringify(q.expr)}: robfig accepts, we reject (${err})`);
        else if (got !== want.nextMs) mismatches.push(`${JSON.stringify(q.expr)} after ${q.afterMs}: robfig ${want.nextMs}, ours ${got}`);
      }
    }
    expect(mismatches, `${mismatches.length} mismatches`).to.deep.equal([]);
    expect(valid).to.be.greaterThan(80);
  });

  // The review's parity cases (docs/crane-behaviour.md §C.7), each on the robfig function it comes from:
  //   parser.go getField (strings.FieldsFunc drops empty list items), getRange (`*`/`?` before a `-` is the whole
  //   field), mustParseInt (strconv.Atoi: a `+` sign, the int64 range), Parse (strings.Fields and TrimSpace, Go's
  //   blanks: U+0085 is one, U+FEFF is not; blanks alone are 0 fields), parseIntOrName (strings.ToLower maps U+0130
  //   to `i`); constantdelay.go through time.ParseDuration (at most 1<<63-1 ns, or exactly -1<<63); spec.go Next
  //   (yearLimit = the next whole second's year + 5, in the schedule's zone). Inputs that would make robfig panic
  //   (a TZ= prefix with no ASCII space) are left out: the oracle would die, not answer.
  const PARITY: { expr: string; zone?: string; after: string }[] = [
    ...['1,,2 * * * *', ',5 * * * *', '5, * * * *', ', * * * *', ',,, * * * *', '0 0 , * 1', '0 0 , * *', '0 0 1,,15 , *', '0 9 * * mon,,fri,'].map((expr) => ({ expr, after: '2026-01-15T12:00:00Z' })),
    ...['+5 * * * *', '*/+5 * * * *', '+5-+10/+2 * * * *', '0 +9 +1 +2 +0', '0 0 */+7 * *', '+ * * * *', '*/+ * * * *', '++5 * * * *', '*/-5 * * * *', '*/-0 * * * *', '-5 * * * *', '+-5 * * * *'].map((expr) => ({ expr, after: '2026-01-15T12:00:00Z' })),
    ...['*-5 * * * *', '?-3 * * * *', '*-5/2 * * * *', '*- * * * *', '*-x-y * * * *', '0 0 *-3 * 1', '0 0 1 * ?-0', '*-5/0 * * * *', '*-5/x * * * *', '5-* * * * *'].map((expr) => ({ expr, after: '2026-01-15T12:00:00Z' })),
    ...['*/99999999999999999999 * * * *', '*/9223372036854775807 * * * *', '*/9223372036854775808 * * * *', '*/+9223372036854775807 * * * *', '*/0009223372036854775807 * * * *', '5/18446744073709551616 * * * *', '0 0 1/9223372036854775807 * *', '99999999999999999999 * * * *'].map((expr) => ({ expr, after: '2026-01-15T12:00:00Z' })),
    ...['@every 9223372036854775807ns', '@every 9223372036854775808ns', '@every 9223372036854775809ns', '@every -9223372036854775808ns', '@every -9223372036854775809ns', '@every 2562047h47m16.854775807s', '@every 2562047h47m16.854775808s', '@every 2562047.7880152155h', '@every 2562047.78801521556h', '@every 9223372036.854775807s', '@every 9223372036.854775808s', '@every 1.0000000000000000000000001s', '@every 0.999999999999s', '@every +1h', '@every 1h1', '@every 1x', '@every .s', '@every 1.s', '@every .5s'].map((expr) => ({ expr, after: '2026-01-15T12:00:00.250Z' })),
    ...['0\u00859 * * *', '0 9 * * *\u0085', '\u00850 9 * * *', '0 9 * *\uFEFF*', '\uFEFF0 9 * * *', '0 9 * * *\uFEFF', 'TZ=UTC \u0085@daily', 'TZ=UTC \u0085 0 9 * * *', 'TZ=UTC \uFEFF@daily', '0\u00a09\u3000*\u2000*\u205f*', '0 9 * * FR\u0130', '0 9 * \u0130 *', '0 9 * * \u212Aon'].map((expr) => ({ expr, after: '2026-01-15T12:00:00Z' })),
    ...['   ', '\t\n', '\u0085', ''].map((expr) => ({ expr, after: '2026-01-15T12:00:00Z' })),
    // The year limit: from 2098-12-31T23:59:59Z the next whole second is in 2099, so 2104 is within 2099 + 5;
    // a second earlier it is not. The same edge in UTC+14 and UTC-11, and through a TZ= prefix.
    ...[
      ['0 0 29 2 *', 'UTC', '2099-01-01T00:00:00Z'], ['0 0 29 2 *', 'UTC', '2098-12-31T23:59:59Z'], ['0 0 29 2 *', 'UTC', '2098-12-31T23:59:58Z'],
      ['0 0 29 2 *', 'UTC', '2097-03-01T00:00:00Z'], ['0 0 29 2 *', 'UTC', '2096-02-29T00:00:00Z'], ['0 0 29 2 *', 'UTC', '2096-02-28T23:59:59Z'],
      ['0 0 29 2 *', 'Pacific/Kiritimati', '2098-12-31T10:00:00Z'], ['0 0 29 2 *', 'Pacific/Kiritimati', '2098-12-31T09:59:58Z'],
      ['0 0 29 2 *', 'Pacific/Pago_Pago', '2099-01-01T10:59:59Z'], ['0 0 29 2 *', 'Pacific/Pago_Pago', '2099-01-01T10:59:58Z'],
      ['TZ=Pacific/Kiritimati 0 0 29 2 *', 'UTC', '2098-12-31T10:00:00Z'], ['TZ=Pacific/Kiritimati 0 0 29 2 *', 'UTC', '2098-12-31T09:59:58Z'],
      ['59 23 29 2 *', 'UTC', '2099-06-01T00:00:00Z'], ['0 0 29 2 *', 'UTC', '2103-03-01T00:00:00Z'], ['0 0 29 2 1', 'UTC', '2098-03-01T00:00:00Z'],
      ['0 0 29 2 *', 'Europe/Berlin', '2099-01-01T00:00:00Z'], ['0 0 30 2 *', 'UTC', '2026-01-15T12:00:00Z'], ['0 0 31 4,6,9,11 *', 'UTC', '2026-01-15T12:00:00Z'],
    ].map(([expr, zone, after]) => ({ expr: expr as string, zone: zone as string, after: after as string })),
  ];
  it(`agrees on the review's parity cases: empty list items, signs, *-N, int64 limits, Go's blanks, the year limit (${PARITY.length} queries)`, function () {
    buildOracle();
    const queries = PARITY.map((p) => ({ expr: p.expr, zone: p.zone ?? 'UTC', afterMs: Date.parse(p.after) }));
    const r = spawnSync(binary, { input: queries.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { nextMs?: number; error?: string });
    expect(answers).to.have.length(queries.length);
    const mismatches: string[] = [];
    const counts = { refused: 0, never: 0, next: 0 };
    for (const [i, q] of queries.entries()) {
      const want = answers[i]!;
      let got: number | undefined;
      let err: string | undefined;
      try {
        got = nextCronOccurrence(q.expr, q.afterMs, q.zone);
      } catch (e) {
        if (!(e instanceof CronWindowError)) throw e;
        err = e.message;
      }
      const at = `${JSON.stringify(q.expr)} in ${q.zone} after ${new Date(q.afterMs).toISOString()}`;
      if (want.error !== undefined) {
        counts.refused++;
        if (err === undefined) mismatches.push(`${at}: robfig rejects (${want.error}), we accept`);
      } else if (want.nextMs === 0) {
        counts.never++;
        // A schedule with no date at all is refused up front (compile: "never matches"); one whose next date lies
        // past the year limit gives nothing, as robfig's zero time.
        if (got !== undefined || (err !== undefined && !err.includes('never matches'))) mismatches.push(`${at}: robfig gives up, we say ${err ?? new Date(got!).toISOString()}`);
      } else {
        counts.next++;
        if (err !== undefined) mismatches.push(`${at}: robfig accepts (${new Date(want.nextMs!).toISOString()}), we reject (${err})`);
        else if (got !== want.nextMs) mismatches.push(`${at}: robfig ${new Date(want.nextMs!).toISOString()}, ours ${got === undefined ? 'none' : new Date(got).toISOString()}`);
      }
    }
    expect(mismatches, `${mismatches.length} mismatches`).to.deep.equal([]);
    expect(counts.refused).to.be.greaterThan(20);
    expect(counts.never).to.be.greaterThan(5);
    expect(counts.next).to.be.greaterThan(40);
  });

  it('gives robfig\'s reason for blanks alone and for an empty text (parser.go Parse, normalizeFields)', function () {
    buildOracle();
    const texts = ['   ', '\t', '\u0085', ''];
    const r = spawnSync(binary, { input: texts.map((expr) => JSON.stringify({ expr, zone: 'UTC', afterMs: 0 })).join('\n') + '\n', encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { error?: string });
    for (const [i, expr] of texts.entries()) {
      // Ours names the text first (`"   ": …`); the reason after it is robfig's, up to robfig's `: [fields]` tail.
      const ours = (cronExpressionError(expr, () => true) ?? '').replace(/^"[^"]*": /, '');
      expect(ours, JSON.stringify(expr)).to.not.equal('');
      expect(answers[i]!.error, JSON.stringify(expr)).to.satisfy((e: string) => e === ours || e.startsWith(`${ours}: `));
    }
  });

  // A window around 2100 (no leap year): starts and ends alternate, so the window equals Crane's rule, computed here
  // from robfig's own Next, wherever robfig finds both. It needs a look-back of eight years (2096-02-29 to
  // 2104-02-29), beyond robfig's limit.
  it('a February-29 window around 2100 equals Crane\'s IsActive rule once robfig sees both events', function () {
    buildOracle();
    const start = '0 12 29 2 *';
    const end = '0 0 29 2 *';
    const instants = ['2099-01-01T00:00:00Z', '2101-03-05T06:00:00Z', '2102-06-01T00:00:00Z', '2104-02-28T23:59:59Z', '2104-02-29T06:00:00Z', '2104-02-29T12:00:00Z', '2105-01-01T00:00:00Z'];
    const queries = instants.flatMap((iso) => [start, end].map((expr) => ({ expr, zone: 'UTC', afterMs: Date.parse(iso) })));
    const r = spawnSync(binary, { input: queries.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { nextMs: number });
    for (const [i, iso] of instants.entries()) {
      const nextStart = answers[2 * i]!.nextMs;
      const nextEnd = answers[2 * i + 1]!.nextMs;
      expect(nextStart, iso).to.not.equal(0);
      expect(nextEnd, iso).to.not.equal(0);
      expect(cronWindowActive({ start, end }, Date.parse(iso), 'UTC'), iso).to.equal(nextEnd <= nextStart);
    }
    // The difference we keep (§C.7): from March 2097 to December 2098 robfig's Next finds neither (zero time), so
    // Crane calls the window inactive; ours is open from 2096-02-29 12:00 until 2104-02-29 00:00.
    const early = ['2097-06-01T00:00:00Z', '2098-12-31T23:59:58Z'];
    const r2 = spawnSync(binary, { input: early.flatMap((iso) => [start, end].map((expr) => JSON.stringify({ expr, zone: 'UTC', afterMs: Date.parse(iso) }))).join('\n') + '\n', encoding: 'utf8' });
    expect(r2.status, r2.stderr).to.equal(0);
    expect(r2.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { nextMs: number }).nextMs)).to.deep.equal([0, 0, 0, 0]);
    for (const iso of early) expect(cronWindowActive({ start, end }, Date.parse(iso), 'UTC'), iso).to.equal(true);
  });

  // A difference we keep (docs/crane-behaviour.md §C.7): a wall time inside a spring-forward gap. robfig steps the
  // hour with Add(1h) and so skips the gap's wall times for that day (here midnight, in zones west of UTC); we move
  // them past the gap on the same day, as for any gap (src/cron/cron-window.ts). The oracle confirms robfig's side.
  it('confirms robfig\'s side of the DST-gap difference we keep (a wall time skipped for the day)', function () {
    buildOracle();
    const cases = [
      // Havana: 2026-03-08 00:00 CST → 01:00 CDT (05:00Z). Santiago: 2026-09-06 00:00 -04 → 01:00 -03 (04:00Z).
      { expr: '30 0 * * *', zone: 'America/Havana', after: '2026-03-07T12:00:00Z', robfig: '2026-03-09T04:30:00.000Z', ours: '2026-03-08T05:30:00.000Z' },
      { expr: '30 0 * * *', zone: 'America/Santiago', after: '2026-09-05T12:00:00Z', robfig: '2026-09-07T03:30:00.000Z', ours: '2026-09-06T04:30:00.000Z' },
      { expr: '30 2 * * *', zone: 'America/New_York', after: '2026-03-07T12:00:00Z', robfig: '2026-03-09T06:30:00.000Z', ours: '2026-03-08T07:30:00.000Z' },
    ];
    const r = spawnSync(binary, { input: cases.map((c) => JSON.stringify({ expr: c.expr, zone: c.zone, afterMs: Date.parse(c.after) })).join('\n') + '\n', encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { nextMs: number });
    for (const [i, c] of cases.entries()) {
      expect(new Date(answers[i]!.nextMs).toISOString(), `robfig, ${c.expr} in ${c.zone}`).to.equal(c.robfig);
      expect(new Date(nextCronOccurrence(c.expr, Date.parse(c.after), c.zone)!).toISOString(), `ours, ${c.expr} in ${c.zone}`).to.equal(c.ours);
    }
  });

  // Where the window follows Crane's rule itself (an @every side, or start and end naming the same
  // instants), the answer must be Crane's cron_trigger.go IsActive: nextEnd <= nextStart, both from robfig.
  it('the cron window equals Crane\'s IsActive rule where it follows it (@every, start == end)', function () {
    buildOracle();
    const pairs: [string, string][] = [
      ['@every 1h', '0 17 * * *'], ['0 9 * * *', '@every 30m'], ['@every 1m', '@every 2m'], ['@every 2m', '@every 1m'],
      ['@every 90s', '@every 1m30s'], ['0 9 * * *', '0 9 ? * *'], ['@daily', '0 0 * * *'], ['*/15 * * * *', '0,15,30,45 * * * *'],
      ['@every 6h', '@hourly'], ['@hourly', '@every 45m'],
    ];
    const rand = mulberry32(76);
    const cases = pairs.flatMap(([start, end]) =>
      Array.from({ length: 25 }, () => ({ start, end, nowMs: Date.UTC(2026, 0, 1) + Math.floor(rand() * 30 * 86_400_000) + (rand() < 0.3 ? 0 : Math.floor(rand() * 1000)) })));
    const queries = cases.flatMap((c) => [{ expr: c.start, zone: 'UTC', afterMs: c.nowMs }, { expr: c.end, zone: 'UTC', afterMs: c.nowMs }]);
    const r = spawnSync(binary, { input: queries.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { nextMs?: number });
    const mismatches: string[] = [];
    let active = 0;
    for (const [i, c] of cases.entries()) {
      const nextStart = answers[2 * i]!.nextMs!;
      const nextEnd = answers[2 * i + 1]!.nextMs!;
      const crane = nextEnd <= nextStart;
      if (crane) active++;
      const ours = cronWindowActive({ start: c.start, end: c.end }, c.nowMs, 'UTC');
      if (ours !== crane) mismatches.push(`${c.start} → ${c.end} at ${new Date(c.nowMs).toISOString()}: Crane ${crane}, ours ${ours}`);
    }
    expect(mismatches, `${mismatches.length} mismatches`).to.deep.equal([]);
    // Both answers occur.
    expect(active).to.be.greaterThan(20);
    expect(active).to.be.lessThan(cases.length - 20);
  });
});
