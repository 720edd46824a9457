// Runs a reconcile function over a work queue with N workers: level-triggered, errors requeue with
// backoff, a result may ask for a periodic requeue. One bad key never blocks the others.
import type { Logger } from 'pino';
import { WorkQueue } from './work-queue.ts';

export interface ReconcileResult {
  /** Reconcile this key again after this many ms even if nothing changes (e.g. a refresh period). */
  requeueAfterMs?: number;
}

export type Reconcile = (key: string) => Promise<ReconcileResult | void>;

export interface ControllerOptions {
  name: string;
  workers: number;
  reconcile: Reconcile;
  log: Logger;
  /** Called with each reconcile's outcome and duration (metrics). */
  observe?: (outcome: 'success' | 'error', ms: number) => void;
  queue?: WorkQueue;
}

export class ControllerRunner {
  readonly queue: WorkQueue;
  private workers: Promise<void>[] = [];

  constructor(private readonly opts: ControllerOptions) {
    this.queue = opts.queue ?? new WorkQueue();
  }

  enqueue(key: string): void {
    this.queue.add(key);
  }

  start(): void {
    for (let i = 0; i < this.opts.workers; i++) this.workers.push(this.work());
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const t0 = performance.now();
      try {
        const r = await this.opts.reconcile(key);
        this.queue.forget(key);
        this.opts.observe?.('success', performance.now() - t0);
        if (r?.requeueAfterMs) this.queue.addAfter(key, r.requeueAfterMs);
      } catch (e) {
        const delay = this.queue.addRateLimited(key);
        this.opts.observe?.('error', performance.now() - t0);
        this.opts.log.warn({ controller: this.opts.name, key, err: (e as Error).message, retryInMs: delay }, 'reconcile failed');
      } finally {
        this.queue.done(key);
      }
    }
  }

  /** Stops handing out keys and waits for in-flight reconciles to finish. */
  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.all(this.workers);
    this.workers = [];
  }
}

export function objectKey(obj: { metadata?: { namespace?: string; name?: string } }): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
