// Lease-based leader election (coordination.k8s.io/v1), client-go's algorithm: a candidate takes the
// Lease when the holder has not renewed it for leaseDuration as observed on *our* clock (no clock-skew
// trust), the leader renews every retryPeriod and steps down when it cannot renew within renewDeadline.
// Every write carries the Lease's resourceVersion, so two candidates can never both win.
import type { Logger } from 'pino';
import { KubeApiError, type KubeApiClient } from './api-client.ts';

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: LeaseSpec;
}

export interface LeaderElectionOptions {
  client: KubeApiClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  log: Logger;
  now?: () => number;
}

/** MicroTime text (RFC 3339 with microseconds), what Lease times are. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

export class LeaderElector {
  private observed: { record: string; atMs: number } | undefined;
  private leading = false;
  private readonly now: () => number;
  private readonly path: string;

  constructor(private readonly o: LeaderElectionOptions) {
    this.now = o.now ?? Date.now;
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(o.namespace)}/leases`;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** One acquire-or-renew attempt; true when we hold the Lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const nowMs = this.now();
    const durationS = Math.ceil(this.o.leaseDurationMs / 1000);
    let lease: Lease | undefined;
    try {
      lease = await this.o.client.get<Lease>(`${this.path}/${encodeURIComponent(this.o.name)}`);
    } catch (e) {
      if (!(e instanceof KubeApiError && e.notFound)) throw e;
    }
    if (!lease) {
      const fresh: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.o.name, namespace: this.o.namespace },
        spec: { holderIdentity: this.o.identity, leaseDurationSeconds: durationS, acquireTime: microTime(nowMs), renewTime: microTime(nowMs), leaseTransitions: 0 },
      };
      try {
        await this.o.client.create(this.path, fresh);
      } catch (e) {
        if (e instanceof KubeApiError && e.status === 409) return false;
        throw e;
      }
      this.observed = { record: JSON.stringify(fresh.spec), atMs: nowMs };
      return true;
    }
    const record = JSON.stringify(lease.spec);
    if (!this.observed || this.observed.record !== record) this.observed = { record, atMs: nowMs };
    const holder = lease.spec.holderIdentity ?? '';
    const heldByOther = holder !== '' && holder !== this.o.identity;
    const expiresMs = this.observed.atMs + (lease.spec.leaseDurationSeconds ?? durationS) * 1000;
    if (heldByOther && expiresMs > nowMs) return false;
    const spec: LeaseSpec = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: durationS,
      acquireTime: holder === this.o.identity ? lease.spec.acquireTime : microTime(nowMs),
      renewTime: microTime(nowMs),
      leaseTransitions: (lease.spec.leaseTransitions ?? 0) + (holder === this.o.identity ? 0 : 1),
    };
    try {
      await this.o.client.replace(`${this.path}/${encodeURIComponent(this.o.name)}`, { ...lease, spec });
    } catch (e) {
      if (e instanceof KubeApiError && e.status === 409) return false;
      throw e;
    }
    this.observed = { record: JSON.stringify(spec), atMs: nowMs };
    return true;
  }

  /**
   * Campaigns until `signal` aborts. `lead` runs while we are the leader and gets a signal that aborts
   * when leadership is lost or on shutdown; it must stop all writes when that signal fires.
   */
  async run(signal: AbortSignal, lead: (stop: AbortSignal) => Promise<void>): Promise<void> {
    while (!signal.aborted) {
      const won = await this.attempt();
      if (!won) {
        await sleep(this.o.retryPeriodMs, signal);
        continue;
      }
      this.leading = true;
      this.o.log.info({ lease: `${this.o.namespace}/${this.o.name}`, identity: this.o.identity }, 'became leader');
      const stop = new AbortController();
      const onShutdown = () => stop.abort();
      signal.addEventListener('abort', onShutdown, { once: true });
      const leading = lead(stop.signal);
      let lastRenew = this.now();
      while (!stop.signal.aborted) {
        await sleep(this.o.retryPeriodMs, stop.signal);
        if (stop.signal.aborted) break;
        if (await this.attempt()) lastRenew = this.now();
        else if (this.now() - lastRenew > this.o.renewDeadlineMs) {
          this.o.log.warn({ lease: `${this.o.namespace}/${this.o.name}` }, 'lost leadership: could not renew in time');
          stop.abort();
        }
      }
      this.leading = false;
      signal.removeEventListener('abort', onShutdown);
      await leading;
      if (signal.aborted) await this.release();
    }
  }

  private async attempt(): Promise<boolean> {
    try {
      return await this.tryAcquireOrRenew();
    } catch (e) {
      this.o.log.warn({ err: (e as Error).message }, 'leader election request failed');
      return false;
    }
  }

  /** Gives the Lease up on shutdown so a standby takes over at once instead of after leaseDuration. */
  async release(): Promise<void> {
    try {
      const lease = await this.o.client.get<Lease>(`${this.path}/${encodeURIComponent(this.o.name)}`);
      if (lease.spec.holderIdentity !== this.o.identity) return;
      await this.o.client.replace(`${this.path}/${encodeURIComponent(this.o.name)}`, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(this.now()) },
      });
    } catch (e) {
      this.o.log.warn({ err: (e as Error).message }, 'could not release the lease');
    }
  }
}
