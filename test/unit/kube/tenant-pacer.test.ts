// TenantPacer: a byte budget per namespace for the status writes serve makes on a tenant's behalf
// (docs/security.md §8). Expected waits are worked out by hand from the rate and burst.
import { expect } from 'chai';
import { TenantPacer } from '../../../src/kube/tenant-pacer.ts';

describe('kube: per-namespace pacing of status bytes', () => {
  it('a namespace over its burst writes one status after another at the sustained rate; another namespace is not delayed', () => {
    let t = 0;
    // 64 KiB/s, 256 KiB at once: ten 130 KB statuses asked for together.
    const p = new TenantPacer({ bytesPerSecond: 65_536, burstBytes: 262_144 }, () => t);
    const status = 130_000;
    const waits = Array.from({ length: 10 }, () => p.reserve('mallory', status));
    // Write k (from 1) goes when k × 130,000 − 262,144 bytes have drained at 65,536 a second: the first
    // two at once, then one every 1.98 s, each at its own time, the tenth after 15.84 s.
    expect(waits).to.deep.equal(waits.map((_, i) => Math.max(0, Math.ceil((((i + 1) * status - 262_144) / 65_536) * 1000))));
    expect(waits.slice(0, 3)).to.deep.equal([0, 0, 1951]);
    expect(waits[9]).to.equal(15_837);
    expect(new Set(waits).size).to.equal(9);
    expect(p.reserve('victim', 6_000)).to.equal(0);
    // Once the debt is paid the burst refills; a status now goes at once again.
    t += 15_837 + 262_144 / 65.536;
    expect(p.reserve('mallory', status)).to.equal(0);
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
    expect(q.reserve('mallory', 1)).to.be.above(99_000);
  });

  it('refuses a negative or non-finite rate', () => {
    expect(() => new TenantPacer({ bytesPerSecond: -1, burstBytes: 1 }, () => 0)).to.throw(RangeError, 'bytes per second');
    expect(() => new TenantPacer({ bytesPerSecond: Number.POSITIVE_INFINITY, burstBytes: 1 }, () => 0)).to.throw(RangeError);
  });
});
