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
  podLabelsMetricName: string;
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
    labels: c.podLabelsMetricName,
  };
}

/** A CPU-rate sample (cores) as millicores, truncated. */
export function cpuSampleAmount(cores: number): ResourceAmount {
  return cpuAmountFromCores(cores);
}

/** A memory sample (bytes) as a model amount, truncated. */
export function memorySampleAmount(bytes: number): ResourceAmount {
  return memoryAmountFromBytes(bytes);
}
