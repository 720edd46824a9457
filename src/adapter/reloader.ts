// The one way the adapter follows material that rotates under it (the front-proxy trust, the serving
// certificate): poll a loader, compare a fingerprint with what is in force, and swap only a candidate that
// the target accepts. Polling rather than inotify on purpose: a mounted Secret or ConfigMap is replaced by
// kubelet's atomic writer (a new timestamped directory, then the `..data` symlink swapped), which a watch on
// the file itself never sees, while a re-read through the symlink always gets the current files.
import type { Logger } from 'pino';

type Log = Pick<Logger, 'info' | 'warn' | 'error'>;

export type RefreshOutcome = 'unchanged' | 'reloaded' | 'failed';

export interface ReloaderOptions<T> {
  /** What is reloaded, as log lines name it ("request-header configuration", "serving certificate"). */
  what: string;
  /** Reads the candidate; throws when it cannot be read. */
  load(): Promise<T>;
  /** Equal fingerprints mean nothing to do. */
  fingerprint(v: T): string;
  /** What is in force now. */
  current(): T;
  /** Puts `v` in force; throws, leaving the old one in force, when `v` cannot be used. */
  apply(v: T): void;
  /** The info line after a swap: its fields and message. */
  reloadedLine(v: T, fingerprint: string): [Record<string, unknown>, string];
  /** After each swap or refusal (counters, follow-up warnings). */
  onOutcome?(outcome: 'reloaded' | 'failed', v: T | undefined): void;
  log: Log;
}

/** Loads a candidate and swaps it in when it differs from what is in force. */
export class Reloader<T> {
  private lastProblem: string | undefined;

  constructor(private readonly o: ReloaderOptions<T>) {}

  /** One check. Errors are logged (once per distinct problem, so a 10 s poll does not flood) and swallowed. */
  async refresh(): Promise<RefreshOutcome> {
    let v: T;
    try {
      v = await this.o.load();
    } catch (e) {
      this.problem(`unable to read the ${this.o.what}: ${(e as Error).message}`);
      this.o.onOutcome?.('failed', undefined);
      return 'failed';
    }
    const next = this.o.fingerprint(v);
    if (next === this.o.fingerprint(this.o.current())) {
      this.lastProblem = undefined;
      return 'unchanged';
    }
    try {
      this.o.apply(v);
    } catch (e) {
      this.problem(`new ${this.o.what} rejected, keeping the previous one: ${(e as Error).message}`, next);
      this.o.onOutcome?.('failed', v);
      return 'failed';
    }
    this.lastProblem = undefined;
    const [fields, message] = this.o.reloadedLine(v, next);
    this.o.log.info(fields, message);
    this.o.onOutcome?.('reloaded', v);
    return 'reloaded';
  }

  private problem(message: string, key = message): void {
    if (this.lastProblem === key) return;
    this.lastProblem = key;
    this.o.log.error(message);
  }
}

/** Runs `tick` every `intervalMs` without keeping the process alive; at most one tick at a time. */
export function every(intervalMs: number, tick: () => Promise<unknown>): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void tick().finally(() => {
      running = false;
    });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
