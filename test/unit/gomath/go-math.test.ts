// Go math ports: edge cases of Frexp/Ldexp (subnormals, under/overflow) and known Go results.
// (The bucket tables and FindBucket probes in the conformance vectors pin Pow and Log bit for bit.)
import { expect } from 'chai';
import { frexp, goExp2, goLog, goPow, ldexp, roundHalfUp } from '../../../src/gomath/go-math.ts';

describe('go-math', () => {
  it('frexp splits into [0.5, 1) × 2^e, including subnormals and specials', () => {
    expect(frexp(8)).to.deep.equal([0.5, 4]);
    expect(frexp(-3)).to.deep.equal([-0.75, 2]);
    expect(frexp(5e-324)).to.deep.equal([0.5, -1073]);
    expect(frexp(0)).to.deep.equal([0, 0]);
    expect(frexp(Infinity)).to.deep.equal([Infinity, 0]);
  });
  it('ldexp scales exactly, with Go underflow to zero and overflow to infinity', () => {
    expect(ldexp(1, -1074)).to.equal(5e-324);
    expect(ldexp(1, -1076)).to.equal(0);
    expect(ldexp(0.75, 3)).to.equal(6);
    expect(ldexp(1, 1024)).to.equal(Infinity);
    expect(ldexp(-1, 1024)).to.equal(-Infinity);
    expect(ldexp(1, -106752)).to.equal(0); // the first-sample shift exponent (docs/vpa-recommender.md §1.4)
  });
  it('log, exp2 and pow agree with Go on exact cases and special values', () => {
    expect(goLog(1)).to.equal(0);
    expect(goLog(0)).to.equal(-Infinity);
    expect(Number.isNaN(goLog(-1))).to.equal(true);
    expect(goExp2(10)).to.equal(1024);
    expect(goExp2(-1)).to.equal(0.5);
    expect(goExp2(2000)).to.equal(Infinity);
    expect(goExp2(-2000)).to.equal(0);
    expect(goPow(1.05, 0)).to.equal(1);
    expect(goPow(2, 10)).to.equal(1024);
    expect(goPow(Infinity, 1)).to.equal(Infinity); // confidence 0: (1 + 1/0)^1
    expect(goPow(Infinity, -2)).to.equal(0); // confidence 0: (1 + 0.001/0)^-2
    expect(goPow(1.2, 2)).to.equal(1.44);
  });
  it('Go Pow differs from Math.pow where upstream bucket starts depend on it (1.05^4)', () => {
    // 1e7*(Pow(1.05,4)-1)/0.05 is 43101249.99999996 in Go (docs/vpa-recommender.md §7.1, vector #188).
    expect((1e7 * (goPow(1.05, 4) - 1)) / (1.05 - 1)).to.equal(43101249.99999996);
  });
  it('roundHalfUp is floor(x + 0.5), not Math.round', () => {
    expect(roundHalfUp(0.49999999999999994)).to.equal(1);
    expect(roundHalfUp(-0.5)).to.equal(0);
    expect(roundHalfUp(2.5)).to.equal(3);
  });
});
