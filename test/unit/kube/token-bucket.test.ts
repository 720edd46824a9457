import { expect } from 'chai';
import { TokenBucket } from '../../../src/kube/token-bucket.ts';

describe('kube: client-side rate limit (client-go token bucket semantics)', () => {
  it('lets `burst` requests go at once, then paces the rest at qps, in call order', () => {
    let t = 1_000;
    const b = new TokenBucket(5, 2, () => t);
    // Two tokens in the bucket; the next three reserve theirs and are told to wait 200, 400, 600 ms.
    expect([b.reserve(), b.reserve(), b.reserve(), b.reserve(), b.reserve()]).to.deep.equal([0, 0, 200, 400, 600]);
    // 600 ms later the queue has drained exactly: the next one waits a full interval again.
    t += 600;
    expect(b.reserve()).to.equal(200);
  });

  it('refills at qps but never beyond burst after a quiet spell', () => {
    let t = 0;
    const b = new TokenBucket(10, 3, () => t);
    for (let i = 0; i < 3; i++) expect(b.reserve()).to.equal(0);
    t += 60_000; // a minute idle refills 600 tokens' worth, capped at 3
    expect([b.reserve(), b.reserve(), b.reserve(), b.reserve()]).to.deep.equal([0, 0, 0, 100]);
    t += 150; // the queued request has had its token (100 ms) and half of the next one has accrued
    expect(b.reserve()).to.equal(50);
  });

  it('reserve(cost): a weighted request (bytes) is charged at once, and each one in a row is told a later time', () => {
    let t = 0;
    const b = new TokenBucket(100, 250, () => t);
    expect(b.reserve(200)).to.equal(0); // 50 left
    // 250 owed at 100 a second: 2.5 s; the next, 3.5 s and 13.5 s: in call order, never together.
    expect([b.reserve(300), b.reserve(100), b.reserve(1_000)]).to.deep.equal([2500, 3500, 13500]);
    t += 13_500;
    expect(b.reserve(0)).to.equal(0);
    expect(b.full()).to.equal(false);
    t += 2_500;
    expect(b.full()).to.equal(true);
  });

  it('a clock that steps back adds no tokens', () => {
    let t = 10_000;
    const b = new TokenBucket(1, 1, () => t);
    expect(b.reserve()).to.equal(0);
    t = 0;
    expect(b.reserve()).to.equal(1000);
    t = 10_500; // half a second after the last reading that counted: half the owed token is paid, 1.5 owed
    expect(b.reserve()).to.equal(1500);
  });

  it('refuses settings that would never admit a request', () => {
    expect(() => new TokenBucket(0, 1, () => 0)).to.throw(RangeError, 'qps');
    expect(() => new TokenBucket(Number.NaN, 1, () => 0)).to.throw(RangeError, 'qps');
    expect(() => new TokenBucket(5, 0, () => 0)).to.throw(RangeError, 'burst');
    expect(() => new TokenBucket(5, 1.5, () => 0)).to.throw(RangeError, 'burst');
  });
});
