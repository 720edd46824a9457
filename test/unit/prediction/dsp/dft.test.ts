import { expect } from 'chai';
import { dft, idft, realDft, realDftMagnitudes } from '../../../../src/prediction/dsp/dft.ts';
import { craneFft, craneFftReal, craneIfft } from '../../../../src/prediction/dsp/crane-fft.ts';

/** The definition, O(N^2), angles reduced mod N so they stay exact. */
function naiveDft(re: number[], im: number[]): { re: number[]; im: number[] } {
  const n = re.length;
  const outRe: number[] = [];
  const outIm: number[] = [];
  for (let k = 0; k < n; k++) {
    let sr = 0;
    let si = 0;
    for (let j = 0; j < n; j++) {
      const a = (-2 * Math.PI * ((k * j) % n)) / n;
      sr += (re[j] as number) * Math.cos(a) - (im[j] as number) * Math.sin(a);
      si += (re[j] as number) * Math.sin(a) + (im[j] as number) * Math.cos(a);
    }
    outRe.push(sr);
    outIm.push(si);
  }
  return { re: outRe, im: outIm };
}

function signal(n: number, seed: number): { re: number[]; im: number[] } {
  const re: number[] = [];
  const im: number[] = [];
  for (let i = 0; i < n; i++) {
    re.push(Math.sin(i * 0.37 + seed) * 3 + ((i * 7919 + seed) % 13) / 5);
    im.push(Math.cos(i * 0.11 * seed) - ((i * 104729) % 7) / 3);
  }
  return { re, im };
}

const SIZES = [1, 2, 3, 4, 5, 7, 8, 12, 16, 60, 97, 128, 360, 1000, 1440];

function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs((a[i] as number) - (b[i] as number)));
  return m;
}

describe('prediction/dsp dft (fft.js + Bluestein)', () => {
  for (const n of SIZES) {
    it(`matches the naive DFT for N=${n} (${(n & (n - 1)) === 0 ? 'power of two' : 'Bluestein'})`, () => {
      const x = signal(n, 1);
      const ref = naiveDft(x.re, x.im);
      const inter = new Float64Array(2 * n);
      for (let i = 0; i < n; i++) {
        inter[2 * i] = x.re[i] as number;
        inter[2 * i + 1] = x.im[i] as number;
      }
      const X = dft(inter);
      const tol = 1e-11 * n;
      expect(maxAbs(X.filter((_, i) => i % 2 === 0), ref.re)).to.be.below(tol);
      expect(maxAbs(X.filter((_, i) => i % 2 === 1), ref.im)).to.be.below(tol);
      expect(maxAbs(idft(X), inter)).to.be.below(1e-12 * n);
    });
  }
  it('realDft and realDftMagnitudes agree with the naive DFT of a real signal (odd and even N)', () => {
    for (const n of [9, 10, 1440, 1441]) {
      const x = signal(n, 2).re;
      const ref = naiveDft(x, new Array(n).fill(0));
      const X = realDft(x);
      expect(maxAbs(X.filter((_, i) => i % 2 === 0), ref.re)).to.be.below(1e-9);
      const mags = realDftMagnitudes(x);
      expect(mags.length).to.equal(Math.floor(n / 2));
      for (let k = 0; k < mags.length; k++) expect(mags[k]).to.be.closeTo(Math.hypot(ref.re[k] as number, ref.im[k] as number), 1e-9);
    }
  });
});

describe('prediction/dsp crane-fft (go-dsp rounding)', () => {
  for (const n of [2, 3, 8, 60, 97, 1024, 1440]) {
    it(`is an exact DFT for N=${n}`, () => {
      const x = signal(n, 3);
      const ref = naiveDft(x.re, x.im);
      const X = craneFft(Float64Array.from(x.re), Float64Array.from(x.im));
      // go-dsp's chirp uses pi/N*k^2 without reducing k^2, so it is less accurate than dft.ts, by design.
      expect(maxAbs(X.re, ref.re)).to.be.below(1e-9 * n);
      expect(maxAbs(X.im, ref.im)).to.be.below(1e-9 * n);
      const back = craneIfft(X.re, X.im);
      expect(maxAbs(back.re, x.re)).to.be.below(1e-9 * n);
    });
  }
  it('N=4 is exact: go-dsp\'s size-4 twiddles are the table 1, −i, −1, i, so [1, 2, 3, 4] → [10, −2+2i, −2, −2−2i]', () => {
    // By hand: X[k] = Σ x[n] (−i)^(kn). Computed twiddles (cos(−π/2) = 6e-17) would leave rounding residue.
    const X = craneFft(Float64Array.from([1, 2, 3, 4]), new Float64Array(4));
    expect(Array.from(X.re)).to.deep.equal([10, -2, -2, -2]);
    expect(Array.from(X.im)).to.deep.equal([0, 2, 0, -2]);
    // The inverse (indices 1..N-1 reversed, the same transform, ÷ 4) gives the input back exactly.
    const back = craneIfft(X.re, X.im);
    expect(Array.from(back.re)).to.deep.equal([1, 2, 3, 4]);
  });
  it('does not modify its input', () => {
    const x = Float64Array.from([1, 2, 3, 4, 5]);
    craneFftReal(x);
    expect(Array.from(x)).to.deep.equal([1, 2, 3, 4, 5]);
  });
});
