// Go's fmt "%.5f" for float64, the format Crane writes TSP sample values in (docs/crane-behaviour.md §D.1/§D.10). JavaScript's
// toFixed agrees except on exact decimal ties (Go rounds half to even on the exact binary value, toFixed
// rounds half up), on -0, on non-finite values and above 1e21 (toFixed switches to exponent notation).

const SCALE = 100_000n;

/** Exact binary value of a finite double as mantissa * 2^exponent (BigInt mantissa). */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
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

function formatScaled(n: bigint, negative: boolean): string {
  const digits = n.toString().padStart(6, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -5)}.${digits.slice(-5)}`;
}

export function formatGoFixed5(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  const negative = x < 0 || Object.is(x, -0);
  const { mantissa, exponent } = decompose(Math.abs(x));
  // value * 10^5 = mantissa * 10^5 * 2^exponent, rounded half to even.
  let scaled: bigint;
  if (exponent >= 0) scaled = (mantissa * SCALE) << BigInt(exponent);
  else {
    const den = 1n << BigInt(-exponent);
    const num = mantissa * SCALE;
    const q = num / den;
    const r = num % den;
    const twice = 2n * r;
    scaled = twice > den || (twice === den && q % 2n === 1n) ? q + 1n : q;
  }
  return formatScaled(scaled, negative);
}
