// TenantPacer: a byte budget per namespace for the status writes serve makes on a tenant's behalf
// (docs/security.md §8). Expected waits are worked out by hand from the rate and burst.
import { expect } from 'chai';
import { TenantPacer } from '../../../src/kube/tenant-pacer.ts';

describe('kube: per-namespace pacing of status bytes', () => {
  it("a namespace over its burst waits at the sustained rate; another namespace is not delayed by it", () => {
    let t = 0;
    // 64 KiB/s, 256 KiB at once: ten 130 KB statuses.
    const p = new TenantPacer({ bytesPerSecond: 65_536, burstBytes: 262_144 }, () => t);
    const status = 130_000;
    expect(p.reserve('mallory', status)).to.equal(0); // 132,144 left
    expect(p.reserve('mallory', status)).to.equal(0); // 2,144 left
    expect(p.reserve('mallory', status)).to.equal(0); // not in debt yet: passes, 127,856 owed
    // 127,856 / 65,536 s = 1,951 ms (rounded up), the same however often she asks.
    expect(p.reserve('mallory', status)).to.equal(1951);
    expect(p.reserve('mallory', status)).to.equal(1951);
    expect(p.reserve('victim', 6_000)).to.equal(0);
    t += 1951;
    expect(p.reserve('mallory', status)).to.equal(0);
    // The 10th passes once nine statuses less the burst have drained: (9 × 130,000 − 262,144) / 65,536 s
    // ≈ 13.9 s after the first, stepping the clock by each answer.
    let written = 4;
    while (written < 10) {
      const w = p.reserve('mallory', status);
      if (w === 0) written++;
      else t += w;
    }
    expect(t).to.be.within(Math.floor(((9 * status - 262_144) / 65_536) * 1000), Math.ceil(((9 * status - 262_144) / 65_536) * 1000) + 10);
  });

  it('0 bytes per second turns pacing off', () => {
    const p = new TenantPacer({ bytesPerSecond: 0, burstBytes: 1 }, () => 0);
    for (let i = 0; i < 100; i++) expect(p.reserve('mallory', 1e6)).to.equal(0);
    expect(p.tenants()).to.equal(0);
  });

  it('keeps buckets only for namespaces still paying: 5,000 one-off writers do not accumulate', () => {
    let t = 0;
    const p = new TenantPacer({ bytesPerSecond: 1_000, burstBytes: 10_000 }, () => t);
    for (let i = 0; i < 5_000; i++) {
      p.reserve(`ns-${i}`, 5_000);
      t += 10; // each bucket refills in 5 s = 500 writers later
    }
    expect(p.tenants()).to.be.below(1_024 + 500 + 1);
    // A namespace still in debt is never forgotten (forgetting it would hand it a fresh burst).
    const q = new TenantPacer({ bytesPerSecond: 1, burstBytes: 1 }, () => t);
    q.reserve('mallory', 100);
    for (let i = 0; i < 3_000; i++) q.reserve(`ns-${i}`, 1);
    expect(q.reserve('mallory', 1)).to.be.above(0);
  });

  it('refuses a negative or non-finite rate', () => {
    expect(() => new TenantPacer({ bytesPerSecond: -1, burstBytes: 1 }, () => 0)).to.throw(RangeError, 'bytes per second');
    expect(() => new TenantPacer({ bytesPerSecond: Number.POSITIVE_INFINITY, burstBytes: 1 }, () => 0)).to.throw(RangeError);
  });
});
