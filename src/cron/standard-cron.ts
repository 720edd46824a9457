// Crane parses cron windows with robfig/cron v3.0.1 ParseStandard (docs/crane-behaviour.md §C.5.4).
// Descriptors are matched as robfig's parseDescriptor does (robfig/cron v3.0.1 parser.go): exact,
// case-sensitive names, and `@every <Go duration>`, a constant delay counted from the time asked about.
// The npm cron parsers accept a superset of it (seconds, L, #, H, 7 = Sunday), so we parse robfig's grammar here into
// value sets, including robfig's day rule: if day-of-month or day-of-week carries the star flag (`*`/`?`
// without a step > 1) a day must match both, otherwise either.
// robfig's grammar follows from the Go functions it calls, and so does ours (each is one left-to-right pass):
//   - blanks are Go's unicode.IsSpace (strings.Fields, strings.TrimSpace): U+0085 is one, U+FEFF is not;
//   - list items are split with strings.FieldsFunc, which drops empty items (`1,,2` is {1,2}; `,` is no value);
//   - numbers go through strconv.Atoi: an optional sign, decimal digits, at most 1<<63-1 (a larger step is
//     refused; `-` never reaches a value, getRange splits on it first, but a step `-5` is refused as negative);
//   - a range whose first half is `*` or `?` is the whole field with the star flag, whatever follows the `-`;
//   - names are compared after strings.ToLower, which maps U+0130 (İ) to a plain `i`;
//   - `@every` durations are time.ParseDuration's, exact to the nanosecond (at most 1<<63-1 ns, or -1<<63).
import { parseGoDurationNs } from '../gomath/go-time.ts';

export class CronSyntaxError extends Error {
  override name = 'CronSyntaxError';
}

interface FieldDef {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly FieldDef[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { name: 'day-of-week', min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

export interface StandardCron {
  /** Sorted minutes (0–59) and hours (0–23) that match. */
  minutes: number[];
  hours: number[];
  /** Indexed by day of month (1–31), month (1–12) and day of week (0 = Sunday). */
  daysOfMonth: boolean[];
  months: boolean[];
  daysOfWeek: boolean[];
  /** robfig: 'and' when either day field carries the star flag, else 'or'. */
  dayRule: 'and' | 'or';
  /** Zone from a `TZ=`/`CRON_TZ=` prefix, which overrides the cron's own time zone as in robfig. */
  zone?: string;
  /**
   * `@every <d>`: robfig's ConstantDelaySchedule, whose Next(t) is t's whole second plus this delay (whole
   * seconds, at least one). The calendar fields above are then empty: it matches no wall-clock time.
   */
  everyMs?: number;
}

// Go's unicode.IsSpace: what strings.Fields splits on and strings.TrimSpace trims. JS `\s` differs in two
// characters: it lacks U+0085 (NEL) and adds U+FEFF (BOM).
const GO_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const GO_SPACE_CHAR = new RegExp(`[${GO_SPACE}]`);
const GO_SPACE_RUN = new RegExp(`[${GO_SPACE}]+`);

/** strings.Fields: the non-empty runs between Go blanks. */
function goFields(text: string): string[] {
  return text.split(GO_SPACE_RUN).filter((p) => p !== '');
}

/** strings.TrimSpace with Go's blanks (index loops: an end-anchored regex would rescan each inner run). */
function goTrimSpace(text: string): string {
  let from = 0;
  let to = text.length;
  while (from < to && GO_SPACE_CHAR.test(text[from] as string)) from++;
  while (to > from && GO_SPACE_CHAR.test(text[to - 1] as string)) to--;
  return text.slice(from, to);
}

/** robfig v3.0.1 constantdelay.go `Every(d)`: at least one second, truncated to whole seconds; in ms. */
function everyDelayMs(text: string): number {
  const ns = parseGoDurationNs(text);
  if (ns < 1_000_000_000n) return 1000;
  return Number((ns - (ns % 1_000_000_000n)) / 1_000_000n);
}

/**
 * strconv.Atoi as robfig's mustParseInt uses it: `[+-]?[0-9]+` within the int64 range, and not negative.
 * The result only needs to be exact up to the field bounds and non-zero when the digits are: a larger
 * value is refused as above the maximum, or as a step gives just the first value of the range.
 */
function goAtoiNonNegative(text: string, what: string, def: FieldDef): number {
  const m = /^([+-]?)([0-9]+)$/.exec(text);
  if (!m) throw new CronSyntaxError(`invalid ${def.name} ${what} "${text}"`);
  const digits = (m[2] as string).replace(/^0+(?=.)/, '');
  if (digits.length > 19 || (digits.length === 19 && digits > '9223372036854775807')) {
    throw new CronSyntaxError(`${def.name} ${what} "${text}" is out of range`);
  }
  const value = Number(digits);
  if (m[1] === '-' && value !== 0) throw new CronSyntaxError(`negative ${def.name} ${what} "${text}"`);
  return value;
}

/** parseIntOrName: a name (strings.ToLower, which lowers U+0130 to `i`, unlike JS) or an Atoi number. */
function parseValue(text: string, def: FieldDef): number {
  const lower = text.replace(/\u0130/g, 'i').toLowerCase();
  const named = def.names?.indexOf(lower) ?? -1;
  if (named >= 0) return named + (def.name === 'month' ? 1 : 0);
  return goAtoiNonNegative(text, 'value', def);
}

/** Values of one field and whether robfig would set its star flag. */
interface Field {
  values: Set<number>;
  star: boolean;
}

/** robfig getField/getRange. */
function parseField(text: string, def: FieldDef): Field {
  const values = new Set<number>();
  let star = false;
  for (const part of text.split(',')) {
    // getField splits with strings.FieldsFunc, which drops empty items.
    if (part === '') continue;
    const slash = part.split('/');
    const [range, stepText] = slash as [string, string | undefined];
    const bounds = range.split('-');
    const first = bounds[0] as string;
    let lo: number;
    let hi: number;
    let partStar = false;
    if (first === '*' || first === '?') {
      // getRange looks only at the text before the first `-`: `*-5` and `?-x` are the whole field.
      lo = def.min;
      hi = def.max;
      partStar = true;
    } else {
      lo = parseValue(first, def);
      if (bounds.length > 2) throw new CronSyntaxError(`invalid ${def.name} range "${range}"`);
      // robfig: "N/S" means N through the field's maximum.
      hi = bounds.length === 2 ? parseValue(bounds[1] as string, def) : stepText !== undefined ? def.max : lo;
    }
    if (slash.length > 2) throw new CronSyntaxError(`invalid ${def.name} field "${text}"`);
    let step = 1;
    if (stepText !== undefined) {
      step = goAtoiNonNegative(stepText, 'step', def);
      if (step > 1) partStar = false;
    }
    if (lo < def.min) throw new CronSyntaxError(`${def.name} value ${lo} is below the minimum ${def.min}`);
    if (hi > def.max) throw new CronSyntaxError(`${def.name} value ${hi} is above the maximum ${def.max}`);
    if (lo > hi) throw new CronSyntaxError(`${def.name} range ${lo}-${hi} runs backwards`);
    if (step === 0) throw new CronSyntaxError(`invalid ${def.name} step "${stepText}"`);
    for (let v = lo; v <= hi; v += step) values.add(v);
    star ||= partStar;
  }
  return { values, star };
}

function mask(values: Set<number>, size: number): boolean[] {
  const out = new Array<boolean>(size).fill(false);
  for (const v of values) out[v] = true;
  return out;
}

function sorted(values: Set<number>): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Parses a robfig ParseStandard expression; throws CronSyntaxError with the reason. */
export function parseStandardCron(expression: string): StandardCron {
  // robfig's Parse: an empty text is an error (blanks alone are 0 fields); a `TZ=`/`CRON_TZ=` prefix runs to
  // the first space (an empty zone is UTC, as time.LoadLocation("") is); the rest is trimmed; a leading `@` is a
  // descriptor.
  if (expression.length === 0) throw new CronSyntaxError('empty spec string');
  let spec = expression;
  let zone: string | undefined;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    if (space < 0) throw new CronSyntaxError(`"${expression}": a TZ= prefix must be followed by a space and a schedule`);
    zone = spec.slice(spec.indexOf('=') + 1, space);
    spec = goTrimSpace(spec.slice(space));
  }
  if (spec.startsWith('@')) {
    if (spec.startsWith('@every ')) {
      let everyMs: number;
      try {
        everyMs = everyDelayMs(spec.slice('@every '.length));
      } catch (e) {
        throw new CronSyntaxError(`"${expression}": failed to parse duration ${spec}: ${(e as Error).message}`);
      }
      const out: StandardCron = { minutes: [], hours: [], daysOfMonth: mask(new Set(), 32), months: mask(new Set(), 13), daysOfWeek: mask(new Set(), 7), dayRule: 'and', everyMs };
      if (zone !== undefined) out.zone = zone;
      return out;
    }
    const expanded = Object.hasOwn(DESCRIPTORS, spec) ? DESCRIPTORS[spec] : undefined;
    if (expanded === undefined) throw new CronSyntaxError(`"${expression}": unrecognized descriptor: ${spec}`);
    spec = expanded;
  }
  const parts = goFields(spec);
  if (parts.length !== 5) throw new CronSyntaxError(`"${expression}": expected exactly 5 fields, found ${parts.length}`);
  const fields = parts.map((p, i) => {
    try {
      return parseField(p, FIELDS[i] as FieldDef);
    } catch (e) {
      throw new CronSyntaxError(`"${expression}": ${(e as Error).message}`);
    }
  });
  const [minute, hour, dom, month, dow] = fields as [Field, Field, Field, Field, Field];
  const out: StandardCron = {
    minutes: sorted(minute.values),
    hours: sorted(hour.values),
    daysOfMonth: mask(dom.values, 32),
    months: mask(month.values, 13),
    daysOfWeek: mask(dow.values, 7),
    dayRule: dom.star || dow.star ? 'and' : 'or',
  };
  if (zone !== undefined) out.zone = zone;
  return out;
}

/**
 * Why `expression` cannot bound a cron window, or undefined when it can: the controller's validation uses
 * the adapter's own parser, so an EHPA that passes validation is one the cron metric can evaluate.
 * `isValidZone` decides `TZ=`/`CRON_TZ=` prefixes (injected so this stays free of tz data).
 */
export function cronExpressionError(expression: string, isValidZone: (zone: string) => boolean): string | undefined {
  try {
    const cron = parseStandardCron(expression);
    if (cron.zone !== undefined && !isValidZone(cron.zone)) return `provided bad location ${cron.zone}`;
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
