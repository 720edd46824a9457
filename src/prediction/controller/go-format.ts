// Go's `fmt.Sprintf("%.5f", x)`, which Crane writes sample values with (§D.10). JavaScript's toFixed
// rounds exact ties up ("larger n"), Go rounds them to even: 1/64 is "0.01562" in Go, "0.01563" in JS.
// Only exact binary ties differ, so those are decided with exact integer arithmetic.

const view = new DataView(new ArrayBuffer(8));

/** x = mantissa * 2^exponent exactly (finite x). */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exponent: number;
  if (biased === 0) exponent = -1074;
  else {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  return { mantissa, exponent };
}

export function goFixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  const fast = ax.toFixed(digits);
  const { mantissa, exponent } = decompose(ax);
  if (exponent < 0) {
    const num = mantissa * 10n ** BigInt(digits);
    const den = 1n << BigInt(-exponent);
    if ((num % den) * 2n === den) {
      let q = num / den;
      if (q % 2n === 1n) q += 1n;
      const s = q.toString().padStart(digits + 1, '0');
      const out = digits > 0 ? `${s.slice(0, -digits)}.${s.slice(-digits)}` : s;
      return (neg ? '-' : '') + out;
    }
  }
  return (neg ? '-' : '') + fast;
}
