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

  it('admit: charges while not in debt (a cost above the burst passes once), else names the wait and charges nothing', () => {
    let t = 0;
    const b = new TokenBucket(100, 250, () => t);
    expect(b.admit(200)).to.equal(0); // 50 left
    expect(b.admit(300)).to.equal(0); // not in debt yet: passes, 250 owed
    // In debt by 250 at 100/s: 2.5 s, asked again and again without the wait growing.
    expect([b.admit(1), b.admit(1), b.admit(1_000)]).to.deep.equal([2500, 2500, 2500]);
    t += 2_000;
    expect(b.admit(1)).to.equal(500);
    t += 500;
    expect(b.admit(1)).to.equal(0);
    expect(b.full()).to.equal(false);
    t += 60_000;
    expect(b.full()).to.equal(true);
  });

  it('a clock that steps back adds no tokens', () => {
    let t = 10_000;
    const b = new TokenBucket(1, 1, () => t);
    expect(b.reserve()).to.equal(0);
    t = 0;
    expect(b.reserve()).to.equal(1000);
    t = 10_500; // half a second after the last reading that counted
    expect(b.admit(1)).to.equal(500);
  });

  it('refuses settings that would never admit a request', () => {
    expect(() => new TokenBucket(0, 1, () => 0)).to.throw(RangeError, 'qps');
    expect(() => new TokenBucket(Number.NaN, 1, () => 0)).to.throw(RangeError, 'qps');
    expect(() => new TokenBucket(5, 0, () => 0)).to.throw(RangeError, 'burst');
    expect(() => new TokenBucket(5, 1.5, () => 0)).to.throw(RangeError, 'burst');
  });
});
