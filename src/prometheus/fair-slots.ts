// Who may send a Prometheus request now: at most `global` requests in flight for the whole client, and
// at most `perNamespace` of them (in flight or waiting for a global slot) for one namespace. A namespace
// over its share waits in its own queue, which holds no global slot, so the global queue only ever holds
// each namespace's first few requests: another namespace's request finds a free slot at once unless
// global / perNamespace namespaces are all busy at the same time, and then waits for one request to end.
// A namespace's queue is bounded; past it the request fails at once, which the adapter answers 503
// rather than letting HPA requests pile up behind a namespace that asks faster than Prometheus answers.
// Requests without a namespace (the VPA recommender's cluster-wide reads, the TSP controller's, which
// --tsp-workers-per-namespace already spreads) take global slots only. No timers, no I/O.

export class NamespaceQueueFullError extends Error {
  override name = 'NamespaceQueueFullError';
}

export interface FairSlotsOptions {
  global: number;
  /** Requests one namespace may have admitted at once (default: no limit beyond `global`). */
  perNamespace?: number;
  /** Requests one namespace may have waiting beyond `perNamespace` (default: no limit). */
  maxQueuedPerNamespace?: number;
}

interface NamespaceState {
  /** Admitted: in flight, or waiting for a global slot. */
  admitted: number;
  queue: (() => void)[];
}

export class FairSlots {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly namespaces = new Map<string, NamespaceState>();

  constructor(private readonly o: FairSlotsOptions) {}

  /** Requests in flight now (tests, metrics). */
  get active(): number {
    return this.inFlight;
  }

  /** Requests of `namespace` admitted and queued (tests, metrics). */
  namespaceLoad(namespace: string): { admitted: number; queued: number } {
    const st = this.namespaces.get(namespace);
    return { admitted: st?.admitted ?? 0, queued: st?.queue.length ?? 0 };
  }

  /**
   * Resolves with a release function once the request may be sent; throws NamespaceQueueFullError at
   * once when `namespace` already has its share admitted and its queue full.
   */
  async acquire(namespace?: string): Promise<() => void> {
    if (namespace !== undefined) await this.admit(namespace);
    while (this.inFlight >= this.o.global) await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.waiting.shift()?.();
      if (namespace !== undefined) this.leave(namespace);
    };
  }

  private async admit(namespace: string): Promise<void> {
    let st = this.namespaces.get(namespace);
    if (!st) this.namespaces.set(namespace, (st = { admitted: 0, queue: [] }));
    if (st.admitted < (this.o.perNamespace ?? Infinity)) {
      st.admitted++;
      return;
    }
    const maxQueued = this.o.maxQueuedPerNamespace ?? Infinity;
    if (st.queue.length >= maxQueued) {
      throw new NamespaceQueueFullError(
        `namespace ${namespace} already has ${st.admitted} Prometheus queries running and ${st.queue.length} waiting, the most it may have (--prometheus-max-concurrency-per-namespace); try again later`,
      );
    }
    // Woken by leave(), which hands its admission over without decrementing.
    await new Promise<void>((r) => st.queue.push(r));
  }

  private leave(namespace: string): void {
    const st = this.namespaces.get(namespace);
    if (!st) return;
    const next = st.queue.shift();
    if (next) {
      next();
      return;
    }
    st.admitted--;
    if (st.admitted === 0) this.namespaces.delete(namespace);
  }
}
