// Observed CPU per pod for the `crane_pod_cpu_usage` fallback: the same cAdvisor series the forecast is
// built from, read back from Prometheus over the last few minutes, so a missing or stale forecast degrades
// to "scale on what the pods use now" instead of stalling the HPA.
import type { HistoryProvider } from '../prometheus/series.ts';
import { promqlString, regexEscape } from '../prometheus/promql-text.ts';

/** PromQL regex that matches exactly these pod names (names are DNS subdomains: only `.` needs escaping). */
export function podNamesRegex(podNames: readonly string[]): string {
  return podNames.map(regexEscape).join('|');
}

export function observedCpuQuery(namespace: string, podNames: readonly string[], rateWindow = '1m'): string {
  // PromQL strings take backslash escapes, so the regex's backslashes are doubled inside the literal.
  return `sum by (pod) (rate(container_cpu_usage_seconds_total{namespace=${promqlString(namespace)},pod=~${promqlString(podNamesRegex(podNames))},container!="",container!="POD"}[${rateWindow}]))`;
}

/**
 * Millicores per pod from the newest point of each pod's series in [now-lookback, now]. Pods without
 * data are left out; a Prometheus error propagates (the provider turns it into a clear API error).
 */
export async function observedPodCpuMillis(
  history: HistoryProvider,
  namespace: string,
  podNames: readonly string[],
  nowMs: number,
  opts: { lookbackS?: number; stepS?: number } = {},
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (podNames.length === 0) return out;
  const end = Math.floor(nowMs / 1000);
  const step = opts.stepS ?? 15;
  const series = await history.queryRange(observedCpuQuery(namespace, podNames), end - (opts.lookbackS ?? 180), end, step, { namespace });
  for (const s of series) {
    const pod = s.labels['pod'];
    const last = s.values[s.values.length - 1];
    if (pod !== undefined && last !== undefined && Number.isFinite(last)) out.set(pod, Math.round(last * 1000));
  }
  return out;
}

/**
 * The observed value of a predicted metric other than per-pod CPU: the same PromQL its forecast is built
 * from (the TSP entry's query, already confined to the namespace), read back over the last few minutes.
 * The newest point of each series is summed, so a query that forgot to aggregate still gives the workload
 * total the forecast would have. Undefined when no series has data; a Prometheus error propagates.
 */
export async function observedQueryTotal(
  history: HistoryProvider,
  promql: string,
  nowMs: number,
  opts: { lookbackS?: number; stepS?: number; namespace?: string } = {},
): Promise<number | undefined> {
  const end = Math.floor(nowMs / 1000);
  const series = await history.queryRange(promql, end - (opts.lookbackS ?? 180), end, opts.stepS ?? 15, opts.namespace !== undefined ? { namespace: opts.namespace } : {});
  let total: number | undefined;
  for (const s of series) {
    const last = s.values[s.values.length - 1];
    if (last !== undefined && Number.isFinite(last)) total = (total ?? 0) + last;
  }
  return total;
}
