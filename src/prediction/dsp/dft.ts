// Fast exact DFT for any length: fft.js (radix-4) for powers of two, Bluestein's chirp-z transform on top
// of it for every other N (traces are 10080 or 20160 samples, rarely a power of two). Used wherever results
// need not match Crane bit for bit: period detection, autocorrelation, the beyond-Crane estimators.
// Arrays are interleaved complex (re0, im0, re1, im1, ...), as fft.js wants them.
import FFT from 'fft.js';

const pow2Plans = new Map<number, FFT>();

function pow2Plan(size: number): FFT {
  let p = pow2Plans.get(size);
  if (!p) {
    p = new FFT(size);
    pow2Plans.set(size, p);
  }
  return p;
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

interface ChirpPlan {
  n: number;
  m: number;
  fft: FFT;
  /** w[k] = e^{-i pi k^2 / n}, interleaved, k < n. */
  w: Float64Array;
  /** Transform of the conjugate chirp laid out circularly over m points. */
  bSpectrum: Float64Array;
  /** The chirped input: only its first 2n entries are ever written, so its zero padding is set once. */
  scratchA: Float64Array;
  scratchB: Float64Array;
  /** The inverse transform's output, apart from scratchA so that scratchA's padding stays zero. */
  scratchC: Float64Array;
}

const chirpPlans = new Map<number, ChirpPlan>();

function chirpPlan(n: number): ChirpPlan {
  let plan = chirpPlans.get(n);
  if (plan) return plan;
  let m = 1;
  while (m < 2 * n - 1) m <<= 1;
  const fft = pow2Plan(m);
  const w = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    // k^2 mod 2n keeps the angle small, so the chirp stays accurate for long series.
    const angle = (Math.PI * ((k * k) % (2 * n))) / n;
    w[2 * k] = Math.cos(angle);
    w[2 * k + 1] = -Math.sin(angle);
  }
  const b = new Float64Array(2 * m);
  for (let k = 0; k < n; k++) {
    const re = w[2 * k] as number;
    const im = -(w[2 * k + 1] as number);
    b[2 * k] = re;
    b[2 * k + 1] = im;
    if (k !== 0) {
      b[2 * (m - k)] = re;
      b[2 * (m - k) + 1] = im;
    }
  }
  const bSpectrum = new Float64Array(2 * m);
  fft.transform(bSpectrum, b);
  plan = { n, m, fft, w, bSpectrum, scratchA: new Float64Array(2 * m), scratchB: new Float64Array(2 * m), scratchC: new Float64Array(2 * m) };
  chirpPlans.set(n, plan);
  return plan;
}

/** Forward DFT X[k] = sum_n x[n] e^{-2 pi i k n / N} of interleaved complex input (length 2N). */
export function dft(input: Float64Array, out: Float64Array = new Float64Array(input.length)): Float64Array {
  const n = input.length / 2;
  if (n <= 1) {
    out.set(input);
    return out;
  }
  if (isPowerOfTwo(n)) {
    pow2Plan(n).transform(out, input);
    return out;
  }
  const { m, fft, w, bSpectrum, scratchA: a, scratchB: c, scratchC: d } = chirpPlan(n);
  for (let k = 0; k < n; k++) {
    const xr = input[2 * k] as number, xi = input[2 * k + 1] as number;
    const wr = w[2 * k] as number, wi = w[2 * k + 1] as number;
    a[2 * k] = xr * wr - xi * wi;
    a[2 * k + 1] = xr * wi + xi * wr;
  }
  fft.transform(c, a);
  for (let k = 0; k < m; k++) {
    const xr = c[2 * k] as number, xi = c[2 * k + 1] as number;
    const yr = bSpectrum[2 * k] as number, yi = bSpectrum[2 * k + 1] as number;
    c[2 * k] = xr * yr - xi * yi;
    c[2 * k + 1] = xr * yi + xi * yr;
  }
  fft.inverseTransform(d, c);
  for (let k = 0; k < n; k++) {
    const xr = d[2 * k] as number, xi = d[2 * k + 1] as number;
    const wr = w[2 * k] as number, wi = w[2 * k + 1] as number;
    out[2 * k] = xr * wr - xi * wi;
    out[2 * k + 1] = xr * wi + xi * wr;
  }
  return out;
}

/** Inverse DFT, normalized by 1/N (x = idft(dft(x))). */
export function idft(input: Float64Array, out: Float64Array = new Float64Array(input.length)): Float64Array {
  const n = input.length / 2;
  // idft(X) = conj(dft(conj(X))) / N
  const conj = new Float64Array(input.length);
  for (let k = 0; k < n; k++) {
    conj[2 * k] = input[2 * k] as number;
    conj[2 * k + 1] = -(input[2 * k + 1] as number);
  }
  dft(conj, out);
  for (let k = 0; k < n; k++) {
    out[2 * k] = (out[2 * k] as number) / n;
    out[2 * k + 1] = -(out[2 * k + 1] as number) / n;
  }
  return out;
}

/** DFT of a real signal, full interleaved spectrum. */
export function realDft(x: ArrayLike<number>): Float64Array {
  const n = x.length;
  const c = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) c[2 * i] = x[i] as number;
  return dft(c);
}

const untangleCache = new Map<number, Float64Array>();

/** Empties the cached plans (fft.js, chirp, untangle twiddles); they only hold what would be computed again (see clearCraneFftPlans). */
export function clearDftPlans(): void {
  pow2Plans.clear();
  chirpPlans.clear();
  untangleCache.clear();
}

/** e^{-2 pi i k / n} for k < n/2, interleaved. */
function untangleTwiddles(n: number): Float64Array {
  let t = untangleCache.get(n);
  if (!t) {
    t = new Float64Array(n);
    for (let k = 0; k < n / 2; k++) {
      const angle = (-2 * Math.PI * k) / n;
      t[2 * k] = Math.cos(angle);
      t[2 * k + 1] = Math.sin(angle);
    }
    untangleCache.set(n, t);
  }
  return t;
}

/** Buffers for realDftPeakMagnitude at one length, reused across calls. */
export interface PeakScratch {
  z: Float64Array;
  Z: Float64Array;
}

export function peakScratch(n: number): PeakScratch {
  return { z: new Float64Array(n), Z: new Float64Array(n) };
}

/**
 * max(0, |X[k]| for 0 < k < N/2) of a real signal of even length N >= 4: the same float64 value as the
 * largest of realDftMagnitudes(x) past k = 0, without the 100 permutations' allocations and with one square
 * root (the root is monotone and correctly rounded, so the root of the largest square is the largest root).
 */
export function realDftPeakMagnitude(x: Float64Array, scratch: PeakScratch): number {
  const n = x.length;
  const half = n / 2;
  if (n % 2 !== 0 || n < 4 || scratch.z.length !== n) throw new RangeError('realDftPeakMagnitude needs an even length >= 4 and scratch of that length');
  const { z, Z } = scratch;
  z.set(x);
  dft(z, Z);
  const tw = untangleTwiddles(n);
  let peak = 0;
  for (let k = 1; k < half; k++) {
    const k2 = half - k;
    const zr = Z[2 * k] as number, zi = Z[2 * k + 1] as number;
    const cr = Z[2 * k2] as number, ci = -(Z[2 * k2 + 1] as number);
    const er = (zr + cr) / 2, ei = (zi + ci) / 2;
    const dr = (zr - cr) / 2, di = (zi - ci) / 2;
    const or = di, oi = -dr;
    const wr = tw[2 * k] as number, wi = tw[2 * k + 1] as number;
    const re = er + (or * wr - oi * wi);
    const im = ei + (or * wi + oi * wr);
    const sq = re * re + im * im;
    if (sq > peak) peak = sq;
  }
  return Math.sqrt(peak);
}

/**
 * |X[k]| for k < N/2 of a real signal. For even N it packs the signal into a half-length complex one
 * (z[j] = x[2j] + i x[2j+1]) and untangles the spectrum, halving the work: this runs 100 times per period
 * detection.
 */
export function realDftMagnitudes(x: ArrayLike<number>, out: Float64Array = new Float64Array(Math.floor(x.length / 2))): Float64Array {
  const n = x.length;
  const half = Math.floor(n / 2);
  if (n % 2 !== 0 || n < 4) {
    const X = realDft(x);
    for (let k = 0; k < half; k++) out[k] = Math.hypot(X[2 * k] as number, X[2 * k + 1] as number);
    return out;
  }
  const z = new Float64Array(n);
  for (let j = 0; j < half; j++) {
    z[2 * j] = x[2 * j] as number;
    z[2 * j + 1] = x[2 * j + 1] as number;
  }
  const Z = dft(z);
  const tw = untangleTwiddles(n);
  for (let k = 0; k < half; k++) {
    const k2 = k === 0 ? 0 : half - k;
    const zr = Z[2 * k] as number, zi = Z[2 * k + 1] as number;
    const cr = Z[2 * k2] as number, ci = -(Z[2 * k2 + 1] as number); // conj(Z[half-k])
    // even part E = (Z[k] + conj(Z[h-k]))/2, odd part O = (Z[k] - conj(Z[h-k]))/(2i)
    const er = (zr + cr) / 2, ei = (zi + ci) / 2;
    const dr = (zr - cr) / 2, di = (zi - ci) / 2;
    const or = di, oi = -dr;
    const wr = tw[2 * k] as number, wi = tw[2 * k + 1] as number;
    const re = er + (or * wr - oi * wi);
    const im = ei + (or * wi + oi * wr);
    out[k] = Math.sqrt(re * re + im * im);
  }
  return out;
}
