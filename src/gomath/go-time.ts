// Go time.Time semantics the recommender depends on, on plain numbers for speed.
//
// An Instant is an integer count of MICROseconds since the Unix epoch (exact in a double for the years
// 1685..2255); a Micros is a duration in microseconds. Go works in nanoseconds: every place where upstream
// converts a nanosecond int64 to float64 we multiply the exact microsecond integer by 1000 in float64,
// which rounds exactly like Go's int64->float64 conversion. Go's zero time (year 1, which does not fit)
// is the sentinel GO_ZERO_TIME; differences involving it are computed exactly with BigInt and saturate at
// the int64 range like Go's Time.Sub. Sub-microsecond input precision is refused at the edges.

export type Instant = number;
export type Micros = number;

/** Go's zero time.Time, 0001-01-01T00:00:00Z, as microseconds since the Unix epoch (used as a sentinel). */
export const GO_ZERO_TIME: Instant = -62135596800_000_000;
const GO_ZERO_BIG = -62135596800_000_000n;

export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_MINUTE = 60_000_000;
export const MICROS_PER_HOUR = 3_600_000_000;

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

export function isZeroTime(t: Instant): boolean {
  return t === GO_ZERO_TIME;
}

/** float64(a.Sub(b)) in nanoseconds, saturating like Go. */
export function subNanosFloat(a: Instant, b: Instant): number {
  if (a === GO_ZERO_TIME || b === GO_ZERO_TIME) {
    // Every other representable Instant (years 1685..2255) is more than 292 years from year 1, so a
    // difference with the zero time always saturates at the int64 range.
    if (a === b) return 0;
    return a === GO_ZERO_TIME ? INT64_MIN_FLOAT : INT64_MAX_FLOAT;
  }
  return (a - b) * 1000;
}

const INT64_MIN_FLOAT = Number(INT64_MIN);
const INT64_MAX_FLOAT = Number(INT64_MAX);

/** Go time.Time.Round(d): to a multiple of d counted from the zero time, halves rounding up. */
export function roundTime(t: Instant, d: Micros): Instant {
  if (d <= 0) return t;
  const r = goTimeRemainder(t, d);
  if (r + r < d) return t - r;
  return t + (d - r);
}

const zeroRemainders = new Map<number, number>();

/** (t - zeroTime) mod d, non-negative, computed without leaving the exact integer range. */
function goTimeRemainder(t: Instant, d: Micros): number {
  if (t === GO_ZERO_TIME) return 0;
  let z = zeroRemainders.get(d);
  if (z === undefined) {
    const db = BigInt(d);
    z = Number(((GO_ZERO_BIG % db) + db) % db);
    zeroRemainders.set(d, z);
  }
  const tm = ((t % d) + d) % d;
  return (((tm - z) % d) + d) % d;
}

/** Go Duration.Truncate(m): rounds toward zero to a multiple of m. */
export function truncateDuration(d: Micros, m: Micros): Micros {
  if (m <= 0) return d;
  return d - (d % m);
}

/** Go Duration.Minutes(). */
export function durationMinutes(d: Micros): number {
  const min = Math.trunc(d / MICROS_PER_MINUTE);
  const rem = d - min * MICROS_PER_MINUTE;
  return min + (rem * 1000) / 60e9;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Parses an RFC 3339 timestamp; throws on anything else or on sub-microsecond precision. */
export function parseInstant(text: string): Instant {
  const m = RFC3339.exec(text);
  if (!m) throw new Error(`invalid RFC 3339 time "${text}"`);
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms) || Number(mo) > 12 || Number(d) > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) {
    throw new Error(`invalid RFC 3339 time "${text}"`);
  }
  let micros = 0;
  if (frac) {
    const padded = frac.padEnd(9, '0');
    if (padded.slice(6) !== '000') throw new Error(`time "${text}" has sub-microsecond precision, which is not supported`);
    micros = Number(padded.slice(0, 6));
  }
  let t = ms * 1000 + micros;
  if (!z) {
    const off = (Number(oh) * 60 + Number(om)) * MICROS_PER_MINUTE;
    t -= sign === '-' ? -off : off;
  }
  if (!Number.isSafeInteger(t)) throw new Error(`time "${text}" is out of the supported range`);
  return t;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** RFC 3339 in UTC at whole seconds, like metav1.Time's JSON form (sub-seconds are truncated). */
export function formatInstantSeconds(t: Instant): string {
  const ms = Math.floor(t / 1_000_000) * 1000;
  const d = new Date(ms);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}Z`;
}

/** RFC 3339 in UTC with Go's RFC3339Nano trimming of the fractional part. */
export function formatInstant(t: Instant): string {
  if (t === GO_ZERO_TIME) return '0001-01-01T00:00:00Z';
  const secs = formatInstantSeconds(t);
  const frac = ((t % 1_000_000) + 1_000_000) % 1_000_000;
  if (frac === 0) return secs;
  return `${secs.slice(0, -1)}.${String(frac).padStart(6, '0').replace(/0+$/, '')}Z`;
}

/** Truncates to whole seconds (what a checkpoint round trip through metav1.Time keeps). */
export function truncateToSeconds(t: Instant): Instant {
  if (t === GO_ZERO_TIME) return t;
  return Math.floor(t / 1_000_000) * 1_000_000;
}

const TWO_63 = 1n << 63n;
// A Map, not an object literal: a unit text such as "constructor" must not find a prototype member.
const NS_PER_UNIT = new Map<string, bigint>([
  ['ns', 1n], ['us', 1_000n], ['µs', 1_000n], ['μs', 1_000n], ['ms', 1_000_000n],
  ['s', 1_000_000_000n], ['m', 60_000_000_000n], ['h', 3_600_000_000_000n],
]);

function isDigitAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 48 && c <= 57;
}


/**
 * Go's time.ParseDuration in nanoseconds, step for step (time/format.go): integer parts accumulate in a
 * uint64 that must stay <= 1<<63, a fraction adds uint64(float64(f) * (float64(unit) / scale)), and the
 * total must be <= 1<<63-1, or exactly 1<<63 when negative. One pass; BigInt values never pass 2^64.
 */
export function parseGoDurationNs(text: string): bigint {
  const fail = (what = 'invalid duration') => new Error(`time: ${what} "${text}"`);
  let i = 0;
  let negative = false;
  if (text[0] === '-' || text[0] === '+') {
    negative = text[0] === '-';
    i = 1;
  }
  if (text.length - i === 1 && text[i] === '0') return 0n;
  if (i === text.length) throw fail();
  let total = 0n;
  while (i < text.length) {
    if (!(text[i] === '.' || isDigitAt(text, i))) throw fail();
    // leadingInt: overflow is an error.
    const intStart = i;
    let v = 0n;
    for (; i < text.length && isDigitAt(text, i); i++) {
      if (v > TWO_63 / 10n) throw fail();
      v = v * 10n + BigInt(text.charCodeAt(i) - 48);
      if (v > TWO_63) throw fail();
    }
    const pre = i > intStart;
    // leadingFraction: overflow only stops the accumulation.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (text[i] === '.') {
      i++;
      const fracStart = i;
      let overflow = false;
      for (; i < text.length && isDigitAt(text, i); i++) {
        if (overflow) continue;
        if (f > (TWO_63 - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(text.charCodeAt(i) - 48);
        if (y > TWO_63) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = i > fracStart;
    }
    if (!pre && !post) throw fail();
    const unitStart = i;
    while (i < text.length && text[i] !== '.' && !isDigitAt(text, i)) i++;
    if (i === unitStart) throw fail('missing unit in duration');
    const unitText = text.slice(unitStart, i);
    const unit = NS_PER_UNIT.get(unitText);
    if (unit === undefined) throw fail(`unknown unit "${unitText}" in duration`);
    if (v > TWO_63 / unit) throw fail();
    v *= unit;
    if (f > 0n) {
      // Go converts f to float64 (round to nearest even, as Number(bigint) does) and truncates the product.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO_63) throw fail();
    }
    total += v;
    if (total > TWO_63) throw fail();
  }
  if (negative) return -total;
  if (total > TWO_63 - 1n) throw fail();
  return total;
}

/**
 * Go's time.ParseDuration (src/time/format.go), in seconds: parseGoDurationNs / 1e9. A signed sequence of
 * decimal numbers, each with an optional fraction and a unit (ns, us, µs, μs, ms, s, m, h); "0" alone needs
 * no unit; Go's errors, including overflow past 1<<63 ns (about 292 years).
 */
export function parseGoDurationSeconds(text: string): number {
  return Number(parseGoDurationNs(text)) / 1e9;
}
