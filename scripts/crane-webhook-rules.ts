// CEL rules for the CRDs that refuse at admission what Crane's EHPA validating webhook refuses
// (gocrane/crane pkg/webhooks/autoscaling/validate.go, create and update; docs/crane-behaviour.md §A.3, §A.4).
// What each rule admits compared with Crane's Go code, and why, is in §A.4.

/** A variable: kube-apiserver's CRD rules have no cel.bind (v1.34), so `[value].all(name, body)` binds it, and the
 *  value is computed once. Only the cron metric keys use it: a string bound this way loses its length bound in
 *  the cost estimate the apiserver checks when the CRD is written (string work on it then has no limit and the
 *  CRD is refused), so the cron rules repeat their sub-expressions instead. */
const bind = (name: string, value: string, body: string): string => `[${value}].all(${name}, ${body})`;

/** Go's unicode.IsSpace, which strings.Fields and strings.TrimSpace split and trim on, as an RE2 class body
 *  (in a CEL raw string): ASCII \t \n \v \f \r and space, U+0085, and the Unicode White_Space characters,
 *  which are all in \p{Z}. */
const GO_SPACE = '\\t\\n\\v\\f\\r\\x{85}\\p{Z}';

const q = (s: string): string => `'${s}'`;

/** A name as robfig compares it after strings.ToLower, spelled out letter by letter: RE2's (?i) would also match
 *  letters Go does not lower to ASCII (U+017F ſ for s, U+212A K for k), and Go lowers U+0130 İ to i. */
const anyCase = (name: string): string => [...name].map((c) => `[${c}${c.toUpperCase()}${c === 'i' ? 'İ' : ''}]`).join('');

interface CronField {
  /** The numbers the field accepts, without leading zeros, as an RE2 alternation. */
  numbers: string;
  names?: readonly string[];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const FIELDS: readonly CronField[] = [
  { numbers: '[0-9]|[1-5][0-9]' }, // minute 0-59
  { numbers: '[0-9]|1[0-9]|2[0-3]' }, // hour 0-23
  { numbers: '[1-9]|[12][0-9]|3[01]' }, // day of month 1-31
  { numbers: '[1-9]|1[0-2]', names: MONTHS }, // month 1-12
  { numbers: '[0-6]', names: WEEKDAYS }, // day of week 0-6
];

/**
 * One field as robfig reads it (docs/crane-behaviour.md §C.5.4): items split on ',' with empty ones dropped
 * (strings.FieldsFunc), so a field of commas alone is accepted; an item is `*` or `?` (anything after a '-' is
 * never read), or a value or value-value, each with an optional /step. A value is strconv.Atoi's (an optional
 * '+', any leading zeros) within the field's range, or a name. Range order (5-3) and a step's int64 range are
 * checked by cronScheduleRules, which can compare numbers.
 */
function fieldPattern(f: CronField): string {
  const value = `(?:[+]?0*(?:${f.numbers})${f.names ? `|${f.names.map(anyCase).join('|')}` : ''})`;
  const item = `(?:(?:[*?](?:-[^,/${GO_SPACE}]*)?|${value}(?:-${value})?)(?:/[+]?0*[1-9][0-9]*)?)`;
  return `(?:,+|,*${item}(?:,+${item})*,*)`;
}

/** The five fields, with Go's blanks around and between them (strings.Fields). */
const FIVE_FIELDS = `^[${GO_SPACE}]*${FIELDS.map(fieldPattern).join(`[${GO_SPACE}]+`)}[${GO_SPACE}]*$`;

/** Every numeric `a-b` range that starts an item, with the delimiter before it (',' or a blank; the text is
 *  searched with a blank put in front, so there always is one): a range after `*-` is never read by robfig
 *  and is not matched here. */
const RANGES = `[,${GO_SPACE}][+]?[0-9]+-[+]?[0-9]+`;

/** `e` with month and weekday names as their numbers (the pattern has checked that each name is in its own
 *  field, and names are whole items or range ends, so no other text changes), for comparing range ends. */
const namesAsNumbers = (e: string): string =>
  [...MONTHS.map((n, i) => [n, i + 1] as const), ...WEEKDAYS.map((n, i) => [n, i] as const)]
    .reduce((acc, [n, v]) => `${acc}.replace('${n}', '${v}')`, `${e}.replace('İ', 'i').lowerAscii()`);

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

const hasZonePrefix = "(self.startsWith('TZ=') || self.startsWith('CRON_TZ='))";

/** The schedule after robfig's `TZ=`/`CRON_TZ=` prefix: from the first space on, trimmed. */
const afterZone = `(${hasZonePrefix} && self.contains(' ') ? self.substring(self.indexOf(' ')).trim() : self)`;

/** A zone Go's time.LoadLocation loads on the apiserver: CEL's timestamp getters load a zone name with it
 *  (and fail on an unknown one, which refuses the object); a name with ':' would be read as a UTC offset
 *  instead, which LoadLocation refuses, so such a name is refused outright. */
export const loadsAsZone = (zone: string): string => `(!${zone}.contains(':') && timestamp('2000-01-01T00:00:00Z').getHours(${zone}) >= 0)`;

/** Rules for a cron's `start` or `end` (self): robfig/cron v3.0.1 ParseStandard, as Crane's webhook runs it. */
export function cronScheduleRules(field: 'start' | 'end'): { rule: string; message: string }[] {
  const zone = "self.substring(self.indexOf('=') + 1, self.indexOf(' '))";
  const s = afterZone;
  const descriptor = `(${s} in [${DESCRIPTORS.map(q).join(', ')}] || (${s}.startsWith('@every ') && string(duration(${s}.substring(7))) != ''))`;
  // The pattern checks every value's bounds; what needs numbers is in two more rules (one would exceed the cost
  // budget a CRD rule gets, its estimate times the 50 crons): a range's start not after its end, and a step
  // within int64 (CEL's int() fails beyond it, which refuses the object as Atoi's range error does).
  const ordered = `int(x.substring(1, x.indexOf('-'))) <= int(x.substring(x.indexOf('-') + 1))`;
  const why = "so Crane's webhook (robfig/cron ParseStandard) refuses it";
  return [
    {
      rule: `!${hasZonePrefix} || (self.contains(' ') && ${loadsAsZone(zone)})`,
      message: `${field}: a TZ= or CRON_TZ= prefix needs a time zone Go's time.LoadLocation knows, then a space and the schedule, ${why}`,
    },
    {
      rule: `${s}.startsWith('@') ? ${descriptor} : ${s}.matches(r'${FIVE_FIELDS}')`,
      message:
        `${field} is not a schedule robfig/cron ParseStandard accepts, so Crane's webhook refuses it: five fields (minute 0-59, hour 0-23, ` +
        'day of month 1-31, month 1-12 or jan-dec, day of week 0-6 or sun-sat; each a list of *, ?, N, N-M, with /step >= 1) or ' +
        '@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <Go duration>',
    },
    {
      rule: `${s}.startsWith('@') || (' ' + ${namesAsNumbers(s)}).findAll(r'${RANGES}').all(x, ${ordered})`,
      message: `${field} has a range N-M with N after M, ${why}`,
    },
    {
      rule: `${s}.startsWith('@') || ${s}.findAll(r'/[+]?[0-9]+').all(x, int(x.substring(1)) > 0)`,
      message: `${field} has a step of 0 or one beyond int64, ${why}`,
    },
  ];
}

/** Rule for a cron's `timezone` (self), as Crane's webhook loads it with time.LoadLocation. */
export const cronTimeZoneRule = {
  rule: loadsAsZone('self'),
  message: "timezone is not a zone Go's time.LoadLocation knows (IANA names are case-sensitive; UTC, Local and an empty string also work), so Crane's webhook refuses it",
};

/**
 * Crane's cron metric name without its constant `cron-<namespace>-<ehpa>-` prefix (pkg/metricprovider
 * EHPACronMetricName, docs/crane-behaviour.md §A.3): `<name>-<zone>-<shape(start)>-<shape(end)>`, lower-cased,
 * with / . : % as '-'. `unset` is the zone's name when the cron has none: UTC in v0.4–v0.7, Local at HEAD.
 */
function cronMetricKey(c: string, unset: string): string {
  const shape = (e: string): string => `${e}.replace(' ', '').replace('*', 'x').replace('/', 'sl').replace('?', 'qm')`;
  const zone = `(has(${c}.timezone) ? (${c}.timezone == '' ? 'UTC' : ${c}.timezone) : '${unset}')`;
  const joined = `(${c}.name + '-' + ${zone} + '-' + ${shape(`${c}.start`)} + '-' + ${shape(`${c}.end`)})`;
  return `${joined}.lowerAscii().replace('/', '-').replace('.', '-').replace(':', '-').replace('%', '-')`;
}

/** Rule for spec.crons (self): no two crons give Crane the same cron metric name, in either generation. */
export const cronMetricNameRule = {
  rule: ['UTC', 'Local'].map((unset) => bind('keys', `self.map(c, ${cronMetricKey('c', unset)})`, 'keys.all(k, keys.exists_one(j, j == k))')).join(' && '),
  message:
    "crons: two crons give Crane the same cron metric name (name, timezone, start and end, lower-cased, spaces dropped, / . : % read as '-'; " +
    'an unset timezone counts as UTC for Crane v0.7 and as Local for HEAD), which Crane\'s webhook refuses',
};
