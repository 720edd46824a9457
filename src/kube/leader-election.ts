// Lease-based leader election (coordination.k8s.io/v1), client-go's algorithm (k8s.io/client-go v0.34
// tools/leaderelection/leaderelection.go): a candidate takes the Lease when the holder has not renewed it
// for leaseDuration as observed on *our* clock (no clock-skew trust), the leader renews every retryPeriod
// and steps down when it cannot renew within renewDeadline. Every write carries the Lease's
// resourceVersion, so two candidates can never both win.
//
// Why leadership terms cannot overlap (the old leader stops before a standby can take over):
// - A term ends at lastRenew + renewDeadline, where lastRenew is when the last successful attempt *started*
//   (its write committed after that). A standby takes over no earlier than leaseDuration after it *saw* that
//   write, which is after the commit. renewDeadline < leaseDuration leaves the gap between the two.
// - The end is a timer (a watchdog), not a check after an attempt returns: a renewal stuck on a slow API
//   cannot stretch the term. Every attempt also runs under a signal that aborts at that instant, threaded
//   into the HTTP request, and Lease requests use their own connections without the client-side rate limit,
//   so a backlog of controller writes never delays a renewal.
// - When the term ends, its AbortSignal fires. The controllers' client (termFencedClient) passes that signal
//   into every request: one not yet sent is refused, one in flight has its socket destroyed. So a deposed
//   leader sends nothing more, even from reconciles still unwinding. What was already on the wire before
//   the deadline must arrive within leaseDuration - renewDeadline, as with client-go.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { KubeApiClient, KubeApiError, type RequestOptions } from './api-client.ts';

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: LeaseSpec;
}

/** Where the Lease lives: the seam unit tests fill with an in-memory fake. Every call honours `signal`. */
export interface LeaseStore {
  /** The Lease, or undefined when there is none. */
  get(signal: AbortSignal): Promise<Lease | undefined>;
  /** Creates it; undefined when another candidate created it first. */
  create(lease: Lease, signal: AbortSignal): Promise<Lease | undefined>;
  /** Replaces it at lease.metadata.resourceVersion; undefined when it changed since (someone else wrote). */
  replace(lease: Lease, signal: AbortSignal): Promise<Lease | undefined>;
}

/** The Lease through the API. Give it a client of its own (KubeApiClient.withoutLimiter()). */
export function kubeLeaseStore(client: KubeApiClient, namespace: string, name: string): LeaseStore {
  const collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  const object = `${collection}/${encodeURIComponent(name)}`;
  const conflictIsUndefined = async (p: Promise<Lease>): Promise<Lease | undefined> => {
    try {
      return await p;
    } catch (e) {
      if (e instanceof KubeApiError && e.status === 409) return undefined;
      throw e;
    }
  };
  return {
    async get(signal) {
      try {
        return await client.request<Lease>('GET', object, { signal });
      } catch (e) {
        if (e instanceof KubeApiError && e.notFound) return undefined;
        throw e;
      }
    },
    create: (lease, signal) => conflictIsUndefined(client.request<Lease>('POST', collection, { body: lease, signal })),
    replace: (lease, signal) => conflictIsUndefined(client.request<Lease>('PUT', object, { body: lease, signal })),
  };
}

/** Time as the elector sees it: injected so unit tests drive it. */
export interface ElectionClock {
  now(): number;
  /** Calls `fn` once after `ms`; returns a function that cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const systemClock: ElectionClock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

export interface ElectionTiming {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** client-go's wait.JitterFactor: the renew deadline must leave room for a jittered retry period. */
export const JITTER_FACTOR = 1.2;

/**
 * What is wrong with the timing, as NewLeaderElector checks it (k8s.io/client-go v0.34
 * tools/leaderelection/leaderelection.go), or undefined. `name` says how to call each field (flag names).
 */
export function electionTimingProblem(t: ElectionTiming, name: (field: keyof ElectionTiming) => string = (f) => f): string | undefined {
  for (const f of ['leaseDurationMs', 'renewDeadlineMs', 'retryPeriodMs'] as const) {
    if (!(t[f] > 0)) return `${name(f)} must be greater than zero`;
  }
  if (t.leaseDurationMs <= t.renewDeadlineMs) return `${name('leaseDurationMs')} must be greater than ${name('renewDeadlineMs')}`;
  if (t.renewDeadlineMs <= JITTER_FACTOR * t.retryPeriodMs) {
    return `${name('renewDeadlineMs')} must be greater than ${name('retryPeriodMs')} × ${JITTER_FACTOR}`;
  }
  return undefined;
}

export interface LeaderElectionOptions extends ElectionTiming {
  /** Used only through withoutLimiter(): renewals never wait behind other requests. Ignored when `store` is given. */
  client?: KubeApiClient;
  store?: LeaseStore;
  namespace: string;
  name: string;
  identity: string;
  log: Logger;
  clock?: ElectionClock;
}

/** MicroTime text (RFC 3339 with microseconds), what Lease times are. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Calls `fn` when `signal` aborts (at once if it has); returns a function that unsubscribes. */
function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    fn();
    return () => {};
  }
  signal.addEventListener('abort', fn, { once: true });
  return () => signal.removeEventListener('abort', fn);
}

/** A signal that aborts after `ms` on `clock` or when `parent` aborts; dispose() drops the timer and listener. */
function deadlineSignal(clock: ElectionClock, ms: number, parent: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const cancelTimer = clock.after(Math.max(0, ms), () => ac.abort(new Error(`deadline of ${ms}ms passed`)));
  const unlink = onAbort(parent, () => ac.abort(parent.reason));
  return {
    signal: ac.signal,
    dispose: () => {
      cancelTimer();
      unlink();
    },
  };
}

export class LeaderElector {
  private observed: { record: string; atMs: number } | undefined;
  private lastHolder = '';
  private leading = false;
  private readonly clock: ElectionClock;
  private readonly store: LeaseStore;

  constructor(private readonly o: LeaderElectionOptions) {
    const problem = electionTimingProblem(o);
    if (problem) throw new Error(`leader election: ${problem}`);
    this.clock = o.clock ?? systemClock;
    if (o.store) this.store = o.store;
    else if (o.client) this.store = kubeLeaseStore(o.client.withoutLimiter(), o.namespace, o.name);
    else throw new Error('leader election: a client or a store is needed');
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** One acquire-or-renew attempt under `signal`; true when we hold the Lease afterwards. */
  async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const startMs = this.clock.now();
    const durationS = Math.ceil(this.o.leaseDurationMs / 1000);
    const lease = await this.store.get(signal);
    if (!lease) {
      const fresh: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.o.name, namespace: this.o.namespace },
        spec: { holderIdentity: this.o.identity, leaseDurationSeconds: durationS, acquireTime: microTime(startMs), renewTime: microTime(startMs), leaseTransitions: 0 },
      };
      if (!(await this.store.create(fresh, signal))) return false;
      this.observe(fresh.spec, startMs);
      return true;
    }
    // The record is "seen" when the read returns, not when the attempt began: a slow read must not make a
    // holder's renewal look older than it is (client-go's setObservedRecord takes the clock then too).
    const seenMs = this.clock.now();
    const record = JSON.stringify(lease.spec);
    if (!this.observed || this.observed.record !== record) this.observed = { record, atMs: seenMs };
    const holder = lease.spec.holderIdentity ?? '';
    this.lastHolder = holder;
    const heldByOther = holder !== '' && holder !== this.o.identity;
    const expiresMs = this.observed.atMs + (lease.spec.leaseDurationSeconds ?? durationS) * 1000;
    if (heldByOther && expiresMs > seenMs) return false;
    const spec: LeaseSpec = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: durationS,
      acquireTime: holder === this.o.identity ? lease.spec.acquireTime : microTime(startMs),
      renewTime: microTime(startMs),
      leaseTransitions: (lease.spec.leaseTransitions ?? 0) + (holder === this.o.identity ? 0 : 1),
    };
    if (!(await this.store.replace({ ...lease, spec }, signal))) return false;
    this.observe(spec, startMs);
    return true;
  }

  private observe(spec: LeaseSpec, atMs: number): void {
    this.observed = { record: JSON.stringify(spec), atMs };
    this.lastHolder = this.o.identity;
  }

  /**
   * Campaigns until `signal` aborts. `lead` runs while we are the leader and gets the term's signal, which
   * aborts the moment leadership is lost (renew deadline passed, another holder seen) or on shutdown; pass it
   * to every request the leader makes (termFencedClient). On shutdown the Lease is released once `lead` has
   * returned, so a standby takes over at once (client-go's ReleaseOnCancel).
   */
  async run(signal: AbortSignal, lead: (term: AbortSignal) => Promise<void>): Promise<void> {
    while (!signal.aborted) {
      const startMs = this.clock.now();
      const won = await this.attempt(signal, startMs + this.o.renewDeadlineMs);
      if (signal.aborted) break;
      if (won && this.clock.now() < startMs + this.o.renewDeadlineMs) await this.leadTerm(signal, lead, startMs);
      else await this.sleep(this.o.retryPeriodMs, signal);
    }
  }

  private async leadTerm(shutdown: AbortSignal, lead: (term: AbortSignal) => Promise<void>, acquiredMs: number): Promise<void> {
    const term = new AbortController();
    const lease = `${this.o.namespace}/${this.o.name}`;
    let lastRenewMs = acquiredMs;
    let cancelWatchdog = () => {};
    const end = (why: string) => {
      if (term.signal.aborted) return;
      this.leading = false;
      cancelWatchdog();
      if (!shutdown.aborted) this.o.log.warn({ lease, identity: this.o.identity }, `lost leadership: ${why}`);
      term.abort(new Error(`leadership ended: ${why}`));
    };
    const armWatchdog = () => {
      cancelWatchdog();
      cancelWatchdog = this.clock.after(lastRenewMs + this.o.renewDeadlineMs - this.clock.now(), () => end('could not renew within the renew deadline'));
    };
    this.leading = true;
    armWatchdog();
    const unlinkShutdown = onAbort(shutdown, () => end('shutting down'));
    this.o.log.info({ lease, identity: this.o.identity }, 'became leader');
    const leading = Promise.resolve()
      .then(() => lead(term.signal))
      .catch((e: Error) => this.o.log.error({ err: e.message }, 'leader work failed'));
    while (!term.signal.aborted) {
      await this.sleep(this.o.retryPeriodMs, term.signal);
      if (term.signal.aborted) break;
      const startMs = this.clock.now();
      // The term's signal is the attempt's deadline: it aborts at lastRenew + renewDeadline.
      const renewed = await this.attempt(term.signal);
      if (term.signal.aborted) break;
      if (renewed) {
        lastRenewMs = startMs;
        armWatchdog();
      } else if (this.lastHolder !== '' && this.lastHolder !== this.o.identity) {
        end(`${this.lastHolder} holds the lease`);
      }
    }
    unlinkShutdown();
    await leading;
    // On shutdown only; release() writes only while we are the holder, at the resourceVersion it read.
    if (shutdown.aborted) await this.release();
  }

  private async attempt(parent: AbortSignal, deadlineMs?: number): Promise<boolean> {
    const bound = deadlineMs === undefined ? undefined : deadlineSignal(this.clock, deadlineMs - this.clock.now(), parent);
    try {
      return await this.tryAcquireOrRenew(bound?.signal ?? parent);
    } catch (e) {
      this.o.log.warn({ err: (e as Error).message }, 'leader election request failed');
      return false;
    } finally {
      bound?.dispose();
    }
  }

  private async sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const wait = deadlineSignal(this.clock, ms, signal);
    await new Promise<void>((resolve) => onAbort(wait.signal, resolve));
    wait.dispose();
  }

  /** Gives the Lease up on shutdown so a standby takes over at once instead of after leaseDuration. */
  async release(): Promise<void> {
    const bound = deadlineSignal(this.clock, this.o.renewDeadlineMs, new AbortController().signal);
    try {
      const lease = await this.store.get(bound.signal);
      if (!lease || lease.spec.holderIdentity !== this.o.identity) return;
      await this.store.replace({ ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(this.clock.now()) } }, bound.signal);
    } catch (e) {
      this.o.log.warn({ err: (e as Error).message }, 'could not release the lease');
    } finally {
      bound.dispose();
    }
  }
}

/**
 * The leader's client: every request it sends, read or write, carries the current term's signal, so once
 * leadership is lost nothing more goes out (refused before sending; in flight, the socket is destroyed).
 * `term` is read per request: the controllers are built once and outlive terms. It shares `base`'s
 * connections, rate limit and request counters (its own stay empty).
 */
export function termFencedClient(base: KubeApiClient, term: () => AbortSignal): KubeApiClient {
  return new TermFencedClient(base, term);
}

class TermFencedClient extends KubeApiClient {
  constructor(
    private readonly base: KubeApiClient,
    private readonly term: () => AbortSignal,
  ) {
    super(base.kubeConfig, base.userAgent);
  }

  override async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const term = this.term();
    // Each request in flight listens on the term (its socket is destroyed on abort): many at once is normal.
    setMaxListeners(0, term);
    if (!opts.signal) return this.base.request<T>(method, path, { ...opts, signal: term });
    const both = new AbortController();
    const unlinkTerm = onAbort(term, () => both.abort(term.reason));
    const unlinkOwn = onAbort(opts.signal, () => both.abort(opts.signal?.reason));
    try {
      return await this.base.request<T>(method, path, { ...opts, signal: both.signal });
    } finally {
      unlinkTerm();
      unlinkOwn();
    }
  }
}
