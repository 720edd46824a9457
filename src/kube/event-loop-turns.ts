// Cooperative scheduling for controller work on the one thread that also serves the metrics APIs, reads the
// watches and renews the Lease. Node runs a chain of already-resolved promises to its end before it polls
// for I/O again, so work that awaits nothing but caches never lets a request in: it has to hand the event
// loop a turn itself. Measured at 10,000 EHPAs (BENCHMARKS.md "scale"): a resync pass that did
// not held serve's event loop for 1.1–1.8 s every minute.

/** Resolves after the event loop has polled for I/O once (setImmediate runs in the check phase, after the poll). */
export function nextTurnOfEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Long synchronous work cut into stretches of at most about `budgetMs`: call `pause()` between items; it
 * gives the event loop a turn once the current stretch has run that long, and otherwise returns at once.
 */
export class TimeSlice {
  private start: number;

  constructor(
    private readonly budgetMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    if (!(budgetMs > 0)) throw new RangeError(`time slice budget must be positive, got ${budgetMs}`);
    this.start = clock();
  }

  async pause(): Promise<void> {
    if (this.clock() - this.start < this.budgetMs) return;
    await nextTurnOfEventLoop();
    this.start = this.clock();
  }
}
