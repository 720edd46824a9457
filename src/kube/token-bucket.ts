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

  /** Takes one token and returns the milliseconds to wait before using it (0: go now). */
  reserve(): number {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) * this.qps) / 1000);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.qps);
  }
}
