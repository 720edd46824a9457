// "Is what the API server stored the same as what we want?" The server canonicalises quantities
// ("0.5" is stored as "500m"), so a byte-wise comparison would rewrite objects on every reconcile.
// Strings that both parse as Kubernetes quantities compare by value; everything else compares exactly.

const SUFFIX_EXP10: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const SUFFIX_EXP2: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const QUANTITY = /^([+-]?)(\d+\.?\d*|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/** Exact value of a quantity as a reduced fraction, or undefined if `text` is not a quantity. */
export function quantityFraction(text: string): { num: bigint; den: bigint } | undefined {
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const [, sign, digits, exp, suffix = ''] = m as unknown as [string, string, string, string | undefined, string | undefined];
  const [intPart, frac = ''] = digits.split('.');
  let num = BigInt((intPart || '0') + frac) * (sign === '-' ? -1n : 1n);
  let exp10 = -frac.length;
  let den = 1n;
  if (exp) exp10 += Number(exp.slice(1));
  else if (suffix in SUFFIX_EXP2) num *= 1n << BigInt(SUFFIX_EXP2[suffix] as number);
  else exp10 += SUFFIX_EXP10[suffix] as number;
  if (exp10 >= 0) num *= 10n ** BigInt(exp10);
  else den = 10n ** BigInt(-exp10);
  const g = gcd(num < 0n ? -num : num, den);
  return { num: num / g, den: den / g };
}

/** Reduced-fraction text of a quantity's value ("500m" and "0.5" both give "1/2"). */
export function quantityKey(text: string): string | undefined {
  const f = quantityFraction(text);
  return f && `${f.num}/${f.den}`;
}

/** apimachinery `MilliValue()`: the value in thousandths, rounded up. Undefined if not a quantity. */
export function quantityMilli(text: string): number | undefined {
  const f = quantityFraction(text);
  if (!f) return undefined;
  const scaled = f.num * 1000n;
  let q = scaled / f.den;
  if (scaled % f.den !== 0n && scaled > 0n) q += 1n;
  return Number(q);
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a || 1n;
}

/** Deep equality with quantity-aware strings; `undefined` and absent keys are the same thing. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'string' && typeof b === 'string') {
    const qa = quantityKey(a);
    return qa !== undefined && qa === quantityKey(b);
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => semanticEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!semanticEqual(ao[k], bo[k])) return false;
  return true;
}
