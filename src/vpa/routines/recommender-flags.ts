// `serve` flags of the VPA recommender loop, with upstream's names and defaults where upstream has the
// flag (recommender/config/config.go). Deviations, documented in docs/components.md (VPA recommender loop): the cAdvisor label defaults are
// those of today's kubelet (`pod`, `container`, `namespace`, job `kubelet`) rather than upstream's legacy
// `pod_name`/`name`/`kubernetes-cadvisor`; history and checkpoints are both used at start-up; the
// recommender's name is `ehpa-adapter`, not `default`, so installing beside the upstream recommender takes
// no VPA from it (`--recommender-name=default` replaces it).
import type { FlagSpec, FlagsOf } from '../../config/flags.ts';
import { prometheusOptionsFromFlags, type PROMETHEUS_FLAGS } from '../../prometheus/flags.ts';
import type { PrometheusOptions } from '../../prometheus/client.ts';
import { AggregationsConfig } from '../model/aggregations-config.ts';
import { DEFAULT_RECOMMENDATION_CONFIG, DEFAULT_RECOMMENDATION_FORMAT, PodResourceRecommender } from '../logic/index.ts';
import { OWN_RECOMMENDER_NAME, type VpaFilterOptions } from '../input/vpa-filter.ts';
import type { PrometheusHistoryConfig } from '../input/prometheus-history.ts';
import type { RecommenderSettings } from './recommend-vpa.ts';
import { VPA_MODEL_FLAGS, modelSettingsFromFlags } from '../model-flags.ts';


export const VPA_RECOMMENDER_FLAGS = [
  { name: 'recommender-name', type: 'string', default: OWN_RECOMMENDER_NAME, help: 'VPAs whose spec.recommenders names this are handled; "default" replaces the upstream recommender (it also takes VPAs naming none)' },
  { name: 'recommender-interval', type: 'duration', default: '1m', min: 1, help: 'how often the VPA recommender loop runs' },
  { name: 'checkpoints-timeout', type: 'duration', default: '1m', min: 1, help: 'time budget for writing VPA checkpoints in one loop (oldest first)' },
  { name: 'checkpoints-gc-interval', type: 'duration', default: '10m', min: 1, help: 'how often checkpoints of deleted VPAs are removed' },
  { name: 'recommender-update-workers', type: 'int', default: 10, min: 1, help: 'concurrent VPA status writes' },
  { name: 'vpa-object-namespace', type: 'string', default: '', help: 'handle VPAs of this namespace only (empty: all)' },
  { name: 'ignored-vpa-object-namespaces', type: 'string', default: '', help: 'comma-separated namespaces whose VPAs are ignored' },
  { name: 'recommender-split-with-ehpa', type: 'bool', default: true, help: 'recommend memory only for a VPA whose target an EHPA scales on CPU' },
  { name: 'recommender-usage-source', type: 'enum', values: ['auto', 'metrics-api', 'prometheus'], default: 'auto', help: 'current usage: metrics.k8s.io when served (auto), or Prometheus instant queries' },
  { name: 'current-usage-cpu-rate-window', type: 'duration', default: '1m', min: 1000, help: 'rate() window of the Prometheus current-CPU query' },
  { name: 'recommender-prometheus-history', type: 'bool', default: true, help: 'load usage history from --prometheus-url at start-up for VPAs without checkpoints' },
  { name: 'history-length', type: 'duration', default: '8d', min: 1000, help: 'how much history to load at start-up' },
  { name: 'history-resolution', type: 'duration', default: '1h', min: 1000, help: 'step of the start-up history queries (and their rate window)' },
  { name: 'prometheus-cadvisor-job-name', type: 'string', default: 'kubelet', help: 'job label of the cAdvisor series (empty: any job)' },
  { name: 'container-pod-name-label', type: 'string', default: 'pod', help: 'pod-name label of the cAdvisor series' },
  { name: 'container-name-label', type: 'string', default: 'container', help: 'container-name label of the cAdvisor series' },
  { name: 'container-namespace-label', type: 'string', default: 'namespace', help: 'namespace label of the cAdvisor series' },
  { name: 'history-cpu-metric', type: 'string', default: 'container_cpu_usage_seconds_total', help: 'cAdvisor CPU counter' },
  { name: 'history-memory-metric', type: 'string', default: 'container_memory_working_set_bytes', help: 'cAdvisor working-set gauge' },
  { name: 'metric-for-pod-labels', type: 'string', default: 'up{job="kubernetes-pods"}', help: 'series whose labels carry the labels of history pods (empty: none; a trailing [range] is ignored)' },
  { name: 'pod-namespace-label', type: 'string', default: 'kubernetes_namespace', help: 'namespace label of the pod-labels series' },
  { name: 'pod-name-label', type: 'string', default: 'kubernetes_pod_name', help: 'pod-name label of the pod-labels series' },
  { name: 'pod-label-prefix', type: 'string', default: 'pod_label_', help: 'prefix of the pod-labels series labels that are pod labels (stripped)' },
  ...VPA_MODEL_FLAGS,
] as const satisfies readonly FlagSpec[];

type RecommenderFlags = FlagsOf<typeof VPA_RECOMMENDER_FLAGS>;

/** Prometheus durations are whole seconds or more here ("90s"), which both PromQL and our flags accept. */
export function promDuration(ms: number): string {
  return `${Math.max(1, Math.round(ms / 1000))}s`;
}

export interface RecommenderConfig {
  settings: RecommenderSettings;
  filter: VpaFilterOptions;
  labels: PrometheusHistoryConfig;
}

/** Validates and converts the flags; throws UsageError on a bad value. */
export function recommenderConfigFromFlags(f: RecommenderFlags): RecommenderConfig {
  const model = modelSettingsFromFlags(f);
  const ns = (f['vpa-object-namespace']) || undefined;
  return {
    settings: {
      aggregations: new AggregationsConfig(model.aggregations),
      gates: {},
      recommender: new PodResourceRecommender({ ...DEFAULT_RECOMMENDATION_CONFIG, ...model.recommendation }),
      format: DEFAULT_RECOMMENDATION_FORMAT,
      cpuIntegerPostProcessorEnabled: model.cpuIntegerPostProcessorEnabled,
      globalMaxAllowed: model.globalMaxAllowed.size > 0 ? model.globalMaxAllowed : undefined,
    },
    filter: {
      recommenderName: f['recommender-name'],
      vpaObjectNamespace: ns,
      ignoredNamespaces: (f['ignored-vpa-object-namespaces']).split(',').map((s) => s.trim()).filter(Boolean),
    },
    labels: {
      cadvisorMetricsJobName: f['prometheus-cadvisor-job-name'],
      ctrPodNameLabel: f['container-pod-name-label'],
      ctrNameLabel: f['container-name-label'],
      ctrNamespaceLabel: f['container-namespace-label'],
      historyResolution: promDuration(f['history-resolution']),
      cpuMetricName: f['history-cpu-metric'],
      memoryMetricName: f['history-memory-metric'],
      podLabelsMetricName: f['metric-for-pod-labels'],
      podNamespaceLabel: f['pod-namespace-label'],
      podNameLabel: f['pod-name-label'],
      podLabelPrefix: f['pod-label-prefix'],
      namespace: ns,
    },
  };
}

/** Everything the VPA recommender loop is set up with, typed (the loop never sees the flag bag). */
export interface VpaRecommenderOptions {
  config: RecommenderConfig;
  /** The Prometheus behind current usage and start-up history, when --prometheus-url is set. */
  prometheus?: PrometheusOptions;
  usageSource: 'auto' | 'metrics-api' | 'prometheus';
  currentUsageRateWindowMs: number;
  /** Start-up history from Prometheus for VPAs without checkpoints; undefined: none. */
  history?: { lengthMs: number; resolutionMs: number };
  splitWithEhpa: boolean;
  intervalMs: number;
  checkpointsTimeoutMs: number;
  checkpointsGcIntervalMs: number;
  updateWorkers: number;
}

/** Validates and converts the recommender's flags (and the shared Prometheus ones); throws UsageError. */
export function vpaRecommenderOptionsFromFlags(f: RecommenderFlags & FlagsOf<typeof PROMETHEUS_FLAGS>): VpaRecommenderOptions {
  // The VPA's queries are the admin's, cluster-wide by design: a larger response cap than a tenant's query
  // (a history of every container in a big cluster is tens of MB).
  const prometheus = prometheusOptionsFromFlags(f, { maxResponseBytes: 512 * 1024 * 1024 });
  return {
    config: recommenderConfigFromFlags(f),
    ...(prometheus ? { prometheus } : {}),
    usageSource: f['recommender-usage-source'] as VpaRecommenderOptions['usageSource'],
    currentUsageRateWindowMs: f['current-usage-cpu-rate-window'],
    ...(f['recommender-prometheus-history'] ? { history: { lengthMs: f['history-length'], resolutionMs: f['history-resolution'] } } : {}),
    splitWithEhpa: f['recommender-split-with-ehpa'],
    intervalMs: f['recommender-interval'],
    checkpointsTimeoutMs: f['checkpoints-timeout'],
    checkpointsGcIntervalMs: f['checkpoints-gc-interval'],
    updateWorkers: f['recommender-update-workers'],
  };
}
