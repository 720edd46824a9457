// A controller work queue with client-go's guarantees: a key is queued at most once, never handled by
// two workers at the same time, and failing keys come back with per-key exponential backoff. Unlike
// client-go's FIFO, keys are handed out round-robin by namespace (fair-queue.ts): 2,000 new objects in one
// namespace do not put another namespace's next reconcile behind all of them.

import { FairQueue } from './fair-queue.ts';

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export class WorkQueue {
  private readonly queue = new FairQueue<string>();
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; dueMs: number }>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;

  constructor(private readonly backoff: BackoffPolicy = { baseMs: 500, maxMs: 300_000 }) {}

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const w = this.waiters.shift();
    if (w) {
      this.dirty.delete(key);
      this.processing.add(key);
      w(key);
    } else {
      this.queue.push(splitKey(key).namespace, key);
    }
  }

  /** Adds the key after `ms`; of two pending timers for one key the earlier wins (client-go's AddAfter). */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const dueMs = performance.now() + ms;
    const pending = this.timers.get(key);
    if (pending && pending.dueMs <= dueMs) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    timer.unref?.();
    this.timers.set(key, { timer, dueMs });
  }

  /**
   * Requeues a failed key with exponential backoff, or after `notAfterMs` when that is sooner (the failure
   * count grows either way). Returns the delay used.
   */
  addRateLimited(key: string, notAfterMs = Infinity): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const delay = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** Math.min(n, 30), notAfterMs);
    this.addAfter(key, delay);
    return delay;
  }

  /** Clears the key's failure count after a success. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Next key to handle; undefined once shut down. Call done(key) when finished. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    // Re-added while it was being handled: hand it out again now.
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  len(): number {
    return this.queue.length;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    for (const w of this.waiters.splice(0)) w(undefined);
  }
}

/** A queue key: `namespace/name` (`/name` for a cluster-scoped object). */
export function objectKey(obj: { metadata?: { namespace?: string; name?: string } }): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/** The key's namespace ('' when cluster-scoped, or for a key with no `/`) and name. */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: i < 0 ? '' : key.slice(0, i), name: key.slice(i + 1) };
}
