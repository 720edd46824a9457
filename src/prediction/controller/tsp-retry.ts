// When a TSP is looked at again. A pass whose refits all gave a ready forecast comes back after the update
// frequency, to check the status still covers its window. A pass in which some refit gave no ready
// forecast (Prometheus failing, a query refused for too many series, a fit over its budget, a history with
// no period) says so, and the work queue brings the key back with its per-key backoff, the one backoff the
// controller has: the update frequency doubled per consecutive failed pass, up to FAILURE_BACKOFF_MAX_FACTOR
// of them (30 s, 60 s, 120 s, 240 s, then every 5 min at Crane's default 30 s). Repeating such a refit at
// every check would cost a full history read and fit twice a minute for as long as it fails.
import type { BackoffPolicy } from '../../kube/work-queue.ts';
import type { ReconcileResult } from '../../kube/controller-runner.ts';
import type { MetricOutcome } from './tsp-status.ts';

/** The longest wait between passes whose refits keep failing, in update frequencies (the first wait is one, then doubles). */
export const FAILURE_BACKOFF_MAX_FACTOR = 10;

/** The TSP work queue's per-key backoff: after failed refits, and after a reconcile that threw. */
export function tspRetryBackoff(updateFrequencyMs: number): BackoffPolicy {
  return { baseMs: updateFrequencyMs, maxMs: updateFrequencyMs * FAILURE_BACKOFF_MAX_FACTOR };
}

/**
 * How long a TSP refused for its status size waits before its query is tried again, unchanged. Not
 * forever: the series count is not the spec's alone. A range query over the history returns a series for
 * every pod that ran in it, so the count falls as old pods age out of the history (hours to days), or when
 * an exporter's labels change. Not at every pass either: each try costs a query (and the fits of the
 * metrics before the one that overruns) to learn what the status already says. The model update interval
 * (12 h by default) is how often even a healthy forecast re-reads its history; never less than the longest
 * failure backoff. A spec edit (fewer series, a shorter window) retries at once.
 */
export function sizeRetryMs(modelUpdateIntervalMs: number, updateFrequencyMs: number): number {
  return Math.max(modelUpdateIntervalMs, tspRetryBackoff(updateFrequencyMs).maxMs);
}

/**
 * What a pass that wrote (or would write) `outcomes` at `nowS` asks of the work queue. With a failed refit:
 * the backoff, but no later than the first instant a ready metric's written samples stop covering
 * [now, now + window], so the metrics that work stay fresh while another one fails (never sooner than
 * the update frequency, the cadence of an ordinary check).
 */
export function passResult(o: { refitFailed: boolean; outcomes: readonly MetricOutcome[]; nowS: number; windowSeconds: number; updateFrequencyMs: number }): ReconcileResult {
  if (!o.refitFailed) return { requeueAfterMs: o.updateFrequencyMs };
  const ends = o.outcomes.filter((m) => m.status.ready).flatMap((m) => (m.status.prediction ?? []).map((p) => Math.max(...p.samples.map((s) => s.timestamp))));
  if (ends.length === 0) return { requeueWithBackoff: true };
  const freshForMs = (Math.min(...ends) - o.windowSeconds - o.nowS) * 1000;
  return { requeueWithBackoff: true, requeueAfterMs: Math.max(o.updateFrequencyMs, freshForMs) };
}
