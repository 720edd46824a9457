// Kubernetes resource quantities, parsed and printed exactly like k8s.io/apimachinery's resource.Quantity:
// ParseQuantity (including its rounding up to nano-units, the BinarySI cap and the cached original
// string that MarshalJSON echoes back), canonical String(), Cmp, Value/MilliValue (rounded up) and
// RoundUp. Values are exact: an unscaled BigInt times 10^scale.

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

export class QuantityParseError extends Error {
  override name = 'QuantityParseError';
}

const MAX_INT64 = 9223372036854775807n;
const NANO = -9;
const MAX_INT64_FACTORS = 18;

const DEC_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC_BY_EXPONENT = new Map<number, string>(Object.entries(DEC_SUFFIXES).map(([s, e]) => [e, s]));
const BIN_BY_EXPONENT = new Map<number, string>(Object.entries(BIN_SUFFIXES).map(([s, e]) => [e, s]));

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/** Divides a/b rounding away from zero (inf.RoundUp / apimachinery's "rounded up"). */
function divAwayFromZero(a: bigint, b: bigint): { q: bigint; exact: boolean } {
  const q = a / b;
  const r = a % b;
  if (r === 0n) return { q, exact: true };
  return { q: a < 0n ? q - 1n : q + 1n, exact: false };
}

export class Quantity {
  // The unscaled value is kept as a safe-integer number when it fits (the common case: millicores and
  // bytes) and converted to a BigInt only when exact arithmetic needs it.
  private big: bigint | undefined;
  private readonly small: number;

  /** @param cached the original text when apimachinery would keep it (it is then what String() shows). */
  private constructor(
    unscaled: bigint | number,
    readonly scale: number,
    readonly format: QuantityFormat,
    private readonly decimalForm: boolean,
    private readonly cached?: string,
  ) {
    if (typeof unscaled === 'number') {
      if (!Number.isSafeInteger(unscaled)) throw new RangeError(`quantity value ${unscaled} is not a safe integer`);
      this.small = unscaled;
    } else {
      this.big = unscaled;
      this.small = Number.NaN;
    }
  }

  /** The exact value is unscaled × 10^scale. */
  get unscaled(): bigint {
    if (this.big === undefined) this.big = BigInt(this.small);
    return this.big;
  }

  /** resource.NewScaledQuantity(value, scale): DecimalSI. */
  static scaled(value: bigint | number, scale: number): Quantity {
    return new Quantity(value, scale, 'DecimalSI', false);
  }

  /** resource.NewQuantity(value, format). */
  static of(value: bigint | number, format: QuantityFormat): Quantity {
    return new Quantity(value, 0, format, false);
  }

  /** resource.NewMilliQuantity(milli, format). */
  static milli(milli: bigint | number, format: QuantityFormat): Quantity {
    return new Quantity(milli, -3, format, false);
  }

  /** resource.ParseQuantity. Throws QuantityParseError. */
  static parse(text: string): Quantity {
    return parseQuantity(text);
  }

  /** @internal used by the parser. */
  static make(unscaled: bigint, scale: number, format: QuantityFormat, decimalForm: boolean, cached?: string): Quantity {
    return new Quantity(unscaled, scale, format, decimalForm, cached);
  }

  isZero(): boolean {
    return this.big === undefined ? this.small === 0 : this.big === 0n;
  }

  sign(): number {
    const u = this.unscaled;
    return u === 0n ? 0 : u < 0n ? -1 : 1;
  }

  /** Compares exact values: -1, 0 or 1. */
  cmp(other: Quantity): number {
    const s = Math.min(this.scale, other.scale);
    const a = this.unscaled * pow10(this.scale - s);
    const b = other.unscaled * pow10(other.scale - s);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** The value at 10^scale as an integer, rounded away from zero, and whether that was exact. */
  asScale(scale: number): { value: bigint; exact: boolean } {
    if (this.scale >= scale) return { value: this.unscaled * pow10(this.scale - scale), exact: true };
    const r = divAwayFromZero(this.unscaled, pow10(scale - this.scale));
    return { value: r.q, exact: r.exact };
  }

  /** Quantity.Value(): whole units rounded up. */
  value(): number {
    if (this.big === undefined && this.scale === 0) return this.small;
    return Number(this.asScale(0).value);
  }

  /** Quantity.MilliValue(): milli-units rounded up. */
  milliValue(): number {
    if (this.big === undefined && this.scale === -3) return this.small;
    return Number(this.asScale(-3).value);
  }

  /** Quantity.RoundUp(scale): a copy rounded up to 10^scale (keeps the original text when nothing changes). */
  roundUp(scale: number): Quantity {
    if (!this.decimalForm && this.scale >= scale) return this;
    const { value } = this.asScale(scale);
    return new Quantity(value, scale, this.format, this.decimalForm);
  }

  /** Canonical form, or the original text when apimachinery keeps it; what goes into JSON. */
  toString(): string {
    return this.cached ?? canonicalString(this.unscaled, this.scale, this.format);
  }

  toJSON(): string {
    return this.toString();
  }
}

function removeFactors(v: bigint, base: bigint): { v: bigint; times: number } {
  let times = 0;
  let neg = false;
  if (v < 0n) {
    neg = true;
    v = -v;
  }
  while (v >= base && v % base === 0n) {
    v /= base;
    times++;
  }
  return { v: neg ? -v : v, times };
}

function canonicalDecimal(unscaled: bigint, scale: number): { number: string; exponent: number } {
  const r = removeFactors(unscaled, 10n);
  let amount = r.v;
  let exponent = scale + r.times;
  while (exponent % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  return { number: amount.toString(), exponent };
}

function canonicalString(unscaled: bigint, scale: number, fmt: QuantityFormat): string {
  if (unscaled === 0n) return '0';
  let format = fmt;
  let rounded = 0n;
  if (format === 'BinarySI') {
    // -1024 < q < 1024 prints as DecimalSI, and so does a value that is not a whole number.
    const whole = scale >= 0 ? unscaled * pow10(scale) : undefined;
    const inSmallRange = cmpWithInt(unscaled, scale, -1024n) > 0 && cmpWithInt(unscaled, scale, 1024n) < 0;
    if (inSmallRange) format = 'DecimalSI';
    else if (whole !== undefined) rounded = whole;
    else {
      const r = divAwayFromZero(unscaled, pow10(-scale));
      if (!r.exact) format = 'DecimalSI';
      rounded = r.q;
    }
  }
  if (format === 'BinarySI') {
    const r = removeFactors(rounded, 1024n);
    return r.v.toString() + (BIN_BY_EXPONENT.get(r.times * 10) ?? '');
  }
  const { number, exponent } = canonicalDecimal(unscaled, scale);
  if (format === 'DecimalExponent') return exponent === 0 ? number : `${number}e${exponent}`;
  // apimachinery prints no suffix when the exponent has none (beyond E or below n).
  return number + (DEC_BY_EXPONENT.get(exponent) ?? '');
}

function cmpWithInt(unscaled: bigint, scale: number, n: bigint): number {
  let a = unscaled;
  let b = n;
  if (scale >= 0) a *= pow10(scale);
  else b *= pow10(-scale);
  return a < b ? -1 : a > b ? 1 : 0;
}

const SUFFIX_CHARS = 'eEinumkKMGTP';

interface Parts {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function splitQuantity(str: string): Parts {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  let num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && SUFFIX_CHARS.includes(str[i] as string)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i < end) throw new QuantityParseError(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': "${str}"`);
  num = num || '0';
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

function interpretSuffix(s: string): { base: number; exponent: number; format: QuantityFormat } | undefined {
  if (s in DEC_SUFFIXES) return { base: 10, exponent: DEC_SUFFIXES[s] as number, format: 'DecimalSI' };
  if (s in BIN_SUFFIXES) return { base: 2, exponent: BIN_SUFFIXES[s] as number, format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'E' || s[0] === 'e')) {
    const rest = s.slice(1);
    if (!/^[+-]?\d+$/.test(rest)) return undefined;
    const e = Number(rest);
    if (!Number.isSafeInteger(e)) return undefined;
    return { base: 10, exponent: e, format: 'DecimalExponent' };
  }
  return undefined;
}

/** resource.ParseQuantity, or undefined where it returns an error (for callers that treat text which is not a
 *  quantity as "not a quantity" rather than a failure: comparisons, optional fields). */
export function tryParseQuantity(text: string): Quantity | undefined {
  try {
    return parseQuantity(text);
  } catch (e) {
    if (e instanceof QuantityParseError || e instanceof RangeError) return undefined;
    throw e;
  }
}

/** Answers of quantityMilli by text. Pods' requests repeat the same few strings ("100m", "1") across a cluster,
 *  and every EHPA reconcile sums its pods' requests: at 10,000 EHPAs parsing them again was ~80 MiB of garbage
 *  in two minutes (a sampling allocation profile, BENCHMARKS.md "scale"). The texts come from tenants, so the
 *  memo is bounded in entries and in the length of a text it keeps. */
let milliByText = new Map<string, number | undefined>();
const MILLI_MEMO_ENTRIES = 4096;
const MILLI_MEMO_TEXT_LENGTH = 64;

/** Empties quantityMilli's memo (test/helpers/fresh-caches.ts: no test passes on an earlier test's answer). */
export function clearQuantityMemo(): void {
  milliByText = new Map();
}

/** Texts quantityMilli remembers now (at most MILLI_MEMO_ENTRIES). */
export function quantityMemoEntries(): number {
  return milliByText.size;
}

/** Quantity.MilliValue() of a quantity's text (milli-units, rounded up), or undefined if it is not one. */
export function quantityMilli(text: string): number | undefined {
  if (milliByText.has(text)) return milliByText.get(text);
  const milli = tryParseQuantity(text)?.milliValue();
  if (text.length <= MILLI_MEMO_TEXT_LENGTH) {
    if (milliByText.size >= MILLI_MEMO_ENTRIES) milliByText = new Map();
    milliByText.set(text, milli);
  }
  return milli;
}

/** resource.ParseQuantity. */
export function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw new QuantityParseError('quantities must match the regular expression');
  if (str === '0') return Quantity.make(0n, 0, 'DecimalSI', false, '0');
  const { positive, value, num, denom, suffix } = splitQuantity(str);
  const interp = interpretSuffix(suffix);
  if (!interp) throw new QuantityParseError(`unable to parse quantity's suffix: "${str}"`);
  const { base, exponent } = interp;
  let format = interp.format;

  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc(Math.fround((Math.fround(exponent) * 3) / 10)) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const v = BigInt(shifted);
      let result = v * mantissa;
      if (result <= MAX_INT64) {
        if (!positive) result = -result;
        let keep = false;
        if (format === 'BinarySI') keep = exponent % 10 === 0 && (v & 7n) !== 0n;
        else keep = scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return Quantity.make(result, scale, format, false, keep ? str : undefined);
      }
    }
  }

  // Arbitrary precision path (inf.Dec): exact decimal, rounded up to nano-units.
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(value);
  if (!m) throw new QuantityParseError(`unable to parse quantity's numeric part: "${str}"`);
  let unscaled = BigInt((m[2] || '0') + (m[3] ?? ''));
  let dscale = -(m[3] ?? '').length;
  if (base === 10) dscale += exponent;
  else unscaled *= 1n << BigInt(exponent);
  if (dscale < NANO) {
    unscaled = divAwayFromZero(unscaled, pow10(NANO - dscale)).q;
    dscale = NANO;
  }
  if (format === 'BinarySI') {
    // Cap at MaxInt64 (maxAllowed), then a value in (0, 1) is shown as DecimalSI.
    if (cmpWithInt(unscaled, dscale, MAX_INT64) > 0) {
      unscaled = MAX_INT64;
      dscale = 0;
    }
    if (cmpWithInt(unscaled, dscale, 1n) < 0 && unscaled > 0n) format = 'DecimalSI';
  }
  if (!positive) unscaled = -unscaled;
  return Quantity.make(unscaled, dscale, format, true);
}

/** Canonical string of an integer number of milli-units (NewMilliQuantity / NewScaledQuantity(m, -3)). */
export function formatMilli(milli: number | bigint, format: QuantityFormat = 'DecimalSI'): string {
  return canonicalString(BigInt(milli), -3, format);
}

/** Canonical string of an integer number of bytes in BinarySI (NewQuantity(bytes, BinarySI)). */
export function formatBytes(bytes: number): string {
  return canonicalString(BigInt(bytes), 0, 'BinarySI');
}

/** Canonical string of whole units in DecimalSI (NewQuantity(n, DecimalSI)). */
export function formatDecimal(units: number): string {
  return canonicalString(BigInt(units), 0, 'DecimalSI');
}

/**
 * Canonical DecimalSI string for a float number of cores, e.g. 0.233 -> "233m". The float's shortest
 * decimal form is taken exactly (so 0.233 is 233m, not 233.00000000000003m) and rounded up to whole
 * milli-cores, like Quantity.MilliValue.
 */
export function formatCores(cores: number): string {
  if (!Number.isFinite(cores)) throw new RangeError(`cannot format ${cores} cores`);
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(cores));
  if (!m) throw new RangeError(`cannot format ${cores} cores`);
  const frac = m[3] ?? '';
  let unscaled = BigInt(m[2] + frac);
  if (m[1] === '-') unscaled = -unscaled;
  const scale = Number(m[4] ?? 0) - frac.length + 3;
  const milli = scale >= 0 ? unscaled * pow10(scale) : divAwayFromZero(unscaled, pow10(-scale)).q;
  return canonicalString(milli, -3, 'DecimalSI');
}
