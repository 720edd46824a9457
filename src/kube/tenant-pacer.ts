// Per-namespace pacing of what serve writes to kube-apiserver on a tenant's behalf (docs/security.md §8).
// A tenant may legally ask for forecasts whose statuses are ~130 KB each; storing a burst of them costs the
// API server (merge patch, schema validation, etcd, watch fan-out) CPU that every other namespace's HPA
// needs for its metric reads through the same server. Each namespace gets a token bucket of bytes: writes
// pass at once while it is within its burst; past it, each write is charged at once and told when its turn
// comes, later for each write in a row, so waiting writes go one after another at the sustained rate
// rather than all waking together (the caller requeues rather than holding a worker, so other namespaces
// are never delayed by it). No status is refused for its size here (spec-bounds.ts bounds the size).
import { TenantBuckets } from './token-bucket.ts';

export interface TenantPacerOptions {
  /** Bytes a namespace may write per second, sustained (0: no pacing). */
  bytesPerSecond: number;
  /** Bytes a namespace may write at once before pacing starts. */
  burstBytes: number;
}

export class TenantPacer {
  private readonly buckets: TenantBuckets;

  constructor(
    private readonly o: TenantPacerOptions,
    now: () => number,
  ) {
    if (!(o.bytesPerSecond >= 0) || !Number.isFinite(o.bytesPerSecond)) throw new RangeError(`bytes per second must be a non-negative number, got ${o.bytesPerSecond}`);
    this.buckets = new TenantBuckets(o.bytesPerSecond, o.burstBytes, now);
  }

  /** Charges `bytes` to `tenant` and returns the ms until it may write them (0: now). */
  reserve(tenant: string, bytes: number): number {
    if (this.o.bytesPerSecond === 0) return 0;
    return this.buckets.of(tenant).reserve(bytes);
  }

  /** Namespaces with a bucket (tests). */
  tenants(): number {
    return this.buckets.size;
  }
}
