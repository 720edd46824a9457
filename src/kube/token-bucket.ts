// Client-side rate limit for requests to kube-apiserver, with client-go's semantics (flowcontrol's token
// bucket over golang.org/x/time/rate): `burst` requests may go at once, then `qps` per second; a request
// that finds the bucket empty reserves its token anyway and is told how long to wait, so waiting requests
// keep their call order and nothing polls. Pure: the clock is injected.

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {
    if (!(qps > 0) || !Number.isFinite(qps)) throw new RangeError(`qps must be a positive number, got ${qps}`);
    if (!Number.isInteger(burst) || burst < 1) throw new RangeError(`burst must be a positive integer, got ${burst}`);
    this.tokens = burst;
    this.last = now();
  }

  /**
   * Takes `cost` tokens (one request by default) and returns the milliseconds to wait before using them
   * (0: go now). The bucket may go into debt, so each caller in a row is told a later time, in call order.
   */
  reserve(cost = 1): number {
    this.refill();
    this.tokens -= cost;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.qps);
  }

  /** Takes `cost` tokens when the bucket holds them (true), else takes nothing (false): for work that is dropped, not delayed. */
  tryTake(cost = 1): boolean {
    this.refill();
    if (this.tokens < cost) return false;
    this.tokens -= cost;
    return true;
  }

  /** True when the bucket has refilled to its burst: nothing taken is still being paid for. */
  full(): boolean {
    this.refill();
    return this.tokens >= this.burst;
  }

  private refill(): void {
    const t = this.now();
    // A clock that steps back adds nothing.
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, t - this.last) * this.qps) / 1000);
    this.last = Math.max(this.last, t);
  }
}

/**
 * One token bucket per tenant (a namespace), made at first use. Buckets that have refilled are forgotten once
 * there are many (a new one starts full too, so forgetting changes nothing), so the map holds recent users only.
 */
export class TenantBuckets {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {}

  of(tenant: string): TokenBucket {
    let bucket = this.buckets.get(tenant);
    if (!bucket) {
      if (this.buckets.size >= 1024) for (const [t, b] of this.buckets) if (b.full()) this.buckets.delete(t);
      bucket = new TokenBucket(this.perSecond, this.burst, this.now);
      this.buckets.set(tenant, bucket);
    }
    return bucket;
  }

  /** Tenants with a bucket (tests). */
  get size(): number {
    return this.buckets.size;
  }
}
