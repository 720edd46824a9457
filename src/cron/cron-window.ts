// Is a cron window open at instant `now`? Crane's rule (docs/crane-behaviour.md §C.5.1) asks whether the
// next end comes no later than the next start. We use the window form of that rule: a window opens at a
// start S and closes at the first end at or after S; the cron is active when the latest start S <= now has
// no end in [S, now]. It agrees with Crane whenever starts and ends alternate, and where they do not we keep
// the window form (a second end before the next start does not reopen the window; windows crossing
// midnight or weeks need nothing special). Two cases follow Crane's rule itself, because the window form
// has no answer Crane would recognise:
//   - start and end are the same schedule (same instants, whatever the spelling: `0 9 * * *`, `0 9 ? * *`):
//     the next start and the next end always coincide, and Crane's `<=` makes the cron active at every
//     instant. gocrane/crane pkg/metricprovider/cron_trigger.go is the same file from v0.4 to HEAD, so this
//     holds under both --cron-semantics.
//   - `@every <d>` on either side: robfig's constant-delay schedule has no anchor in wall-clock time, its
//     next occurrence is always now's whole second plus d, so the cron is active exactly when an end comes
//     within that delay (next end <= next start), evaluated afresh at each instant.
//
// Time zones: an IANA name, "UTC", "" (UTC) or "Local" (the process zone, passed in so the core never reads
// the environment). Unset means UTC under Crane v0.2–v0.7 and its docs, and the adapter's local zone under
// Crane HEAD (`unset: 'Local'`, --cron-semantics=head). Occurrences are wall-clock times in the zone.
// DST: a wall time inside a spring-forward gap happens at the same offset after the gap (02:30 → 03:30), so
// the window still opens that day (robfig skips it for the day); a wall time repeated at fall-back happens
// once, at its first occurrence. We compute occurrences ourselves with luxon's zone offsets because
// cron-parser 5's next()/prev() disagree around DST gaps depending on the starting instant.
import { IANAZone } from 'luxon';
import { parseStandardCron, CronSyntaxError, type StandardCron } from './standard-cron.ts';

export class CronWindowError extends Error {
  override name = 'CronWindowError';
}

export interface CronWindowSpec {
  name?: string;
  timezone?: string;
  start?: string;
  end?: string;
}

// luxon's isValidZone builds an Intl.DateTimeFormat each call (~50 µs): too slow for every cron of every
// request. Zone names are few; the answers are kept (bounded like the caches below).
const zoneValid = new Map<string, boolean>();

// Zone names are case-sensitive in Go (time.LoadLocation opens a file under zoneinfo, and Linux file names are
// case-sensitive), but ICU matches them without case: "asia/shanghai" and "utc" would run in Shanghai and UTC
// here while Crane's webhook refuses them. Every name ICU lists, and the non-geographic names it resolves
// without listing, is kept in its one correct spelling; a name that differs from one of those only in case is
// refused. (An alias ICU neither lists nor spells for us, e.g. "us/eastern" for "US/Eastern", still passes.)
let caseForms: Map<string, string> | undefined;
function correctSpelling(name: string): string | undefined {
  if (!caseForms) {
    const bare = ['GMT', 'UTC', 'UCT', 'Universal', 'Zulu', 'Greenwich', 'GMT0', 'GMT+0', 'GMT-0'];
    const etc = bare.map((e) => `Etc/${e}`);
    for (let h = 1; h <= 14; h++) etc.push(`Etc/GMT-${h}`);
    for (let h = 1; h <= 12; h++) etc.push(`Etc/GMT+${h}`);
    const names = [...Intl.supportedValuesOf('timeZone'), ...bare, ...etc,
      'EST', 'MST', 'HST', 'EST5EDT', 'CST6CDT', 'MST7MDT', 'PST8PDT', 'CET', 'EET', 'MET', 'WET'];
    caseForms = new Map(names.map((n) => [n.toLowerCase(), n]));
  }
  return caseForms.get(name.toLowerCase());
}

/** True when `name` is an IANA zone Node's own database knows, spelled as Go needs it (answers cached). */
export function isIanaZone(name: string): boolean {
  let valid = zoneValid.get(name);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(name) && (correctSpelling(name) ?? name) === name;
    if (zoneValid.size >= 1_000) zoneValid.clear();
    zoneValid.set(name, valid);
  }
  return valid;
}

/** What an unset `timezone` means: UTC (Crane v0.2–v0.7, Crane's docs) or the local zone (Crane HEAD). */
export type UnsetZone = 'UTC' | 'Local';

/** Resolves a cron's time zone to an IANA name; throws CronWindowError for unknown names. */
export function resolveCronZone(timezone: string | undefined, localZone: string, unset: UnsetZone = 'UTC'): string {
  if (timezone === undefined) return unset === 'Local' ? localZone : 'UTC';
  if (timezone === '' || timezone === 'UTC') return 'UTC';
  if (timezone === 'Local') return localZone;
  if (!isIanaZone(timezone)) throw new CronWindowError(`unknown time zone "${timezone}"`);
  return timezone;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
/**
 * How many days a window scan looks back for the latest start, or ahead for the next start or end: the longest
 * gap between two days a cron can match is 2,922 days, 2096-02-29 to 2104-02-29 (2100 is no leap year). A cron
 * that matches at all is found (compile refuses the others). robfig's Next has its own limit (nextAfter).
 */
const WINDOW_DAYS = 8 * 366 + 2;
/** Offsets lie within ±15 h: a local day begins less than 15 h before its naive-UTC midnight. */
const OFFSET_SPAN = 15 * 60 * MINUTE;

interface Compiled extends StandardCron {
  offsetMin: (ms: number) => number;
  /** Equal for two expressions exactly when they name the same instants (spelling aside). */
  identity: string;
}

/** The instants a parsed expression names, as a comparable text: fields, the day rule resolved, the zone. */
function scheduleIdentity(c: StandardCron, zone: string): string {
  if (c.everyMs !== undefined) return `every ${c.everyMs}`;
  const days: string[] = [];
  for (let dom = 1; dom <= 31; dom++) {
    for (let dow = 0; dow <= 6; dow++) {
      const d = c.daysOfMonth[dom] === true;
      const w = c.daysOfWeek[dow] === true;
      days.push((c.dayRule === 'and' ? d && w : d || w) ? '1' : '0');
    }
  }
  const months = c.months.map((m) => (m ? '1' : '0')).join('');
  return `${zone} ${c.minutes.join(',')} ${c.hours.join(',')} ${months} ${days.join('')}`;
}

function offsetFunction(zone: string): (ms: number) => number {
  if (zone === 'UTC') return () => 0;
  const z = IANAZone.create(zone);
  return (ms) => z.offset(ms);
}

/** Instant of a wall-clock time: first occurrence when repeated, shifted forward past a gap. */
function wallToInstant(c: Compiled, naiveUtc: number): number {
  const before = c.offsetMin(naiveUtc - DAY);
  const after = c.offsetMin(naiveUtc + DAY);
  let best: number | undefined;
  for (const o of before === after ? [before] : [before, after]) {
    const t = naiveUtc - o * MINUTE;
    if (c.offsetMin(t) === o && (best === undefined || t < best)) best = t;
  }
  return best ?? naiveUtc - before * MINUTE;
}

function dayMatches(c: Compiled, dayUtc: number): boolean {
  const d = new Date(dayUtc);
  if (!c.months[d.getUTCMonth() + 1]) return false;
  const dom = c.daysOfMonth[d.getUTCDate()] === true;
  const dow = c.daysOfWeek[d.getUTCDay()] === true;
  return c.dayRule === 'and' ? dom && dow : dom || dow;
}

/** Occurrence instants on one local day, ascending (every one computed only near DST changes). */
function* occurrencesOnDay(c: Compiled, dayUtc: number, descending: boolean): Generator<number> {
  // The offset before the day surely began, and at the day's last instant if that offset held: equal when no
  // change falls within the day. (Reading the offset at the day's naive start missed a change at local midnight
  // west of UTC, e.g. Havana's 00:00 CST → 01:00 CDT, and put 00:30 on the evening before.)
  const o0 = c.offsetMin(dayUtc - OFFSET_SPAN);
  const o1 = c.offsetMin(dayUtc + DAY - o0 * MINUTE - 1);
  const hours = descending ? [...c.hours].reverse() : c.hours;
  const minutes = descending ? [...c.minutes].reverse() : c.minutes;
  if (o0 === o1) {
    for (const h of hours) for (const m of minutes) yield dayUtc + (h * 60 + m - o0) * MINUTE;
    return;
  }
  const all: number[] = [];
  for (const h of hours) for (const m of minutes) all.push(wallToInstant(c, dayUtc + (h * 60 + m) * MINUTE));
  all.sort((a, b) => (descending ? b - a : a - b));
  yield* all;
}

/** Midnight (as a naive UTC timestamp) of the local calendar day containing `ms`. */
function localDay(c: Compiled, ms: number): number {
  const local = ms + c.offsetMin(ms) * MINUTE;
  return local - (((local % DAY) + DAY) % DAY);
}

function latestAtOrBefore(c: Compiled, nowMs: number): number | undefined {
  const today = localDay(c, nowMs);
  for (let k = -1; k <= WINDOW_DAYS; k++) {
    const day = today - k * DAY;
    if (!dayMatches(c, day)) continue;
    for (const t of occurrencesOnDay(c, day, true)) if (t <= nowMs) return t;
  }
  return undefined;
}

/** The first occurrence at or after `fromMs` on a local day before `endDay` (a naive-UTC midnight; default: WINDOW_DAYS on). */
function firstAtOrAfter(c: Compiled, fromMs: number, endDay?: number): number | undefined {
  const first = localDay(c, fromMs);
  const stop = endDay ?? first + (WINDOW_DAYS + 1) * DAY;
  for (let day = first - DAY; day < stop; day += DAY) {
    if (!dayMatches(c, day)) continue;
    for (const t of occurrencesOnDay(c, day, false)) if (t >= fromMs) return t;
  }
  return undefined;
}

const DAYS_IN_MONTH = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether a calendar schedule has any occurrence: a minute, an hour, and a date its day rule accepts. Every
 * month-day (February 29 included) falls on each weekday in turn, and the `and` rule always has one field
 * whole (robfig's star flag comes only with `*`/`?` at step 1), so a date it accepts recurs within
 * WINDOW_DAYS. Constant cost, whatever the schedule.
 */
function everMatches(c: StandardCron): boolean {
  if (c.minutes.length === 0 || c.hours.length === 0) return false;
  for (let m = 1; m <= 12; m++) {
    if (!c.months[m]) continue;
    for (let d = 1; d <= (DAYS_IN_MONTH[m] as number); d++) {
      for (let w = 0; w <= 6; w++) {
        const dom = c.daysOfMonth[d] === true;
        const dow = c.daysOfWeek[w] === true;
        if (c.dayRule === 'and' ? dom && dow : dom || dow) return true;
      }
    }
  }
  return false;
}

// Parsing is the expensive part and cron texts rarely change: keep the compiled form per (text, zone).
const compiledCache = new Map<string, Compiled>();
const CACHE_LIMIT = 10_000;

function compile(text: string | undefined, which: 'start' | 'end', zone: string): Compiled {
  if (text === undefined || text.trim() === '') throw new CronWindowError(`cron ${which} must not be empty`);
  const key = `${zone}\u0000${text}`;
  const hit = compiledCache.get(key);
  if (hit) return hit;
  let parsed: StandardCron;
  try {
    parsed = parseStandardCron(text);
  } catch (e) {
    if (e instanceof CronSyntaxError) throw new CronWindowError(`invalid cron ${which}: ${e.message}`);
    throw e;
  }
  // robfig: a `TZ=` prefix names the zone (an empty one is UTC); "Local" there is the process zone.
  const boundaryZone = parsed.zone === undefined ? zone : resolveCronZone(parsed.zone, zone);
  const compiled: Compiled = { ...parsed, offsetMin: offsetFunction(boundaryZone), identity: scheduleIdentity(parsed, boundaryZone) };
  // A day-of-month that no month has (Feb 30), or an empty field (`,`), never matches: say so once instead of
  // scanning each request.
  if (parsed.everyMs === undefined && !everMatches(parsed)) {
    throw new CronWindowError(`cron ${which} "${text}" never matches a date`);
  }
  if (compiledCache.size >= CACHE_LIMIT) compiledCache.clear();
  compiledCache.set(key, compiled);
  return compiled;
}

/** Checks a cron's zone and expressions; throws CronWindowError naming the problem. */
export function validateCronWindow(cron: CronWindowSpec, localZone: string, unset: UnsetZone = 'UTC'): void {
  const zone = resolveCronZone(cron.timezone, localZone, unset);
  compile(cron.start, 'start', zone);
  compile(cron.end, 'end', zone);
}

/** A cron field that cannot be evaluated, and why (for answers that name the field). */
export interface CronFieldProblem {
  field: 'timezone' | 'start' | 'end';
  message: string;
}

/** Every field of the cron that cannot be evaluated (empty when cronWindowActive would not throw). */
export function cronWindowProblems(cron: CronWindowSpec, localZone: string, unset: UnsetZone = 'UTC'): CronFieldProblem[] {
  let zone: string;
  try {
    zone = resolveCronZone(cron.timezone, localZone, unset);
  } catch (e) {
    if (!(e instanceof CronWindowError)) throw e;
    return [{ field: 'timezone', message: e.message }];
  }
  const out: CronFieldProblem[] = [];
  for (const which of ['start', 'end'] as const) {
    try {
      compile(cron[which], which, zone);
    } catch (e) {
      if (!(e instanceof CronWindowError)) throw e;
      out.push({ field: which, message: e.message });
    }
  }
  return out;
}

/** A window's state and the span of time it holds for: [fromMs, untilMs). */
interface WindowState {
  active: boolean;
  fromMs: number;
  untilMs: number;
}

// The cron metric asks about every cron of an EHPA on each request (every 15 s per HPA); the answer only
// changes when a window opens or closes, which the scan that answers it also finds. Keeping that span
// makes a request O(1) per cron instead of a scan of up to eight years of days (a Feb-29 cron in a DST
// zone cost ~0.5 ms per request).
const stateCache = new Map<string, WindowState>();

/**
 * robfig's `Schedule.Next(t)`: the first occurrence strictly after `nowMs`, at whole-second granularity.
 * SpecSchedule.Next (spec.go) starts at t's next whole second and gives up when a wrap takes it past the
 * year `yearLimit = t.Year() + 5` in the schedule's zone: an occurrence up to December 31 of that year counts.
 */
function nextAfter(c: Compiled, nowMs: number): number | undefined {
  const second = Math.floor(nowMs / 1000) * 1000;
  if (c.everyMs !== undefined) return second + c.everyMs;
  const from = second + 1000;
  const yearLimit = new Date(localDay(c, from)).getUTCFullYear() + 5;
  return firstAtOrAfter(c, from, Date.UTC(yearLimit + 1, 0, 1));
}

function windowState(start: Compiled, end: Compiled, nowMs: number): WindowState {
  if (start.identity === end.identity) return { active: true, fromMs: -Infinity, untilMs: Infinity };
  if (start.everyMs !== undefined || end.everyMs !== undefined) {
    // Crane's rule as written (§C.5.1); robfig's zero time for "never" sorts first, so a start that never
    // comes leaves the cron active and an end that never comes leaves it inactive. Not cached: the answer
    // may change with every second.
    const nextStart = nextAfter(start, nowMs);
    const nextEnd = nextAfter(end, nowMs);
    const active = nextEnd !== undefined && (nextStart === undefined || nextEnd <= nextStart);
    return { active, fromMs: nowMs, untilMs: nowMs };
  }
  const opened = latestAtOrBefore(start, nowMs);
  const closes = opened === undefined ? undefined : firstAtOrAfter(end, opened);
  const active = opened !== undefined && (closes === undefined || closes > nowMs);
  // Open: it stays open until it closes (a start inside an open window does not move its close).
  // Closed: it stays closed until the next start.
  const untilMs = active ? (closes ?? Infinity) : (firstAtOrAfter(start, nowMs + 1) ?? Infinity);
  return { active, fromMs: nowMs, untilMs };
}

/**
 * Empties the zone, compile and window-state caches. They only hold answers the functions would compute
 * again, so this changes no answer; tests call it so that each test computes afresh (mutation testing runs
 * many mutants in one process, and a cached answer would hide a mutant from every test after the first).
 */
export function clearCronCaches(): void {
  caseForms = undefined;
  zoneValid.clear();
  compiledCache.clear();
  stateCache.clear();
}

/** cronWindowActive without the state cache: the reference the cache is tested against. */
export function cronWindowActiveUncached(cron: CronWindowSpec, nowMs: number, localZone: string, unset: UnsetZone = 'UTC'): boolean {
  const zone = resolveCronZone(cron.timezone, localZone, unset);
  return windowState(compile(cron.start, 'start', zone), compile(cron.end, 'end', zone), nowMs).active;
}

/**
 * True when `nowMs` lies inside one of the cron's windows. Throws CronWindowError on a bad cron or zone.
 * `unset` says what a cron without `timezone` means (see the top of this file).
 */
export function cronWindowActive(cron: CronWindowSpec, nowMs: number, localZone: string, unset: UnsetZone = 'UTC'): boolean {
  const zone = resolveCronZone(cron.timezone, localZone, unset);
  const start = compile(cron.start, 'start', zone);
  const end = compile(cron.end, 'end', zone);
  const key = `${zone}\u0000${cron.start}\u0000${cron.end}`;
  const hit = stateCache.get(key);
  if (hit && nowMs >= hit.fromMs && nowMs < hit.untilMs) return hit.active;
  const state = windowState(start, end, nowMs);
  if (stateCache.size >= CACHE_LIMIT) stateCache.clear();
  stateCache.set(key, state);
  return state.active;
}

/**
 * robfig's `Schedule.Next(t)` for one expression in `zone`: the first occurrence strictly after `afterMs` at
 * whole-second granularity, or undefined where robfig gives up (nothing by the end of the year five years on).
 * Exposed for the differential test against robfig.
 */
export function nextCronOccurrence(expression: string, afterMs: number, zone: string): number | undefined {
  return nextAfter(compile(expression, 'start', zone), afterMs);
}
