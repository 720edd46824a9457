// Prometheus time per namespace, as a token bucket of milliseconds: a namespace's queries may use up to
// `burstMs` at once and `share` of wall time sustained (0.25: a quarter of a second of Prometheus time per
// second). A query is admitted while the namespace's bucket is above zero and charged its duration when it
// ends, so a long query drives the bucket into debt, repaid before the next is admitted: over any interval
// T a namespace uses at most burstMs + share × T plus the queries it had in flight.
// Counting queries in flight cannot give this: two CPU-bound queries take both cores of a two-core
// Prometheus whatever the concurrency limit says. Pure; time comes in.

export interface TimeBudgetOptions {
  /** Prometheus milliseconds a namespace earns per millisecond of wall time. */
  share: number;
  /** The most a namespace can have saved up (and the debt one query can run up is its own duration). */
  burstMs: number;
}

interface Bucket {
  tokensMs: number;
  atMs: number;
}

export class NamespaceTimeBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly o: TimeBudgetOptions) {}

  private refill(namespace: string, nowMs: number): Bucket {
    const b = this.buckets.get(namespace) ?? { tokensMs: this.o.burstMs, atMs: nowMs };
    const elapsed = Math.max(0, nowMs - b.atMs);
    b.tokensMs = Math.min(this.o.burstMs, b.tokensMs + elapsed * this.o.share);
    b.atMs = nowMs;
    return b;
  }

  /** Undefined when `namespace` may send a query now; else how long until it may (ms). */
  waitMs(namespace: string, nowMs: number): number | undefined {
    const b = this.refill(namespace, nowMs);
    if (b.tokensMs > 0) return undefined;
    return Math.ceil((-b.tokensMs + 1) / this.o.share);
  }

  /** Charges a finished query's duration to `namespace`. */
  charge(namespace: string, durationMs: number, nowMs: number): void {
    const b = this.refill(namespace, nowMs);
    b.tokensMs -= Math.max(0, durationMs);
    // A full bucket is the same as no entry: namespaces that stopped asking leave nothing behind.
    if (b.tokensMs >= this.o.burstMs) this.buckets.delete(namespace);
    else this.buckets.set(namespace, b);
  }

  /** Saved-up milliseconds of `namespace` now (tests, metrics). */
  tokensMs(namespace: string, nowMs: number): number {
    const b = this.buckets.get(namespace);
    if (!b) return this.o.burstMs;
    return Math.min(this.o.burstMs, b.tokensMs + Math.max(0, nowMs - b.atMs) * this.o.share);
  }

  /** Namespaces with an entry (tests: entries do not pile up). */
  get size(): number {
    return this.buckets.size;
  }
}
