// A DFT that rounds exactly like go-dsp (mjibson/go-dsp, the FFT Crane links): radix-2 decimation in time
// over a bit-reversed copy for powers of two, Bluestein's chirp-z convolution (padded to the next power of
// two >= 2N-1) otherwise, twiddles and chirps from Go's Sincos, the inverse via index reversal plus a
// forward transform divided by N. Same operations in the same order give the same float64 results, which
// Crane-parity forecasts need (see src/gomath/go-trig.ts for why). For everything that does not have to match Crane
// bit for bit, use dft.ts, which is faster.
import { goSincos } from '../../gomath/go-trig.ts';

export interface ComplexArray {
  re: Float64Array;
  im: Float64Array;
}

const sc = new Float64Array(2);
const twiddleCache = new Map<number, ComplexArray>();

/** go-dsp's radix-2 twiddles for size n: even entries inherited from size n/2, odd ones computed. */
function radix2Twiddles(n: number): ComplexArray {
  let t = twiddleCache.get(n);
  if (t) return t;
  if (n <= 4) {
    t = { re: new Float64Array([1, 0, -1, 0]), im: new Float64Array([0, -1, 0, 1]) };
  } else {
    const half = radix2Twiddles(n / 2);
    t = { re: new Float64Array(n), im: new Float64Array(n) };
    for (let k = 0, j = 0; k < n; k += 2, j++) {
      t.re[k] = half.re[j] as number;
      t.im[k] = half.im[j] as number;
    }
    for (let k = 1; k < n; k += 2) {
      goSincos(((-2 * Math.PI) / n) * k, sc);
      t.re[k] = sc[1] as number;
      t.im[k] = sc[0] as number;
    }
  }
  twiddleCache.set(n, t);
  return t;
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

function radix2(re: Float64Array, im: Float64Array): ComplexArray {
  const n = re.length;
  const bits = Math.log2(n);
  let rRe = new Float64Array(n);
  let rIm = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let rev = 0;
    for (let b = 0, v = i; b < bits; b++, v >>= 1) rev = (rev << 1) | (v & 1);
    rRe[rev] = re[i] as number;
    rIm[rev] = im[i] as number;
  }
  let tRe = new Float64Array(n);
  let tIm = new Float64Array(n);
  const tw = n >= 4 ? radix2Twiddles(n) : null;
  for (let stage = 2; stage <= n; stage <<= 1) {
    const blocks = n / stage;
    const half = stage >> 1;
    for (let nb = 0; nb < n; nb += stage) {
      if (stage === 2) {
        const aRe = rRe[nb] as number, aIm = rIm[nb] as number;
        const bRe = rRe[nb + 1] as number, bIm = rIm[nb + 1] as number;
        tRe[nb] = aRe + bRe;
        tIm[nb] = aIm + bIm;
        tRe[nb + 1] = aRe - bRe;
        tIm[nb + 1] = aIm - bIm;
        continue;
      }
      const twRe = (tw as ComplexArray).re;
      const twIm = (tw as ComplexArray).im;
      for (let j = 0; j < half; j++) {
        const i1 = nb + j;
        const i2 = i1 + half;
        const fRe = twRe[blocks * j] as number;
        const fIm = twIm[blocks * j] as number;
        const xRe = rRe[i2] as number;
        const xIm = rIm[i2] as number;
        const wRe = xRe * fRe - xIm * fIm;
        const wIm = xRe * fIm + xIm * fRe;
        const aRe = rRe[i1] as number;
        const aIm = rIm[i1] as number;
        tRe[i1] = aRe + wRe;
        tIm[i1] = aIm + wIm;
        tRe[i2] = aRe - wRe;
        tIm[i2] = aIm - wIm;
      }
    }
    [rRe, tRe] = [tRe, rRe];
    [rIm, tIm] = [tIm, rIm];
  }
  return { re: rRe, im: rIm };
}

interface BluesteinPlan {
  /** Chirp e^{+i*pi*k^2/N} and its conjugate, k < N. */
  chirpRe: Float64Array;
  chirpIm: Float64Array;
  padded: number;
  /** Transform of the symmetric chirp sequence; go-dsp recomputes it per call with the same result. */
  chirpSpectrum: ComplexArray;
}

const bluesteinCache = new Map<number, BluesteinPlan>();

/**
 * Empties the twiddle and chirp plans. They only hold what the transforms would compute again; tests call
 * this before each test (test/helpers/fresh-caches.ts) so a plan built by an earlier test cannot hide a
 * mutant in the plan-building code from a later one.
 */
export function clearCraneFftPlans(): void {
  twiddleCache.clear();
  bluesteinCache.clear();
}

function bluesteinPlan(n: number): BluesteinPlan {
  let plan = bluesteinCache.get(n);
  if (plan) return plan;
  const chirpRe = new Float64Array(n);
  const chirpIm = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (i === 0) {
      chirpRe[i] = 1;
      chirpIm[i] = 0;
    } else {
      goSincos((Math.PI / n) * (i * i), sc);
      chirpRe[i] = sc[1] as number;
      chirpIm[i] = sc[0] as number;
    }
  }
  // go-dsp: NextPowerOf2 = 2^ceil(log2(x)) unless x already is one.
  const want = 2 * n - 1;
  const padded = isPowerOfTwo(want) ? want : 2 ** Math.ceil(Math.log2(want));
  const bRe = new Float64Array(padded);
  const bIm = new Float64Array(padded);
  for (let i = 0; i < n; i++) {
    bRe[i] = chirpRe[i] as number;
    bIm[i] = chirpIm[i] as number;
    if (i !== 0) {
      bRe[padded - i] = chirpRe[i] as number;
      bIm[padded - i] = chirpIm[i] as number;
    }
  }
  plan = { chirpRe, chirpIm, padded, chirpSpectrum: radix2(bRe, bIm) };
  bluesteinCache.set(n, plan);
  return plan;
}

function bluestein(re: Float64Array, im: Float64Array): ComplexArray {
  const n = re.length;
  const { chirpRe, chirpIm, padded, chirpSpectrum } = bluesteinPlan(n);
  const aRe = new Float64Array(padded);
  const aIm = new Float64Array(padded);
  for (let i = 0; i < n; i++) {
    // x * conj(chirp)
    const xr = re[i] as number, xi = im[i] as number;
    const cr = chirpRe[i] as number, ci = -(chirpIm[i] as number);
    aRe[i] = xr * cr - xi * ci;
    aIm[i] = xr * ci + xi * cr;
  }
  const fa = radix2(aRe, aIm);
  const pRe = new Float64Array(padded);
  const pIm = new Float64Array(padded);
  for (let i = 0; i < padded; i++) {
    const xr = fa.re[i] as number, xi = fa.im[i] as number;
    const yr = chirpSpectrum.re[i] as number, yi = chirpSpectrum.im[i] as number;
    pRe[i] = xr * yr - xi * yi;
    pIm[i] = xr * yi + xi * yr;
  }
  const conv = craneIfft(pRe, pIm);
  const outRe = new Float64Array(n);
  const outIm = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const xr = conv.re[i] as number, xi = conv.im[i] as number;
    const cr = chirpRe[i] as number, ci = -(chirpIm[i] as number);
    outRe[i] = xr * cr - xi * ci;
    outIm[i] = xr * ci + xi * cr;
  }
  return { re: outRe, im: outIm };
}

/** Forward DFT X[k] = sum x[n] e^{-2 pi i k n / N}, rounded as go-dsp's fft.FFT. Inputs are not modified. */
export function craneFft(re: Float64Array, im: Float64Array): ComplexArray {
  const n = re.length;
  if (n <= 1) return { re: Float64Array.from(re), im: Float64Array.from(im) };
  return isPowerOfTwo(n) ? radix2(re, im) : bluestein(re, im);
}

/** go-dsp's fft.FFTReal. */
export function craneFftReal(x: Float64Array): ComplexArray {
  return craneFft(x, new Float64Array(x.length));
}

/** go-dsp's fft.IFFT: reverse indices 1..N-1, forward transform, divide by N. */
export function craneIfft(re: Float64Array, im: Float64Array): ComplexArray {
  const n = re.length;
  const rRe = new Float64Array(n);
  const rIm = new Float64Array(n);
  if (n === 0) return { re: rRe, im: rIm };
  rRe[0] = re[0] as number;
  rIm[0] = im[0] as number;
  for (let i = 1; i < n; i++) {
    rRe[i] = re[n - i] as number;
    rIm[i] = im[n - i] as number;
  }
  const out = craneFft(rRe, rIm);
  for (let i = 0; i < n; i++) {
    out.re[i] = (out.re[i] as number) / n;
    out.im[i] = (out.im[i] as number) / n;
  }
  return out;
}
