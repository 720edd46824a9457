// The HPA asks for crane_pod_cpu_usage every sync period (15 s by default), so a stale forecast would
// report the same fallback four times a minute. This wrapper passes an event on when its (reason, outcome)
// changes for an EHPA, or again after `intervalMs` — the shape an event recorder or condition writer wants.
import type { FallbackListener, PredictionFallbackEvent } from './sources.ts';

export function dedupedFallbackListener(listener: FallbackListener, opts: { intervalMs: number; now: () => number; maxEntries?: number }): FallbackListener {
  const last = new Map<string, { key: string; at: number }>();
  return (e: PredictionFallbackEvent) => {
    const who = `${e.namespace}/${e.ehpaName}/${e.metric}`;
    const key = `${e.reason}/${e.outcome}`;
    const now = opts.now();
    const prev = last.get(who);
    if (prev && prev.key === key && now - prev.at < opts.intervalMs) return;
    if (last.size >= (opts.maxEntries ?? 10_000) && !prev) last.clear();
    last.set(who, { key, at: now });
    listener(e);
  };
}
