// A pool of worker threads that fit forecasts, so a fit (about a second for 15 days at 60 s, minutes for
// an expressionQuery of hundreds of series) never runs on the event loop that serves the metrics API,
// renews the Lease and answers /healthz. One fit (one series) per worker at a time; jobs wait in a queue
// served round-robin by tenant (src/kube/fair-queue.ts), first in, first out within one.
// - Budget: a fit still running `budgetMs` after it was handed to a worker has its worker terminated (the
//   only way to stop a synchronous fit) and fails with FitBudgetExceededError; the next job gets a new worker.
// - Cancellation: a job whose signal aborts is dropped from the queue, or its worker terminated if it runs.
// - Memory: each worker's V8 heap is capped (`heapLimitMb`); a fit that outgrows it ends its worker (V8 stops
//   the isolate, not the process) and fails alone, so one tenant's series cannot take the replica's memory.
// Workers start on demand (a replica that never fits starts none) and are unref'd while idle, so an idle
// pool never keeps the process alive.
import { Worker } from 'node:worker_threads';
import { formatDurationMs } from '../../config/duration.ts';
import type { FitReply, FitRequest, WorkerMessage } from './fit-protocol.ts';
import { FairQueue } from '../../kube/fair-queue.ts';

export class FitBudgetExceededError extends Error {
  override name = 'FitBudgetExceededError';
  constructor(budgetMs: number) {
    super(`forecast exceeded its ${formatDurationMs(budgetMs)} budget`);
  }
}

/** A fit that did not run to the end because its caller cancelled it. */
export class FitCancelledError extends Error {
  override name = 'AbortError';
}

/** A worker that died under a fit (out of memory, a crash in the core). */
export class FitWorkerError extends Error {
  override name = 'FitWorkerError';
}

export interface ForecastPoolOptions {
  /** Worker threads at most. */
  size: number;
  /** Longest a single fit may run. */
  budgetMs: number;
  /** Old-generation heap of each worker, MiB (Worker resourceLimits.maxOldGenerationSizeMb); none: V8's default. */
  heapLimitMb?: number;
  /** The worker entry; tests substitute a script speaking the same protocol (fit-protocol.ts). */
  workerUrl?: URL;
}

export type PoolFitResult = Omit<Extract<FitReply, { type: 'fit' }>, 'type' | 'id'> | { reason: string };

interface Job {
  request: FitRequest;
  /** Whose fit it is (the TSP's namespace): the queue takes tenants in turn. */
  tenant: string;
  resolve: (r: PoolFitResult) => void;
  reject: (e: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
  slot?: Slot;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  dead: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

/** This module's sibling with this module's own extension: fit-worker.ts under tsx, fit-worker.js in dist/. */
function defaultWorkerUrl(): URL {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./fit-worker${ext}`, import.meta.url);
}

/**
 * How to start a worker on `url`. A compiled .js entry starts as is; a .ts entry (tests, `npm start`) starts
 * through tsx-bootstrap.mjs, which registers tsx inside the worker first.
 */
function workerEntry(url: URL): { filename: URL; options: { workerData?: { entry: string } } } {
  if (!url.pathname.endsWith('.ts')) return { filename: url, options: {} };
  return { filename: new URL('./tsx-bootstrap.mjs', import.meta.url), options: { workerData: { entry: url.href } } };
}

function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return new FitCancelledError(r instanceof Error ? r.message : 'forecast cancelled');
}

export class ForecastPool {
  private readonly slots = new Set<Slot>();
  private readonly idle: Slot[] = [];
  private readonly queue = new FairQueue<Job>();
  private readonly entry: ReturnType<typeof workerEntry>;
  private nextId = 1;
  private closed = false;
  /** Workers terminated on a budget overrun, a cancellation or a crash (metrics, tests). */
  replaced = 0;

  constructor(private readonly o: ForecastPoolOptions) {
    if (!(o.size >= 1)) throw new RangeError('a forecast pool needs at least one worker');
    if (!(o.budgetMs > 0)) throw new RangeError('the fit budget must be positive');
    if (o.heapLimitMb !== undefined && !(o.heapLimitMb >= 16)) throw new RangeError('a forecast worker needs a heap of at least 16 MiB');
    this.entry = workerEntry(o.workerUrl ?? defaultWorkerUrl());
  }

  /** Workers alive, busy, and jobs waiting (metrics, tests). */
  stats(): { workers: number; busy: number; queued: number } {
    let busy = 0;
    for (const s of this.slots) if (s.job) busy++;
    return { workers: this.slots.size, busy, queued: this.queue.length };
  }

  /**
   * Fits one series in a worker. The columns' buffers are transferred (the arrays are empty afterwards).
   * Resolves with the forecast or the algorithm's reason for declining; rejects with FitBudgetExceededError,
   * FitCancelledError or FitWorkerError.
   */
  fit(input: Omit<FitRequest, 'id'>, signal?: AbortSignal, tenant = ''): Promise<PoolFitResult> {
    if (this.closed) return Promise.reject(new FitCancelledError('forecast pool closed'));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<PoolFitResult>((resolve, reject) => {
      const job: Job = { request: { ...input, id: this.nextId++ }, tenant, resolve, reject, signal, onAbort: () => this.cancel(job) };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(tenant, job);
      this.pump();
    });
  }

  /** Terminates every worker; queued and running fits fail as cancelled. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.drain()) this.settle(job, new FitCancelledError('forecast pool closed'));
    const exits = [...this.slots].map((s) => {
      if (s.job) this.settle(s.job, new FitCancelledError('forecast pool closed'));
      return this.discard(s);
    });
    await Promise.all(exits);
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const slot = this.idle.shift();
      if (!slot) break;
      this.dispatch(slot, this.queue.shift() as Job);
    }
    // Start workers for what still waits, counting those already starting.
    let starting = 0;
    for (const s of this.slots) if (!s.ready) starting++;
    while (!this.closed && this.slots.size < this.o.size && starting < this.queue.length) {
      this.spawn();
      starting++;
    }
  }

  private spawn(): void {
    const limits = this.o.heapLimitMb === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: this.o.heapLimitMb } };
    const worker = new Worker(this.entry.filename, { ...this.entry.options, ...limits });
    const slot: Slot = { worker, ready: false, dead: false };
    this.slots.add(slot);
    worker.unref();
    worker.on('message', (m: WorkerMessage) => this.onMessage(slot, m));
    worker.on('error', (e: Error & { code?: string }) =>
      this.kill(
        slot,
        new FitWorkerError(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `forecast needed more than the worker's ${String(this.o.heapLimitMb ?? 'default')} MiB heap (--forecast-worker-heap)`
            : `forecast worker failed: ${e.message}`,
        ),
      ),
    );
    worker.on('exit', (code) => this.kill(slot, new FitWorkerError(`forecast worker exited with code ${code}`)));
  }

  private dispatch(slot: Slot, job: Job): void {
    slot.job = job;
    job.slot = slot;
    slot.worker.ref();
    const r = job.request;
    slot.worker.postMessage(r, [r.timestamps.buffer, r.values.buffer]);
    slot.timer = setTimeout(() => this.kill(slot, new FitBudgetExceededError(this.o.budgetMs)), this.o.budgetMs);
  }

  private onMessage(slot: Slot, m: WorkerMessage): void {
    if (slot.dead) return;
    if (m.type === 'ready') {
      slot.ready = true;
      this.idle.push(slot);
      this.pump();
      return;
    }
    const job = slot.job;
    if (!job || job.request.id !== m.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.worker.unref();
    if (m.type === 'fit') {
      const { type: _type, id: _id, ...fit } = m;
      this.settle(job, undefined, fit);
    }
    else if (m.type === 'declined') this.settle(job, undefined, { reason: m.reason });
    else this.settle(job, new Error(m.message));
    this.idle.push(slot);
    this.pump();
  }

  /** A cancelled job: dropped if it waits, its worker terminated if it runs. */
  private cancel(job: Job): void {
    const err = abortReason(job.signal as AbortSignal);
    if (job.slot) return this.kill(job.slot, err);
    this.queue.remove(job.tenant, job);
    this.settle(job, err);
  }

  /**
   * A worker that must go (its fit overran or was cancelled: a synchronous fit cannot be interrupted
   * otherwise) or that died on its own: its job fails with `err`, and waiting jobs get a new worker.
   */
  private kill(slot: Slot, err: Error): void {
    if (slot.dead) return;
    const job = slot.job;
    const started = slot.ready;
    void this.discard(slot);
    this.replaced++;
    if (job) this.settle(job, err);
    // A worker that cannot even start would be restarted forever: fail what waits instead (the next
    // fit tries a new worker).
    if (!started) for (const j of this.queue.drain()) this.settle(j, err);
    this.pump();
  }

  private discard(slot: Slot): Promise<number> {
    slot.dead = true;
    clearTimeout(slot.timer);
    slot.job = undefined;
    this.slots.delete(slot);
    const i = this.idle.indexOf(slot);
    if (i >= 0) this.idle.splice(i, 1);
    return slot.worker.terminate();
  }

  private settle(job: Job, err: Error | undefined, result?: PoolFitResult): void {
    job.signal?.removeEventListener('abort', job.onAbort);
    job.slot = undefined;
    if (err) job.reject(err);
    else job.resolve(result as PoolFitResult);
  }
}
