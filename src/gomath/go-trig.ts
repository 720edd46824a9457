// Go's math.Sincos and math.Hypot (amd64) reproduced operation for operation. Crane's FFT estimator makes
// discrete keep/zero decisions by comparing spectral amplitudes that are mathematically equal (a bin and its
// mirror); which side of the tie a value falls on depends on the last bit of go-dsp's arithmetic. To give
// the same forecasts as Crane we therefore need go-dsp's rounding, which starts with these two functions.
// JavaScript's Math.sin/Math.cos/Math.hypot use different algorithms and differ from Go in the last ulp.

// Cody-Waite split of pi/4 and the Cephes polynomial coefficients used by Go's sin.go (public numerical
// constants; Cephes library, Stephen L. Moshier).
const PI4A = 0.7853981256484985;
const PI4B = 3.774894707930798e-08;
const PI4C = 2.6951514290790595e-15;
const FOUR_OVER_PI = 1.2732395447351628; // Go folds the constant 4/Pi exactly, then rounds: this value.
const REDUCE_THRESHOLD = 2 ** 29;

const S0 = 1.5896230157654656e-10;
const S1 = -2.5050747762857807e-08;
const S2 = 2.7557313621385722e-06;
const S3 = -0.0001984126982958954;
const S4 = 0.008333333333322118;
const S5 = -0.1666666666666663;
const C0 = -1.1358536521387682e-11;
const C1 = 2.087570084197473e-09;
const C2 = -2.755731417929674e-07;
const C3 = 2.4801587288851704e-05;
const C4 = -0.0013888888888873056;
const C5 = 0.041666666666666595;

/** sin and cos of x with Go's rounding; written into out[0], out[1] to avoid allocating in FFT setup loops. */
export function goSincos(x: number, out: Float64Array | number[]): void {
  if (x === 0) {
    out[0] = x;
    out[1] = 1;
    return;
  }
  if (!Number.isFinite(x)) {
    out[0] = NaN;
    out[1] = NaN;
    return;
  }
  let sinSign = false;
  let cosSign = false;
  if (x < 0) {
    x = -x;
    sinSign = true;
  }
  // Larger arguments need Payne-Hanek reduction; our callers never go there (|x| <= pi*N).
  if (x >= REDUCE_THRESHOLD) throw new RangeError(`goSincos: argument ${x} beyond the supported range`);
  let j = Math.trunc(x * FOUR_OVER_PI);
  let y = j;
  if (j % 2 === 1) {
    j++;
    y++;
  }
  j %= 8;
  const z = x - y * PI4A - y * PI4B - y * PI4C;
  if (j > 3) {
    j -= 4;
    sinSign = !sinSign;
    cosSign = !cosSign;
  }
  if (j > 1) cosSign = !cosSign;
  const zz = z * z;
  let cos = 1.0 - 0.5 * zz + zz * zz * (((((C0 * zz + C1) * zz + C2) * zz + C3) * zz + C4) * zz + C5);
  let sin = z + z * zz * (((((S0 * zz + S1) * zz + S2) * zz + S3) * zz + S4) * zz + S5);
  if (j === 1 || j === 2) {
    const t = sin;
    sin = cos;
    cos = t;
  }
  out[0] = sinSign ? -sin : sin;
  out[1] = cosSign ? -cos : cos;
}

/** Go's math.Hypot on amd64: max * sqrt(1 + (min/max)^2), the basis of cmplx.Abs. */
export function goHypot(p: number, q: number): number {
  p = Math.abs(p);
  q = Math.abs(q);
  if (p === Infinity || q === Infinity) return Infinity;
  if (Number.isNaN(p) || Number.isNaN(q)) return NaN;
  if (p === 0 && q === 0) return 0;
  let big = p;
  let small = q;
  if (small > big) {
    big = q;
    small = p;
  }
  small = small / big;
  return big * Math.sqrt(1 + small * small);
}

