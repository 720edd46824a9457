import { expect } from 'chai';
import { goHypot, goSincos } from '../../../src/gomath/go-trig.ts';
import { goPow } from '../../../src/gomath/go-math.ts';

// [x, sin, cos] printed by Go 1.26 math.Sincos on amd64 (fmt %v, shortest round-trip form).
const GO_SINCOS: [number, number, number][] = [
  [0.5, 0.479425538604203, 0.8775825618903728],
  [1, 0.8414709848078965, 0.5403023058681398],
  [3, 0.1411200080598672, -0.9899924966004454],
  [-2.5, -0.5984721441039564, -0.8011436155469337],
  // V8's Math.sin gives -0.2772828564548513 here: the last-bit difference this module exists for.
  [100.25, -0.27728285645485135, 0.9607883312760612],
  [23748.792527492424, -0.9970263918550113, -0.07706084572970617],
  [-0.392794955497967, -0.38277200644700665, 0.9238428389507236],
];

// [re, im, |z|] printed by Go 1.26 cmplx.Abs (math.Hypot, amd64 assembly).
const GO_ABS: [number, number, number][] = [
  [3, 4, 5],
  [0.001, 2.5, 2.500000199999992],
  [-7.25, 0.1, 7.250689622373861],
  [1e200, 1e200, 1.414213562373095e200],
];

// [x, n, x^n] printed by Go 1.26 math.Pow; V8's Math.pow gives 131.50125784630401 for the first.
const GO_POW: [number, number, number][] = [
  [1.05, 100, 131.50125784630362],
  [1.05, 37, 6.081406942770457],
  [1.1, 250, 2.2293142370048317e10],
  [3, 5, 243],
];

describe('gomath trig', () => {
  it('goPow reproduces Go math.Pow for whole exponents (percentile bucket starts)', () => {
    for (const [x, n, want] of GO_POW) expect(goPow(x, n), `${x}^${n}`).to.equal(want);
    expect(goPow(7, 0)).to.equal(1);
  });
  it('goSincos reproduces Go math.Sincos bit for bit', () => {
    const out = new Float64Array(2);
    for (const [x, s, c] of GO_SINCOS) {
      goSincos(x, out);
      expect([out[0], out[1]], `x=${x}`).to.deep.equal([s, c]);
    }
  });
  it('goSincos handles 0 and non-finite input like Go', () => {
    const out = new Float64Array(2);
    goSincos(0, out);
    expect([out[0], out[1]]).to.deep.equal([0, 1]);
    goSincos(Infinity, out);
    expect(Number.isNaN(out[0])).to.equal(true);
  });
  it('goHypot reproduces Go cmplx.Abs', () => {
    for (const [re, im, abs] of GO_ABS) expect(goHypot(re, im)).to.equal(abs);
    expect(goHypot(0, 0)).to.equal(0);
    expect(goHypot(-Infinity, NaN)).to.equal(Infinity);
  });
});
