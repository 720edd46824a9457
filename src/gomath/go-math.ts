// Ports of Go's math.Frexp, Ldexp, Log, Exp2 and Pow (pure-Go algorithms, linux/amd64 results).
// The VPA recommender's bucket boundaries, bucket lookups and decay factors are computed with these, and
// JavaScript's Math.log / Math.pow / 2**x differ from Go in the last ulp for a fraction of inputs, which
// moves bucket starts and (after truncation to integers) whole bytes of a recommendation.
// See docs/vpa-recommender.md §7.1.

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer); // little-endian: u32[1] holds sign, exponent, high mantissa
const SMALLEST_NORMAL = 2.2250738585072014e-308; // 2**-1022
const TWO52 = 4503599627370496; // 1 << 52
const TWO_M53 = 1 / 9007199254740992; // 2**-53

let frexpExp = 0;

/** Go math.Frexp's fraction; the exponent is left in `lastFrexpExponent()` to avoid an allocation. */
function frexpFrac(f: number): number {
  if (f === 0 || !Number.isFinite(f)) {
    frexpExp = 0;
    return f;
  }
  let exp = 0;
  if (Math.abs(f) < SMALLEST_NORMAL) {
    f *= TWO52;
    exp = -52;
  }
  f64[0] = f;
  const hi = u32[1] as number;
  exp += ((hi >>> 20) & 0x7ff) - 1023 + 1;
  u32[1] = (hi & ~(0x7ff << 20)) | (1022 << 20);
  frexpExp = exp;
  return f64[0] as number;
}

/** Go math.Frexp: f = frac × 2^exp with |frac| in [0.5, 1). */
export function frexp(f: number): [number, number] {
  const frac = frexpFrac(f);
  return [frac, frexpExp];
}

/** Go math.Ldexp: frac × 2^exp, with Go's underflow/denormal handling. */
export function ldexp(frac: number, exp: number): number {
  if (frac === 0 || !Number.isFinite(frac)) return frac;
  if (Math.abs(frac) < SMALLEST_NORMAL) {
    frac *= TWO52;
    exp -= 52;
  }
  f64[0] = frac;
  const hi = u32[1] as number;
  exp += ((hi >>> 20) & 0x7ff) - 1023;
  if (exp < -1075) return frac < 0 ? -0 : 0;
  if (exp > 1023) return frac < 0 ? -Infinity : Infinity;
  let m = 1;
  if (exp < -1022) {
    exp += 53;
    m = TWO_M53;
  }
  u32[1] = (hi & ~(0x7ff << 20)) | ((exp + 1023) << 20);
  return m * (f64[0] as number);
}

const LN2_HI = 6.9314718036912381649e-1;
const LN2_LO = 1.90821492927058770002e-10;
const L1 = 6.66666666666673513e-1;
const L2 = 3.999999999940941908e-1;
const L3 = 2.857142874366239149e-1;
const L4 = 2.222219843214978396e-1;
const L5 = 1.818357216161805012e-1;
const L6 = 1.531383769920937332e-1;
const L7 = 1.479819860511658591e-1;
const SQRT2_HALF = 0.7071067811865476; // float64(Sqrt2/2), an exact-arithmetic Go constant

/** Go math.Log (fdlibm algorithm; amd64 assembly gives the same results). */
export function goLog(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x < 0) return NaN;
  if (x === 0) return -Infinity;
  let f1 = frexpFrac(x);
  let ki = frexpExp;
  if (f1 < SQRT2_HALF) {
    f1 *= 2;
    ki--;
  }
  const f = f1 - 1;
  const k = ki;
  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const t1 = s2 * (L1 + s4 * (L3 + s4 * (L5 + s4 * L7)));
  const t2 = s4 * (L2 + s4 * (L4 + s4 * L6));
  const R = t1 + t2;
  const hfsq = 0.5 * f * f;
  return k * LN2_HI - (hfsq - (s * (hfsq + R) + k * LN2_LO) - f);
}

const P1 = 1.66666666666666657415e-1;
const P2 = -2.77777777770155933842e-3;
const P3 = 6.61375632143793436117e-5;
const P4 = -1.6533902205465251539e-6;
const P5 = 4.13813679705723846039e-8;

/** Go math.Exp2 (pure Go on amd64). */
export function goExp2(x: number): number {
  if (Number.isNaN(x)) return x;
  if (x > 1.0239999999999999e3) return Infinity;
  if (x < -1.074e3) return 0;
  let k = 0;
  if (x > 0) k = Math.trunc(x + 0.5);
  else if (x < 0) k = Math.trunc(x - 0.5);
  const t = x - k;
  const hi = t * LN2_HI;
  const lo = -t * LN2_LO;
  const r = hi - lo;
  const tt = r * r;
  const c = r - tt * (P1 + tt * (P2 + tt * (P3 + tt * (P4 + tt * P5))));
  const y = 1 - (lo - (r * c) / (2 - c) - hi);
  return ldexp(y, k);
}

function isOddInt(y: number): boolean {
  if (Math.abs(y) >= 2 ** 53) return false;
  return Number.isInteger(y) && Math.abs(y % 2) === 1;
}

/**
 * Go math.Pow. The integer-exponent path (all the recommender uses: bucket ratios and the ±1/−2
 * confidence exponents) is exact Go; a fractional exponent falls back to Math.exp/Math.log for the
 * fractional part, which upstream computes with its amd64 assembly Exp and is not ported.
 */
export function goPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (y === 1) return x;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === 0) {
    const negZero = Object.is(x, -0);
    if (y < 0) return negZero && isOddInt(y) ? -Infinity : Infinity;
    if (y > 0) return negZero && isOddInt(y) ? x : 0;
  }
  if (!Number.isFinite(y)) {
    if (x === -1) return 1;
    if (Math.abs(x) < 1 === (y === Infinity)) return 0;
    return Infinity;
  }
  if (!Number.isFinite(x)) {
    if (x === -Infinity) return goPow(1 / x, -y);
    if (y < 0) return 0;
    if (y > 0) return Infinity;
  }
  if (y === 0.5) return Math.sqrt(x);
  if (y === -0.5) return 1 / Math.sqrt(x);

  const ay = Math.abs(y);
  let yi = Math.trunc(ay);
  let yf = ay - yi;
  if (yf !== 0 && x < 0) return NaN;
  if (yi >= 2 ** 63) {
    if (x === -1) return 1;
    if (Math.abs(x) < 1 === y > 0) return 0;
    return Infinity;
  }
  let a1 = 1.0;
  let ae = 0;
  if (yf !== 0) {
    if (yf > 0.5) {
      yf--;
      yi++;
    }
    a1 = Math.exp(yf * goLog(x));
  }
  let x1 = frexpFrac(x);
  let xe = frexpExp;
  // yi < 2^63 but may exceed 2^53; halving a double is exact, so walk its bits with division.
  for (let i = yi; i !== 0; i = Math.floor(i / 2)) {
    if (xe < -(1 << 12) || 1 << 12 < xe) {
      ae += xe;
      break;
    }
    if (i % 2 === 1) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe *= 2;
    if (x1 < 0.5) {
      x1 += x1;
      xe--;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  return ldexp(a1, ae);
}

/** Go's `math.Floor(x + 0.5)` rounding as used by upstream's checkpoint code (not Math.round). */
export function roundHalfUp(x: number): number {
  return Math.floor(x + 0.5);
}
