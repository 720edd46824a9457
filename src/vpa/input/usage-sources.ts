// Where the recommender's samples come from (edges): current usage from metrics.k8s.io PodMetrics when
// that API is served, else Prometheus instant queries of the cAdvisor series; history at start-up from
// Prometheus range queries (upstream input/history/history_provider.go, with label names configurable).
import { parseQuantity } from '../../quantity/index.ts';
import type { PrometheusClient } from '../../prometheus/client.ts';
import type { HistorySeries } from '../../prometheus/series.ts';
import { KubeApiError, groupVersionPath, resourcePath, type KubeApiClient } from '../../kube/api-client.ts';
import { historyQueries, historyPodSelector, podLabelsFromSeries, type PrometheusHistoryConfig } from './prometheus-history.ts';
import { cpuAmountFromCores, memoryAmountFromBytes } from '../model/resource-amount.ts';
import type { PodHistory, UsageSample } from './cluster-feeder.ts';

const METRICS_API_VERSION = 'metrics.k8s.io/v1beta1';

export interface UsageSource {
  readonly name: string;
  current(): Promise<UsageSample[]>;
}

/** Prometheus sample time (float seconds, millisecond precision) as a model Instant (microseconds). */
export function promTimeToInstant(seconds: number): number {
  return Math.round(seconds * 1000) * 1000;
}

export interface PrometheusUsageOptions {
  prometheus: Pick<PrometheusClient, 'queryInstant'>;
  labels: PrometheusHistoryConfig;
  /** PromQL range for the CPU rate, e.g. "1m". */
  rateWindow: string;
}

/** Current usage as `rate(cpu[window])` and the working set, both instant queries at "now". */
export class PrometheusCurrentUsage implements UsageSource {
  readonly name = 'prometheus';
  constructor(private readonly o: PrometheusUsageOptions) {}

  async current(): Promise<UsageSample[]> {
    const sel = historyPodSelector(this.o.labels);
    const [cpu, mem] = await Promise.all([
      this.o.prometheus.queryInstant(`rate(${this.o.labels.cpuMetricName}{${sel}}[${this.o.rateWindow}])`),
      this.o.prometheus.queryInstant(`${this.o.labels.memoryMetricName}{${sel}}`),
    ]);
    const l = this.o.labels;
    const out: UsageSample[] = [];
    const id = (m: Record<string, string>) => ({ namespace: m[l.ctrNamespaceLabel] ?? '', pod: m[l.ctrPodNameLabel] ?? '', container: m[l.ctrNameLabel] ?? '' });
    for (const s of cpu) out.push({ ...id(s.labels), cpuMillicores: cpuAmountFromCores(s.value), time: promTimeToInstant(s.time) });
    for (const s of mem) out.push({ ...id(s.labels), memoryBytes: memoryAmountFromBytes(s.value), time: promTimeToInstant(s.time) });
    return out;
  }
}

interface PodMetricsList {
  items: { metadata: { name: string; namespace: string }; timestamp: string; containers: { name: string; usage: { cpu?: string; memory?: string } }[] }[];
}

/** metrics.k8s.io PodMetrics (metrics-server): CPU MilliValue and memory Value, both rounding up, like upstream. */
export class MetricsApiUsage implements UsageSource {
  readonly name = 'metrics-api';
  constructor(
    private readonly client: KubeApiClient,
    private readonly namespace?: string,
  ) {}

  async available(): Promise<boolean> {
    try {
      const l = await this.client.get<{ resources?: { name: string }[] }>(groupVersionPath(METRICS_API_VERSION));
      return !!l.resources?.some((r) => r.name === 'pods');
    } catch (e) {
      if (e instanceof KubeApiError && (e.notFound || e.status === 503)) return false;
      throw e;
    }
  }

  async current(): Promise<UsageSample[]> {
    const list = await this.client.get<PodMetricsList>(resourcePath(METRICS_API_VERSION, 'pods', this.namespace));
    const out: UsageSample[] = [];
    for (const pm of list.items ?? []) {
      const time = Date.parse(pm.timestamp) * 1000;
      if (!Number.isFinite(time)) continue;
      for (const c of pm.containers ?? []) {
        const s: UsageSample = { namespace: pm.metadata.namespace, pod: pm.metadata.name, container: c.name, time };
        try {
          if (c.usage.cpu !== undefined) s.cpuMillicores = parseQuantity(c.usage.cpu).milliValue();
          if (c.usage.memory !== undefined) s.memoryBytes = parseQuantity(c.usage.memory).value();
        } catch {
          continue;
        }
        out.push(s);
      }
    }
    return out;
  }
}

/**
 * "Use metrics.k8s.io when available": checks the API every `recheckMs` and uses it when served, else
 * the Prometheus source (if configured).
 */
export class AutoUsage implements UsageSource {
  private checkedAt = -Infinity;
  private useApi = false;
  constructor(
    private readonly api: MetricsApiUsage,
    private readonly prometheus: UsageSource | undefined,
    private readonly now: () => number,
    private readonly recheckMs = 300_000,
  ) {}

  get name(): string {
    return this.useApi ? this.api.name : (this.prometheus?.name ?? 'none');
  }

  async current(): Promise<UsageSample[]> {
    if (this.now() - this.checkedAt >= this.recheckMs) {
      this.checkedAt = this.now();
      this.useApi = await this.api.available().catch(() => false);
    }
    if (this.useApi) return this.api.current();
    if (this.prometheus) return this.prometheus.current();
    throw new Error('no usage source: metrics.k8s.io is not served and no --prometheus-url is set');
  }
}

/** Groups cAdvisor series by pod into time-sorted per-container samples (model units). Pure. */
export function podHistoriesFromSeries(cpu: readonly HistorySeries[], memory: readonly HistorySeries[], l: PrometheusHistoryConfig): PodHistory[] {
  const pods = new Map<string, PodHistory>();
  const add = (s: HistorySeries, kind: 'cpu' | 'memory') => {
    const ns = s.labels[l.ctrNamespaceLabel] ?? '';
    const pod = s.labels[l.ctrPodNameLabel] ?? '';
    const container = s.labels[l.ctrNameLabel] ?? '';
    if (!pod || !container) return;
    const key = `${ns}/${pod}`;
    let h = pods.get(key);
    if (!h) pods.set(key, (h = { namespace: ns, pod, containers: new Map() }));
    let c = h.containers.get(container);
    if (!c) h.containers.set(container, (c = { cpu: [], memory: [] }));
    const target = c[kind];
    for (let i = 0; i < s.timestamps.length; i++) {
      const v = s.values[i] as number;
      target.push([promTimeToInstant(s.timestamps[i] as number), kind === 'cpu' ? cpuAmountFromCores(v) : memoryAmountFromBytes(v)]);
    }
  };
  for (const s of cpu) add(s, 'cpu');
  for (const s of memory) add(s, 'memory');
  for (const h of pods.values()) {
    for (const c of h.containers.values()) {
      c.cpu.sort((a, b) => a[0] - b[0]);
      c.memory.sort((a, b) => a[0] - b[0]);
    }
  }
  return [...pods.values()].sort((a, b) => (a.namespace + '/' + a.pod < b.namespace + '/' + b.pod ? -1 : 1));
}

export interface PrometheusPodHistoryOptions {
  history: PrometheusClient;
  labels: PrometheusHistoryConfig;
  lengthMs: number;
  resolutionMs: number;
  now: () => number;
  /** The pod-labels query failed: history still loads, attributed by live pods and pod names only. */
  onLabelsError?: (err: Error) => void;
}

/** Upstream's start-up history: CPU rate and working set over [now - length, now] at the resolution step. */
export async function prometheusPodHistory(o: PrometheusPodHistoryOptions): Promise<PodHistory[]> {
  const q = historyQueries(o.labels);
  const end = Math.floor(o.now() / 1000);
  const start = end - Math.floor(o.lengthMs / 1000);
  const step = Math.max(1, Math.floor(o.resolutionMs / 1000));
  const labelsQuery = q.labels
    ? o.history.queryRange(q.labels, start, end, step).catch((e: Error) => {
        o.onLabelsError?.(e);
        return [];
      })
    : Promise.resolve([]);
  const [cpu, memory, labelSeries] = await Promise.all([o.history.queryRange(q.cpu, start, end, step), o.history.queryRange(q.memory, start, end, step), labelsQuery]);
  const histories = podHistoriesFromSeries(cpu, memory, o.labels);
  if (labelSeries.length > 0) {
    const labels = podLabelsFromSeries(labelSeries, o.labels);
    for (const h of histories) {
      const l = labels.get(`${h.namespace}/${h.pod}`);
      if (l) h.labels = l;
    }
  }
  return histories;
}
