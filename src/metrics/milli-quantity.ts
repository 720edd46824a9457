// Kubernetes quantity strings for metric values (../shared/spec/metrics-api.md §3.5). The HPA reads every
// value with MilliValue() = ceil(value × 1000), so we encode integer milli-units only and can never need the
// `u`/`n` suffixes. TODO(merge): unify with src/quantity once that module lands (it implements the full
// apimachinery parser/formatter); this file is the small subset the adapter needs.

/** Largest milli-value an int64 can carry; the HPA overflows past it, so we clamp (§3.5). */
export const MAX_MILLI = 9_223_372_036_854_775_807n;

const SUFFIX_BY_EXP: Record<number, string> = { [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };

/**
 * Canonical DecimalSI text of `milli / 1000`: strip trailing zeros into the exponent, drop back to the
 * multiple of three below, then add the SI suffix. 1500 → "1500m", 2000 → "2", 2_000_000 → "2k".
 */
export function formatMilliQuantity(milli: bigint | number): string {
  let m = typeof milli === 'bigint' ? milli : BigInt(Math.trunc(milli));
  if (m > MAX_MILLI) m = MAX_MILLI;
  if (m < -MAX_MILLI) m = -MAX_MILLI;
  if (m === 0n) return '0';
  const negative = m < 0n;
  let mantissa = negative ? -m : m;
  let exp = -3;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exp += 1;
  }
  // Go: exp%3 in {1,-2} → ×10, in {2,-1} → ×100 (the remainder takes the sign of the dividend).
  const rem = exp % 3;
  if (rem === 1 || rem === -2) {
    mantissa *= 10n;
    exp -= 1;
  } else if (rem === 2 || rem === -1) {
    mantissa *= 100n;
    exp -= 2;
  }
  // Exponents past E cannot be written with a suffix: pad the mantissa back down to 10^18.
  while (exp > 18) {
    mantissa *= 1000n;
    exp -= 3;
  }
  return `${negative ? '-' : ''}${mantissa}${SUFFIX_BY_EXP[exp]}`;
}

/** Milli-units of a float the way the HPA's MilliValue sees it: rounded up, clamped to int64. */
export function toMilli(value: number): bigint {
  if (Number.isNaN(value)) throw new RangeError('metric value is NaN');
  if (value >= 9.2e15) return MAX_MILLI;
  if (value <= -9.2e15) return -MAX_MILLI;
  return BigInt(Math.ceil(value * 1000 - 1e-9));
}

/** Quantity text for a plain number (cores, replicas, …). */
export function formatQuantity(value: number): string {
  return formatMilliQuantity(toMilli(value));
}
