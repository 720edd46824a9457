// The observed fallback's answers, kept for a short interval: every metric request for an EHPA whose
// forecast is unusable used to run its PromQL again, so a namespace could buy Prometheus time by sending
// metric requests (each one ran the tenant's query). With this, N requests for the same query in one
// interval cost one Prometheus query: requests that arrive while it runs wait for the same answer, and a
// failure is kept as long as a value (a query that timed out must not be retried by every request).
// Keys are hashed, so a pod list of a thousand names costs 32 bytes of key; the entry count is bounded.
// Time is injected.
import { createHash } from 'node:crypto';
import type { HistoryProvider } from '../prometheus/series.ts';
import type { AdapterSources } from './providers/sources.ts';
import { observedPodCpuMillis, observedQueryTotal } from './observed-usage.ts';

/**
 * How long an observed value is served again: the HPA controller reads every 15 s
 * (--horizontal-pod-autoscaler-sync-period), and the fallback query's points are 15 s apart, so a value
 * younger than this is as new as asking again would give.
 */
export const OBSERVED_REFRESH_MS = 15_000;

/** Entries kept at most: far above one per predicted metric of every EHPA a cluster runs. */
export const OBSERVED_CACHE_ENTRIES = 20_000;

interface Entry<V> {
  at: number;
  value: Promise<V>;
}

export class ObservedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(private readonly now: () => number, o: { ttlMs?: number; maxEntries?: number } = {}) {
    this.ttlMs = o.ttlMs ?? OBSERVED_REFRESH_MS;
    this.maxEntries = o.maxEntries ?? OBSERVED_CACHE_ENTRIES;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The answer for `parts` (joined into one key) from the last `ttlMs`, else `load()`'s, kept. */
  get(parts: readonly string[], load: () => Promise<V>): Promise<V> {
    const key = createHash('sha256').update(parts.join('\u0000')).digest('base64');
    const t = this.now();
    const hit = this.entries.get(key);
    if (hit && t - hit.at < this.ttlMs && t >= hit.at) return hit.value;
    if (hit) this.entries.delete(key);
    let value: Promise<V>;
    try {
      value = load();
    } catch (e) {
      value = Promise.reject(e as Error);
    }
    this.entries.set(key, { at: t, value });
    if (this.entries.size > this.maxEntries) this.evict(t);
    return value;
  }

  /** Drops expired entries; if that is not enough, the oldest (a Map keeps insertion order). */
  private evict(t: number): void {
    for (const [k, e] of this.entries) if (!(t - e.at < this.ttlMs)) this.entries.delete(k);
    for (const k of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(k);
    }
  }
}

/** The adapter's two observed-usage sources read from `history`, each answer kept per namespace and query. */
export function cachedObservedUsage(history: HistoryProvider, now: () => number): Pick<AdapterSources, 'observedPodCpuMillis' | 'observedQueryTotal'> {
  const podCpu = new ObservedCache<Map<string, number>>(now);
  const totals = new ObservedCache<number | undefined>(now);
  return {
    // Sorted: the same pods listed in another order are the same query.
    observedPodCpuMillis: (ns, pods) => podCpu.get([ns, ...[...pods].sort()], () => observedPodCpuMillis(history, ns, pods, now())),
    observedQueryTotal: (ns, promql) => totals.get([ns, promql], () => observedQueryTotal(history, promql, now(), { namespace: ns })),
  };
}
