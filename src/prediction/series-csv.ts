// Reads a time series from CSV text: a header line, then `time,value[,...]` rows where time is unix seconds
// or `YYYY-MM-DD HH:MM:SS` in UTC. Pure (text in, arrays out) so the CLI and the evaluation share it; every
// problem is reported with its 1-based line number. Rows must be in time order and values finite and
// non-negative (usage series).

export class SeriesCsvError extends Error {
  override name = 'SeriesCsvError';
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

export interface ParsedSeries {
  timestamps: number[];
  values: number[];
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z?$/;
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

function unquote(field: string): string {
  const f = field.trim();
  return f.length >= 2 && f.startsWith('"') && f.endsWith('"') ? f.slice(1, -1).trim() : f;
}

function parseTime(text: string, line: number): number {
  if (NUMBER.test(text)) {
    const t = Number(text);
    if (!Number.isInteger(t)) throw new SeriesCsvError(line, `timestamp "${text}" is not a whole number of seconds`);
    return t;
  }
  const m = DATE_TIME.exec(text);
  if (!m) throw new SeriesCsvError(line, `cannot read time "${text}" (expected unix seconds or YYYY-MM-DD HH:MM:SS)`);
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const ms = Date.UTC(y as number, (mo as number) - 1, d, h, mi, s);
  const back = new Date(ms);
  if (back.getUTCMonth() !== (mo as number) - 1 || back.getUTCDate() !== d || (h as number) > 23 || (mi as number) > 59 || (s as number) > 59) {
    throw new SeriesCsvError(line, `invalid date "${text}"`);
  }
  return ms / 1000;
}

/** `valueColumn` is 0-based among all columns (1 = the second column). */
export function parseSeriesCsv(text: string, valueColumn = 1): ParsedSeries {
  const lines = text.split(/\r?\n/);
  const timestamps: number[] = [];
  const values: number[] = [];
  if (lines.length === 0 || (lines[0] as string).trim() === '') throw new SeriesCsvError(1, 'missing header line');
  for (let i = 1; i < lines.length; i++) {
    const raw = lines[i] as string;
    const lineNo = i + 1;
    if (raw.trim() === '') continue;
    const fields = raw.split(',');
    if (fields.length <= valueColumn) throw new SeriesCsvError(lineNo, `expected at least ${valueColumn + 1} columns, got ${fields.length}`);
    const t = parseTime(unquote(fields[0] as string), lineNo);
    const vText = unquote(fields[valueColumn] as string);
    if (!NUMBER.test(vText)) throw new SeriesCsvError(lineNo, `value "${vText}" is not a number`);
    const v = Number(vText);
    // Usage can be neither negative nor infinite ("1e999" matches NUMBER but reads as Infinity): such a
    // row is a broken export, and forecasting around it would answer something silently wrong.
    if (!Number.isFinite(v)) throw new SeriesCsvError(lineNo, `value "${vText}" is not finite`);
    if (v < 0) throw new SeriesCsvError(lineNo, `value ${vText} is negative (usage cannot be)`);
    const prev = timestamps[timestamps.length - 1];
    if (prev !== undefined && t <= prev) throw new SeriesCsvError(lineNo, `time ${t} is not after the previous row's ${prev}`);
    timestamps.push(t);
    values.push(v);
  }
  if (timestamps.length === 0) throw new SeriesCsvError(lines.length, 'no data rows after the header');
  return { timestamps, values };
}
