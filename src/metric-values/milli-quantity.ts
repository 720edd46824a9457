// Metric values as the HPA reads them (docs/metrics-api.md §3.5): every value becomes integer
// milli-units (MilliValue() = ceil(value × 1000)), clamped to int64, and is written with src/quantity's
// apimachinery-exact canonical formatter.
import { formatMilli } from '../quantity/index.ts';

/** Largest milli-value an int64 can carry; the HPA overflows past it, so we clamp (docs/metrics-api.md §3.5). */
export const MAX_MILLI = 9_223_372_036_854_775_807n;

/** Canonical DecimalSI text of `milli / 1000`, clamped to int64: 1500 → "1500m", 2000 → "2", 2_000_000 → "2k". */
export function formatMilliQuantity(milli: bigint | number): string {
  let m = typeof milli === 'bigint' ? milli : BigInt(Math.trunc(milli));
  if (m > MAX_MILLI) m = MAX_MILLI;
  if (m < -MAX_MILLI) m = -MAX_MILLI;
  return formatMilli(m);
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
