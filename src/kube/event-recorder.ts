// core/v1 Events about our objects, deduplicated the way client-go's recorder does it: the same
// (object, type, reason, message) becomes one Event whose count grows, patched at most once a minute,
// so a failing object requeued with backoff does not flood the API server. Like client-go's broadcaster
// (maxQueuedEvents), at most a thousand events wait to be written; past that they are dropped and counted,
// so a namespace that creates thousands of objects at once costs a bounded queue, not an unbounded one.
// Each namespace also has a budget of events (a burst of 100, then one a second): 2,000 new EHPAs in one
// namespace made 2,851 Events in three minutes, each a write kube-apiserver stores on the cores every other
// namespace's HPA reads go through, and could fill the shared queue so that another namespace's events
// were dropped. Past its budget a namespace's events are dropped and counted.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { KubeApiClient } from './api-client.ts';
import { TenantBuckets } from './token-bucket.ts';

export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string };
}

export type EventType = 'Normal' | 'Warning';

export interface EventSink {
  event(obj: InvolvedObject, type: EventType, reason: string, message: string): void;
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
  lastPatchMs: number;
  lastSeenMs: number;
}

/** Events waiting to be written at most (client-go's record.maxQueuedEvents). */
export const MAX_QUEUED_EVENTS = 1000;
/** Events one namespace may emit at once, and per second after that. */
export const NAMESPACE_EVENT_BURST = 100;
export const NAMESPACE_EVENTS_PER_SECOND = 1;
/** How often the dedupe cache drops what it has not seen for its window (a scan of the whole cache). */
const PRUNE_EVERY_MS = 30_000;

export class EventRecorder implements EventSink {
  private readonly seen = new Map<string, Seen>();
  private pending: Promise<void> = Promise.resolve();
  private queued = 0;
  private lastPruneMs = -Infinity;
  /** Events dropped because MAX_QUEUED_EVENTS were waiting or their namespace was over its budget. */
  dropped = 0;
  /** Each namespace's event budget. */
  private readonly budgets: TenantBuckets;

  constructor(
    private readonly client: KubeApiClient,
    private readonly component: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    private readonly opts = { dedupeWindowMs: 10 * 60_000, patchEveryMs: 60_000 },
  ) {
    this.budgets = new TenantBuckets(NAMESPACE_EVENTS_PER_SECOND, NAMESPACE_EVENT_BURST, now);
  }

  /** Fire and forget: an event that cannot be written is logged, never fails a reconcile. */
  event(obj: InvolvedObject, type: EventType, reason: string, message: string): void {
    if (!this.budgets.of(obj.metadata.namespace || 'default').tryTake()) {
      this.dropped++;
      return;
    }
    if (this.queued >= MAX_QUEUED_EVENTS) {
      if (this.dropped++ % MAX_QUEUED_EVENTS === 0) this.log.warn({ namespace: obj.metadata.namespace, name: obj.metadata.name, reason, dropped: this.dropped }, 'event queue full: events dropped');
      return;
    }
    this.queued++;
    this.pending = this.pending
      .then(() => this.write(obj, type, reason, message))
      .catch((e: Error) => {
        this.log.warn({ namespace: obj.metadata.namespace, name: obj.metadata.name, reason, err: e.message }, 'could not record event');
      })
      .finally(() => this.queued--);
  }

  /** Resolves when queued events are written (tests, shutdown). */
  flush(): Promise<void> {
    return this.pending;
  }

  private async write(obj: InvolvedObject, type: EventType, reason: string, message: string): Promise<void> {
    const nowMs = this.now();
    const ns = obj.metadata.namespace || 'default';
    const key = [obj.metadata.uid ?? `${ns}/${obj.metadata.name}`, type, reason, message].join('\u0000');
    // A scan per event made a burst of N events cost N² (5.7 s of serve's thread for 2,000 new EHPAs).
    if (nowMs - this.lastPruneMs >= PRUNE_EVERY_MS) {
      this.lastPruneMs = nowMs;
      for (const [k, s] of this.seen) if (nowMs - s.lastSeenMs > this.opts.dedupeWindowMs) this.seen.delete(k);
    }
    const ts = new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const prev = this.seen.get(key);
    if (prev) {
      prev.count++;
      prev.lastSeenMs = nowMs;
      if (nowMs - prev.lastPatchMs < this.opts.patchEveryMs) return;
      prev.lastPatchMs = nowMs;
      await this.client.patch(`/api/v1/namespaces/${encodeURIComponent(prev.namespace)}/events/${encodeURIComponent(prev.name)}`, {
        count: prev.count,
        lastTimestamp: ts,
      });
      return;
    }
    const name = `${obj.metadata.name}.${nowMs.toString(16)}${randomBytes(2).toString('hex')}`;
    this.seen.set(key, { name, namespace: ns, count: 1, lastPatchMs: nowMs, lastSeenMs: nowMs });
    await this.client.create(`/api/v1/namespaces/${encodeURIComponent(ns)}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: ns },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: obj.metadata.name,
        namespace: obj.metadata.namespace,
        uid: obj.metadata.uid,
        resourceVersion: obj.metadata.resourceVersion,
      },
      reason,
      message: message.slice(0, 1024),
      type,
      source: { component: this.component },
      reportingComponent: this.component,
      reportingInstance: this.component,
      firstTimestamp: ts,
      lastTimestamp: ts,
      eventTime: null,
      count: 1,
    });
  }
}
