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

const bitReversalCache = new Map<number, Int32Array>();

/** Index i's bit-reversed position for size n (a power of two), computed once per size. */
function bitReversal(n: number): Int32Array {
  let rev = bitReversalCache.get(n);
  if (rev) return rev;
  const bits = Math.log2(n);
  rev = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let r = 0;
    for (let b = 0, v = i; b < bits; b++, v >>= 1) r = (r << 1) | (v & 1);
    rev[i] = r;
  }
  bitReversalCache.set(n, rev);
  return rev;
}

/**
 * go-dsp's radix-2 transform. go-dsp ping-pongs between two buffers; here each butterfly reads its two
 * inputs before writing its two outputs in place, which computes the same float64 operations on the same
 * operands, so the results are identical while touching half the memory. The size-2 stage, whose twiddle
 * is 1, is go-dsp's plain sum and difference, done while the bit-reversed copy is made.
 */
function radix2(re: Float64Array, im: Float64Array): ComplexArray {
  const out = { re: new Float64Array(re.length), im: new Float64Array(re.length) };
  radix2Into(re, im, out.re, out.im);
  return out;
}

/** radix2 written into `oRe`/`oIm` (length n, distinct from the input). */
function radix2Into(re: Float64Array, im: Float64Array, oRe: Float64Array, oIm: Float64Array): void {
  const n = re.length;
  const rev = bitReversal(n);
  if (n === 1) {
    oRe[0] = re[0] as number;
    oIm[0] = im[0] as number;
    return;
  }
  // Outputs nb and nb+1 of the first stage come from inputs rev[nb] and rev[nb+1].
  for (let nb = 0; nb < n; nb += 2) {
    const a = rev[nb] as number;
    const b = rev[nb + 1] as number;
    const aRe = re[a] as number, aIm = im[a] as number;
    const bRe = re[b] as number, bIm = im[b] as number;
    oRe[nb] = aRe + bRe;
    oIm[nb] = aIm + bIm;
    oRe[nb + 1] = aRe - bRe;
    oIm[nb + 1] = aIm - bIm;
  }
  if (n < 4) return;
  const tw = radix2Twiddles(n);
  const twRe = tw.re;
  const twIm = tw.im;
  for (let stage = 4; stage <= n; stage <<= 1) {
    const blocks = n / stage;
    const half = stage >> 1;
    for (let nb = 0; nb < n; nb += stage) {
      for (let j = 0; j < half; j++) {
        const fRe = twRe[blocks * j] as number;
        const fIm = twIm[blocks * j] as number;
        const i1 = nb + j;
        const i2 = i1 + half;
        const xRe = oRe[i2] as number;
        const xIm = oIm[i2] as number;
        const wRe = xRe * fRe - xIm * fIm;
        const wIm = xRe * fIm + xIm * fRe;
        const aRe = oRe[i1] as number;
        const aIm = oIm[i1] as number;
        oRe[i1] = aRe + wRe;
        oIm[i1] = aIm + wIm;
        oRe[i2] = aRe - wRe;
        oIm[i2] = aIm - wIm;
      }
    }
  }
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
  bitReversalCache.clear();
  bluesteinScratch.clear();
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

/** Two padded-length work buffers per size, reused by every Bluestein transform of that size (none escapes a call). */
const bluesteinScratch = new Map<number, { aRe: Float64Array; aIm: Float64Array; bRe: Float64Array; bIm: Float64Array }>();

function scratchFor(padded: number): { aRe: Float64Array; aIm: Float64Array; bRe: Float64Array; bIm: Float64Array } {
  let s = bluesteinScratch.get(padded);
  if (!s) {
    s = { aRe: new Float64Array(padded), aIm: new Float64Array(padded), bRe: new Float64Array(padded), bIm: new Float64Array(padded) };
    bluesteinScratch.set(padded, s);
  }
  return s;
}

/**
 * go-dsp's Bluestein: x * conj(chirp), zero-padded, transformed; times the chirp's spectrum; the inverse
 * transform of that (go-dsp's IFFT: indices 1..N-1 reversed, a forward transform, divided by N); times
 * conj(chirp). The same operations as go-dsp on the same operands, in reused buffers: the product is
 * written straight to its reversed index, and only the N outputs kept are divided.
 */
function bluestein(re: Float64Array, im: Float64Array): ComplexArray {
  const n = re.length;
  const { chirpRe, chirpIm, padded, chirpSpectrum } = bluesteinPlan(n);
  const { aRe, aIm, bRe, bIm } = scratchFor(padded);
  for (let i = 0; i < n; i++) {
    // x * conj(chirp)
    const xr = re[i] as number, xi = im[i] as number;
    const cr = chirpRe[i] as number, ci = -(chirpIm[i] as number);
    aRe[i] = xr * cr - xi * ci;
    aIm[i] = xr * ci + xi * cr;
  }
  aRe.fill(0, n);
  aIm.fill(0, n);
  radix2Into(aRe, aIm, bRe, bIm);
  const sRe = chirpSpectrum.re;
  const sIm = chirpSpectrum.im;
  for (let i = 0; i < padded; i++) {
    const xr = bRe[i] as number, xi = bIm[i] as number;
    const yr = sRe[i] as number, yi = sIm[i] as number;
    const to = i === 0 ? 0 : padded - i;
    aRe[to] = xr * yr - xi * yi;
    aIm[to] = xr * yi + xi * yr;
  }
  radix2Into(aRe, aIm, bRe, bIm);
  const outRe = new Float64Array(n);
  const outIm = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const xr = (bRe[i] as number) / padded, xi = (bIm[i] as number) / padded;
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
