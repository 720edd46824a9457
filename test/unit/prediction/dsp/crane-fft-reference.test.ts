// crane-fft.ts reorganises go-dsp's transforms for speed (in-place butterflies, a cached bit reversal, reused
// Bluestein buffers) while claiming the same float64 operations on the same operands. This checks the claim
// bit for bit against go-dsp's code as it is written (mjibson/go-dsp v0.0.0-20180508042940, fft/radix2.go,
// fft/bluestein.go, fft/fft.go: a ping-pong radix-2 with the bit reversal worked out per call, Bluestein with
// a fresh zero-padded buffer, Convolve = IFFT(FFT(a) .* FFT(b)), IFFT by index reversal), transcribed here
// without any of the reorganisation. Twiddles and chirps come from goSincos, checked against Go elsewhere.
import { expect } from 'chai';
import { craneFft, craneIfft } from '../../../../src/prediction/dsp/crane-fft.ts';
import { DEFAULT_CRANE_ESTIMATORS, fftEstimate, SharedSpectrum, type FftEstimatorSpec } from '../../../../src/prediction/dsp/crane-estimators.ts';
import { goSincos } from '../../../../src/gomath/go-trig.ts';
import { DAY_SECONDS } from '../../../../src/prediction/dsp/signal.ts';
import { mulberry32 } from '../../../helpers/seeded-random.ts';

type C = { re: number[]; im: number[] };

/** go-dsp getRadix2Factors: size 4 is the literal table, size i copies size i/2's into even entries. */
function factors(n: number): C {
  let f: C = { re: [1, 0, -1, 0], im: [0, -1, 0, 1] };
  for (let i = 8; i <= n; i <<= 1) {
    const g: C = { re: new Array<number>(i), im: new Array<number>(i) };
    for (let k = 0, j = 0; k < i; k += 2, j++) {
      g.re[k] = f.re[j] as number;
      g.im[k] = f.im[j] as number;
    }
    const sc = [0, 0];
    for (let k = 1; k < i; k += 2) {
      goSincos(((-2 * Math.PI) / i) * k, sc);
      g.re[k] = sc[1] as number;
      g.im[k] = sc[0] as number;
    }
    f = g;
  }
  return f;
}

function mul(ar: number, ai: number, br: number, bi: number): [number, number] {
  return [ar * br - ai * bi, ar * bi + ai * br];
}

/** go-dsp radix2FFT. */
function radix2Ref(x: C): C {
  const n = x.re.length;
  const bits = Math.log2(n);
  let r: C = { re: new Array<number>(n).fill(0), im: new Array<number>(n).fill(0) };
  let t: C = { re: new Array<number>(n).fill(0), im: new Array<number>(n).fill(0) };
  for (let i = 0; i < n; i++) {
    let rev = 0;
    for (let b = 0, v = i; b < bits; b++, v >>= 1) rev = (rev << 1) | (v & 1);
    r.re[rev] = x.re[i] as number;
    r.im[rev] = x.im[i] as number;
  }
  const f = n >= 4 ? factors(n) : null;
  for (let stage = 2; stage <= n; stage <<= 1) {
    const blocks = n / stage;
    const s2 = stage / 2;
    for (let nb = 0; nb < n; nb += stage) {
      if (stage !== 2) {
        for (let j = 0; j < s2; j++) {
          const idx = j + nb;
          const idx2 = idx + s2;
          const [wr, wi] = mul(r.re[idx2] as number, r.im[idx2] as number, (f as C).re[blocks * j] as number, (f as C).im[blocks * j] as number);
          t.re[idx] = (r.re[idx] as number) + wr;
          t.im[idx] = (r.im[idx] as number) + wi;
          t.re[idx2] = (r.re[idx] as number) - wr;
          t.im[idx2] = (r.im[idx] as number) - wi;
        }
      } else {
        t.re[nb] = (r.re[nb] as number) + (r.re[nb + 1] as number);
        t.im[nb] = (r.im[nb] as number) + (r.im[nb + 1] as number);
        t.re[nb + 1] = (r.re[nb] as number) - (r.re[nb + 1] as number);
        t.im[nb + 1] = (r.im[nb] as number) - (r.im[nb + 1] as number);
      }
    }
    [r, t] = [t, r];
  }
  return r;
}

function fftRef(x: C): C {
  const n = x.re.length;
  if (n <= 1) return { re: [...x.re], im: [...x.im] };
  return (n & (n - 1)) === 0 ? radix2Ref(x) : bluesteinRef(x);
}

/** go-dsp IFFT: reverse indices 1..N-1, FFT, divide by N. */
function ifftRef(x: C): C {
  const n = x.re.length;
  const r: C = { re: [x.re[0] as number], im: [x.im[0] as number] };
  for (let i = 1; i < n; i++) {
    r.re.push(x.re[n - i] as number);
    r.im.push(x.im[n - i] as number);
  }
  const y = fftRef(r);
  return { re: y.re.map((v) => v / n), im: y.im.map((v) => v / n) };
}

/** go-dsp bluesteinFFT. */
function bluesteinRef(x: C): C {
  const lx = x.re.length;
  const want = 2 * lx - 1;
  const la = (want & (want - 1)) === 0 ? want : 2 ** Math.ceil(Math.log2(want));
  const fac: C = { re: [], im: [] };
  const sc = [0, 0];
  for (let i = 0; i < lx; i++) {
    if (i === 0) {
      fac.re.push(1);
      fac.im.push(0);
    } else {
      goSincos((Math.PI / lx) * (i * i), sc);
      fac.re.push(sc[1] as number);
      fac.im.push(sc[0] as number);
    }
  }
  const a: C = { re: new Array<number>(la).fill(0), im: new Array<number>(la).fill(0) };
  for (let i = 0; i < lx; i++) [a.re[i], a.im[i]] = mul(x.re[i] as number, x.im[i] as number, fac.re[i] as number, -(fac.im[i] as number));
  const b: C = { re: new Array<number>(la).fill(0), im: new Array<number>(la).fill(0) };
  for (let i = 0; i < lx; i++) {
    b.re[i] = fac.re[i] as number;
    b.im[i] = fac.im[i] as number;
    if (i !== 0) {
      b.re[la - i] = fac.re[i] as number;
      b.im[la - i] = fac.im[i] as number;
    }
  }
  const fa = fftRef(a);
  const fb = fftRef(b);
  const p: C = { re: [], im: [] };
  for (let i = 0; i < la; i++) {
    const [pr, pi] = mul(fa.re[i] as number, fa.im[i] as number, fb.re[i] as number, fb.im[i] as number);
    p.re.push(pr);
    p.im.push(pi);
  }
  const conv = ifftRef(p);
  const out: C = { re: [], im: [] };
  for (let i = 0; i < lx; i++) {
    const [or, oi] = mul(conv.re[i] as number, conv.im[i] as number, fac.re[i] as number, -(fac.im[i] as number));
    out.re.push(or);
    out.im.push(oi);
  }
  return out;
}

function firstDifference(a: { re: ArrayLike<number>; im: ArrayLike<number> }, b: C): string | null {
  if (a.re.length !== b.re.length) return `length ${a.re.length} vs ${b.re.length}`;
  for (let i = 0; i < b.re.length; i++) {
    if (!Object.is(a.re[i], b.re[i]) || !Object.is(a.im[i], b.im[i])) return `bin ${i}: ${a.re[i]}+${a.im[i]}i vs go-dsp ${b.re[i]}+${b.im[i]}i`;
  }
  return null;
}

describe('prediction/dsp crane-fft against go-dsp as written', () => {
  // Sizes in an order that makes Bluestein transforms of different lengths share a padded size back to back
  // (100 and 127 pad to 256; 1000 and 1023 to 2048), so a stale reused buffer would show.
  const sizes = [1, 2, 3, 4, 5, 8, 16, 100, 127, 100, 64, 1000, 1023, 1000, 1024, 1440, 2048];
  it(`forward and inverse transforms equal go-dsp's bit for bit on ${sizes.length} sizes, real and complex input`, () => {
    const rnd = mulberry32(20261125);
    for (const n of sizes) {
      for (const complex of [false, true]) {
        const x: C = { re: Array.from({ length: n }, () => (rnd() - 0.5) * 1000), im: Array.from({ length: n }, () => (complex ? rnd() - 0.5 : 0)) };
        const fw = craneFft(Float64Array.from(x.re), Float64Array.from(x.im));
        expect(firstDifference(fw, fftRef(x)), `FFT N=${n}`).to.equal(null);
        const inv = craneIfft(Float64Array.from(x.re), Float64Array.from(x.im));
        expect(firstDifference(inv, ifftRef(x)), `IFFT N=${n}`).to.equal(null);
      }
    }
  });

  it('a returned transform is not overwritten by the next one of the same size', () => {
    const first = craneFft(Float64Array.from([1, 2, 3, 4, 5]), new Float64Array(5));
    const copy = { re: Array.from(first.re), im: Array.from(first.im) };
    craneFft(Float64Array.from([9, 8, 7, 6, 5]), new Float64Array(5));
    expect(firstDifference(first, copy)).to.equal(null);
  });
});

describe('prediction/dsp crane estimators share their inverse transforms', () => {
  const rnd = mulberry32(7);
  const samples = Float64Array.from({ length: 3 * 1440 }, (_, i) => 50 + 20 * Math.sin((2 * Math.PI * i) / 1440) + 8 * (rnd() - 0.5));
  const signal = { sampleRate: 1 / 60, samples };

  it("Crane's eight default estimators on one spectrum equal each run on a spectrum of its own, bit for bit", () => {
    const shared = new SharedSpectrum(signal);
    for (const spec of DEFAULT_CRANE_ESTIMATORS) {
      const together = fftEstimate(shared, DAY_SECONDS, spec as FftEstimatorSpec);
      const alone = fftEstimate(new SharedSpectrum(signal), DAY_SECONDS, spec as FftEstimatorSpec);
      expect(Array.from(together)).to.deep.equal(Array.from(alone));
    }
  });

  it('the same thresholds give the very same inverse; different ones a different one', () => {
    const shared = new SharedSpectrum(signal);
    const a = shared.filteredInverse(0.5, 1 / 3600);
    expect(shared.filteredInverse(0.5, 1 / 3600)).to.equal(a);
    const b = shared.filteredInverse(0.5, 1 / 7200);
    expect(b).to.not.equal(a);
    expect(Array.from(b)).to.not.deep.equal(Array.from(a));
  });
});
