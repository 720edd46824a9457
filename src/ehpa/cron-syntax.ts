// Checks a cron expression the way robfig/cron v3.0.1 `ParseStandard` accepts it (Crane's webhook
// rejects what that parser rejects, ../shared/spec/crane-ehpa.md §A.3, §C.5.4). Only acceptance is
// decided here; when a window is active is the adapter's business.

interface FieldBounds {
  name: string;
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12,
};
const DAYS: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

const FIELDS: readonly FieldBounds[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 6, names: DAYS },
];

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

// Go's strconv.Atoi: optional sign, decimal digits.
function atoi(text: string): number | undefined {
  return /^[+-]?\d+$/.test(text) ? Number(text) : undefined;
}

function parseValue(text: string, f: FieldBounds): number {
  const named = f.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  const n = atoi(text);
  if (n === undefined) throw new Error(`failed to parse int from ${text}`);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${text}`);
  return n;
}

function checkRange(expr: string, f: FieldBounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] as string).split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = f.min;
    end = f.max;
  } else {
    start = parseValue(lowAndHigh[0] as string, f);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseValue(lowAndHigh[1] as string, f);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseValue(rangeAndStep[1] as string, { ...f, names: undefined });
    if (lowAndHigh.length === 1) end = f.max;
  } else if (rangeAndStep.length > 2) {
    throw new Error(`too many slashes: ${expr}`);
  }
  if (start < f.min) throw new Error(`beginning of range (${start}) below minimum (${f.min}): ${expr}`);
  if (end > f.max) throw new Error(`end of range (${end}) above maximum (${f.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
}

/**
 * Returns why `spec` would not parse with robfig's standard parser, or undefined when it would.
 * `isValidZone` decides `TZ=`/`CRON_TZ=` prefixes (injected so this stays free of tz data).
 */
export function cronSyntaxError(spec: string, isValidZone: (zone: string) => boolean): string | undefined {
  let s = spec;
  if (s.length === 0) return 'empty spec string';
  if (s.startsWith('TZ=') || s.startsWith('CRON_TZ=')) {
    const i = s.indexOf(' ');
    if (i < 0) return `provided bad location ${s.slice(s.indexOf('=') + 1)}`;
    const zone = s.slice(s.indexOf('=') + 1, i);
    if (!isValidZone(zone)) return `provided bad location ${zone}`;
    s = s.slice(i).trim();
  }
  if (s.startsWith('@')) {
    if (DESCRIPTORS.has(s)) return undefined;
    if (s.startsWith('@every ')) {
      return /^(\d+(\.\d*)?(ns|us|µs|ms|s|m|h))+$/.test(s.slice(7).trim()) ? undefined : `failed to parse duration ${s}`;
    }
    return `unrecognized descriptor: ${s}`;
  }
  const fields = s.split(/\s+/).filter((x) => x.length > 0);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: ${s}`;
  try {
    fields.forEach((field, i) => {
      for (const part of field.split(',')) checkRange(part, FIELDS[i] as FieldBounds);
    });
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}
