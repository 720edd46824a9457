// PromQL the upstream Prometheus history provider issues, and how its samples become model amounts
// (upstream recommender/input/history/history_provider.go).
import { cpuAmountFromCores, memoryAmountFromBytes, type ResourceAmount } from '../model/resource-amount.ts';

export interface PrometheusHistoryConfig {
  cadvisorMetricsJobName: string;
  ctrPodNameLabel: string;
  ctrNameLabel: string;
  ctrNamespaceLabel: string;
  /** A Prometheus duration, e.g. "1h". */
  historyResolution: string;
  cpuMetricName: string;
  memoryMetricName: string;
  /** Series whose labels carry pod labels (upstream --metric-for-pod-labels); empty: none. */
  podLabelsMetricName: string;
  /** Labels of those series naming the pod (upstream --pod-namespace-label, --pod-name-label). */
  podNamespaceLabel: string;
  podNameLabel: string;
  /** Prefix of the series labels that are pod labels, stripped (upstream --pod-label-prefix). */
  podLabelPrefix: string;
  /** Restrict to one namespace when set (--vpa-object-namespace). */
  namespace?: string;
}

export function historyPodSelector(c: PrometheusHistoryConfig): string {
  let s = c.cadvisorMetricsJobName ? `job="${c.cadvisorMetricsJobName}", ` : '';
  s += `${c.ctrPodNameLabel}=~".+", ${c.ctrNameLabel}!="POD", ${c.ctrNameLabel}!=""`;
  if (c.namespace) s = `${s}, ${c.ctrNamespaceLabel}="${c.namespace}"`;
  return s;
}

export function historyQueries(c: PrometheusHistoryConfig): { cpu: string; memory: string; labels: string } {
  const sel = historyPodSelector(c);
  return {
    cpu: `rate(${c.cpuMetricName}{${sel}}[${c.historyResolution}])`,
    memory: `${c.memoryMetricName}{${sel}}`,
    // Evaluated over the history window like the others. Upstream runs it as an instant query that must
    // return a matrix, so its users write a range selector (`up{job="kubernetes-pods"}[8d]`): drop it.
    labels: c.podLabelsMetricName.trim().replace(/\[[^\]]*\]$/, ''),
  };
}

/**
 * Each pod's labels from the pod-labels series (upstream readLastLabels): the series labels with
 * `podLabelPrefix`, prefix stripped; where a pod has several series, the one with the latest sample wins
 * (ties: the first seen). Series without the pod's namespace or name label are skipped. Pure.
 */
export function podLabelsFromSeries(
  series: readonly { labels: Record<string, string>; timestamps: readonly number[] }[],
  c: Pick<PrometheusHistoryConfig, 'podNamespaceLabel' | 'podNameLabel' | 'podLabelPrefix'>,
): Map<string, Record<string, string>> {
  const best = new Map<string, { at: number; labels: Record<string, string> }>();
  for (const s of series) {
    const ns = s.labels[c.podNamespaceLabel];
    const pod = s.labels[c.podNameLabel];
    if (ns === undefined || pod === undefined || s.timestamps.length === 0) continue;
    const at = Math.max(...s.timestamps);
    const key = `${ns}/${pod}`;
    const seen = best.get(key);
    if (seen && seen.at >= at) continue;
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(s.labels)) {
      if (k.startsWith(c.podLabelPrefix) && k.length > c.podLabelPrefix.length) labels[k.slice(c.podLabelPrefix.length)] = v;
    }
    best.set(key, { at, labels });
  }
  return new Map([...best].map(([k, v]) => [k, v.labels]));
}

/** A CPU-rate sample (cores) as millicores, truncated. */
export function cpuSampleAmount(cores: number): ResourceAmount {
  return cpuAmountFromCores(cores);
}

/** A memory sample (bytes) as a model amount, truncated. */
export function memorySampleAmount(bytes: number): ResourceAmount {
  return memoryAmountFromBytes(bytes);
}
