// One observation of the demo every few seconds: what the workload uses, what the TimeSeriesPrediction
// forecasts, what the cron says, what the real HPA decided and why, and the VPA's memory target. Reading
// objects is the edge (`readTick`); turning them into a Tick and a line is pure.
import type { RestClient } from '../../test/e2e/harness/index.ts';
import type { TimeSeriesPrediction } from '../../src/api/prediction.ts';
import { maxForecastInWindow, readyPredictionSeries } from '../../src/metric-values/forecast-window.ts';
import { parseQuantity } from '../../src/quantity/index.ts';

export interface Tick {
  /** Unix seconds. */
  t: number;
  pods: number;
  /** Workload CPU the demo drives (what Prometheus and metrics.k8s.io report), cores. */
  cpuCores: number;
  /** The HPA's view of the Resource cpu metric, percent of request. */
  cpuUtilization: number | null;
  tspReady: boolean;
  /** Forecast at t and its maximum over [t, t + window] (TSP status), cores; null before Ready. */
  forecastNowCores: number | null;
  forecastMaxCores: number | null;
  cronActive: boolean;
  /** crane_autoscaling_cron (replicas) as the adapter serves it to the HPA through the aggregator. */
  cronValue: number | null;
  desiredReplicas: number | null;
  currentReplicas: number | null;
  /** The most telling HPA condition reason (ScalingActive when false, ScalingLimited when true, else AbleToScale). */
  hpaReason: string;
  vpaMemoryTarget: string | null;
}

interface HpaObject {
  spec?: { metrics?: { type: string; external?: { metric: { name: string; selector?: { matchLabels?: Record<string, string> } } } }[] };
  status?: {
    currentReplicas?: number;
    desiredReplicas?: number;
    currentMetrics?: {
      type: string;
      resource?: { name: string; current: { averageUtilization?: number } };
    }[];
    conditions?: { type: string; status: string; reason: string }[];
  };
}

interface VpaObject {
  status?: { recommendation?: { containerRecommendations?: { containerName: string; target?: Record<string, string> }[] } };
}

export function hpaReason(conditions: readonly { type: string; status: string; reason: string }[] | undefined): string {
  const c = (type: string) => conditions?.find((x) => x.type === type);
  const active = c('ScalingActive');
  if (active && active.status !== 'True') return active.reason;
  const limited = c('ScalingLimited');
  if (limited?.status === 'True') return limited.reason;
  return c('AbleToScale')?.reason ?? active?.reason ?? '-';
}

export function tickFrom(o: {
  t: number; pods: number; cpuCores: number; cronActive: boolean; windowSeconds: number;
  hpa: HpaObject | undefined; tsp: TimeSeriesPrediction | undefined; vpa: VpaObject | undefined; container: string;
  cronValue: number | null;
}): Tick {
  let forecastNowCores: number | null = null;
  let forecastMaxCores: number | null = null;
  let tspReady = false;
  if (o.tsp) {
    const series = readyPredictionSeries(o.tsp, 'crane_pod_cpu_usage');
    if (series.ok) {
      tspReady = o.tsp.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
      const max = maxForecastInWindow(series.metric, o.t * 1000, o.windowSeconds);
      if (max.ok) forecastMaxCores = max.largest;
      const samples = series.metric.prediction?.[0]?.samples ?? [];
      const at = samples.filter((s) => s.timestamp <= o.t).pop() ?? samples[0];
      if (at) forecastNowCores = Number(at.value);
    }
  }
  const metrics = o.hpa?.status?.currentMetrics ?? [];
  const cpu = metrics.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
  const rec = o.vpa?.status?.recommendation?.containerRecommendations?.find((r) => r.containerName === o.container);
  return {
    t: o.t, pods: o.pods, cpuCores: o.cpuCores,
    cpuUtilization: cpu?.resource?.current.averageUtilization ?? null,
    tspReady, forecastNowCores, forecastMaxCores,
    cronActive: o.cronActive,
    cronValue: o.cronValue,
    desiredReplicas: o.hpa?.status?.desiredReplicas ?? null,
    currentReplicas: o.hpa?.status?.currentReplicas ?? null,
    hpaReason: hpaReason(o.hpa?.status?.conditions),
    vpaMemoryTarget: rec?.target?.['memory'] ?? null,
  };
}

export async function readTick(api: RestClient, o: {
  t: number; pods: number; cpuCores: number; cronActive: boolean; windowSeconds: number;
  namespace: string; hpa: string; tsp: string; vpa: string; container: string;
}): Promise<Tick> {
  const get = async <T>(path: string): Promise<T | undefined> => {
    const r = await api.get(path);
    return r.status === 200 ? (r.json as T) : undefined;
  };
  const [hpa, tsp, vpa] = await Promise.all([
    get<HpaObject>(`/apis/autoscaling/v2/namespaces/${o.namespace}/horizontalpodautoscalers/${o.hpa}`),
    get<TimeSeriesPrediction>(`/apis/prediction.crane.io/v1alpha1/namespaces/${o.namespace}/timeseriespredictions/${o.tsp}`),
    get<VpaObject>(`/apis/autoscaling.k8s.io/v1/namespaces/${o.namespace}/verticalpodautoscalers/${o.vpa}`),
  ]);
  // The cron metric with the HPA's own selector, read as the HPA reads it (through the aggregator).
  const cronSpec = hpa?.spec?.metrics?.find((m) => m.type === 'External' && m.external?.metric.name === 'crane_autoscaling_cron');
  let cronValue: number | null = null;
  if (cronSpec?.external) {
    const sel = Object.entries(cronSpec.external.metric.selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
    const list = await get<{ items?: { value: string }[] }>(`/apis/external.metrics.k8s.io/v1beta1/namespaces/${o.namespace}/crane_autoscaling_cron?labelSelector=${encodeURIComponent(sel)}`);
    const v = list?.items?.[0]?.value;
    if (v !== undefined) cronValue = parseQuantity(v).value();
  }
  return tickFrom({ ...o, hpa, tsp, vpa, cronValue });
}

const cores = (v: number | null) => (v === null ? '   -   ' : `${v.toFixed(2).padStart(5)} c`);
const count = (v: number | null) => (v === null ? ' -' : String(v).padStart(2));

/** One readable line, e.g. `09:41:05  cpu  0.62 c (62%, 2 pods) | forecast max 30m  1.48 c | cron  - | ...`. */
export function formatTick(k: Tick, windowMinutes: number, vpaRecommenderRunning: boolean): string {
  const time = new Date(k.t * 1000).toISOString().slice(11, 19);
  const util = k.cpuUtilization === null ? '  -' : `${String(k.cpuUtilization).padStart(3)}%`;
  const forecast = k.tspReady ? cores(k.forecastMaxCores) : 'not ready';
  // Outside its window the cron metric is a neutral value (the current replicas): only the window's value says something.
  const cron = k.cronActive ? `on ${count(k.cronValue)}` : 'off  ';
  const vpa = k.vpaMemoryTarget ?? (vpaRecommenderRunning ? 'pending' : 'n/a');
  return `${time}  cpu ${cores(k.cpuCores)} (${util} of req, ${count(k.pods)} pods) | forecast max ${windowMinutes}m ${forecast.padStart(9)} | cron ${cron} | HPA desired ${count(k.desiredReplicas)} current ${count(k.currentReplicas)} ${k.hpaReason.padEnd(20)} | VPA memory ${vpa}`;
}
