// The HPA side of a what-if replay: one HorizontalPodAutoscaler's sync loop over the metric values the
// adapter and metrics-server would serve, with the upstream replica arithmetic (src/hpa/replica-calculator.ts):
// per-metric proposals, the largest wins, tolerance, the scale-down stabilization window, the scale-up limit
// and min/max. Assumptions (documented in `simulate --help`): pods are identical and share the workload's CPU
// evenly, and only CPU Resource metrics, the predicted-CPU Pods metric and the cron External metric can be
// replayed (others are listed as skipped).
//
// Pod start-up (`podStartupMs`): a pod the HPA adds at t is ready, and serves, only from t + d; removals take
// effect at once and take starting pods first, newest first (the ReplicaSet deletes not-ready pods before
// ready ones). Starting pods count in the HPA's current replicas, as in Kubernetes, where the scale
// subresource counts them although they are not ready. The metric arithmetic divides the workload's total
// (observed CPU or forecast) over all current pods, ready or not: that is what upstream computes when it
// scales up with pods that are not ready (CPU: unready pods count with zero usage; Pods metrics: pods without
// a value count as zero), so starting pods hold the HPA back rather than making it add more. On scale-down
// upstream ignores unready CPU pods (and counts Pods-metric pods without a value at the target) instead;
// the replay does not model that difference, nor the 5-minute CPU initialization period. Capacity is
// `readyReplicas`: only pods past their start-up serve load.
import type { V2MetricSpec } from '@kubernetes/client-node';
import { CRON_METRIC, POD_CPU_USAGE_METRIC } from '../api/names.ts';
import {
  externalAverageValueReplicas,
  normalizeDesiredReplicas,
  podsAverageValueReplicas,
  resourceUtilizationReplicas,
  type Recommendation,
} from '../hpa/replica-calculator.ts';
import { perPodMillis } from '../metric-values/forecast-window.ts';
import { quantityMilli } from '../quantity/index.ts';

/** What the metrics pipeline reports at one HPA sync. */
export interface MetricReadings {
  nowMs: number;
  /** Observed total CPU of the workload, cores (metrics-server, summed over pods). */
  usageCores: number;
  /** Largest forecast in the prediction window, cores; undefined when the TSP is not ready. */
  forecastCores?: number | undefined;
  /** Value of the cron metric (a replica count); undefined when the HPA has no cron metric. */
  cronReplicas?: number | undefined;
}

export type ReplayedMetric =
  | { kind: 'cpu-utilization'; label: string; targetUtilization: number }
  | { kind: 'cpu-average-value'; label: string; targetMilli: number }
  | { kind: 'predicted-cpu'; label: string; targetMilli: number }
  | { kind: 'cron'; label: string; targetMilli: number };

function milliOf(text: string | undefined, what: string): number {
  const m = text === undefined ? undefined : quantityMilli(String(text));
  if (m === undefined || m <= 0) throw new RangeError(`${what}: target averageValue "${String(text)}" is not a positive quantity`);
  return m;
}

/** Which of an HPA's metrics the replay can compute, and the labels of those it cannot. */
export function replayableMetrics(metrics: readonly V2MetricSpec[]): { metrics: ReplayedMetric[]; skipped: string[] } {
  const out: ReplayedMetric[] = [];
  const skipped: string[] = [];
  for (const m of metrics) {
    if (m.type === 'Resource' && m.resource?.name === 'cpu') {
      const t = m.resource.target;
      if (t.type === 'Utilization' && t.averageUtilization != null) {
        out.push({ kind: 'cpu-utilization', label: `cpu ${t.averageUtilization}%`, targetUtilization: t.averageUtilization });
        continue;
      }
      if (t.type === 'AverageValue' && t.averageValue != null) {
        out.push({ kind: 'cpu-average-value', label: `cpu ${String(t.averageValue)}/pod`, targetMilli: milliOf(String(t.averageValue), 'Resource cpu') });
        continue;
      }
    }
    if (m.type === 'Pods' && m.pods?.metric.name === POD_CPU_USAGE_METRIC && m.pods.target.averageValue != null) {
      out.push({ kind: 'predicted-cpu', label: `${POD_CPU_USAGE_METRIC} ${String(m.pods.target.averageValue)}/pod`, targetMilli: milliOf(String(m.pods.target.averageValue), POD_CPU_USAGE_METRIC) });
      continue;
    }
    if (m.type === 'External' && m.external?.metric.name === CRON_METRIC && m.external.target.averageValue != null) {
      out.push({ kind: 'cron', label: CRON_METRIC, targetMilli: milliOf(String(m.external.target.averageValue), CRON_METRIC) });
      continue;
    }
    const name = m.resource?.name ?? m.containerResource?.name ?? m.pods?.metric.name ?? m.external?.metric.name ?? m.object?.metric.name ?? '?';
    skipped.push(`${m.type} ${name}`);
  }
  return { metrics: out, skipped };
}

export interface HpaReplayOptions {
  metrics: readonly ReplayedMetric[];
  minReplicas: number;
  maxReplicas: number;
  /** CPU request of one pod, millicores (for utilization). */
  podCpuRequestMilli: number;
  tolerance: number;
  downscaleStabilizationMs: number;
  initialReplicas: number;
  /** When the forecast is missing: serve observed usage (our adapter's default) or fail the metric (Crane). */
  predictionFallback: 'observed' | 'error';
  /** A pod added at t is ready from t + podStartupMs (default 0: at once). The initial pods are ready. */
  podStartupMs?: number;
}

export interface SyncResult {
  replicas: number;
  /** Replicas each metric asked for (or why it could not), by label. */
  proposals: Record<string, number | string>;
  limitedBy?: string;
}

export class HpaReplay {
  replicas: number;
  private history: Recommendation[] = [];
  /** When each pod still starting becomes ready (ms), oldest first; its length ≤ replicas. */
  private starting: number[] = [];

  constructor(private readonly o: HpaReplayOptions) {
    this.replicas = o.initialReplicas;
  }

  /** Pods ready at `atMs` among the current ones (decided at syncs up to now). */
  readyReplicas(atMs: number): number {
    let notReady = 0;
    for (const readyAt of this.starting) if (readyAt > atMs) notReady++;
    return this.replicas - notReady;
  }

  /** Pods the HPA's count changes: new ones start; removals take starting pods first, newest first. */
  private resize(to: number, nowMs: number): void {
    this.starting = this.starting.filter((readyAt) => readyAt > nowMs);
    const startup = this.o.podStartupMs ?? 0;
    if (to > this.replicas && startup > 0) {
      for (let k = this.replicas; k < to; k++) this.starting.push(nowMs + startup);
    } else if (to < this.replicas) {
      this.starting.length = Math.max(0, this.starting.length - (this.replicas - to));
    }
    this.replicas = to;
  }

  private proposal(m: ReplayedMetric, r: MetricReadings, n: number): number | string {
    const tolerance = this.o.tolerance;
    const observedPerPod = Math.round((r.usageCores * 1000) / n);
    switch (m.kind) {
      case 'cpu-utilization':
        return resourceUtilizationReplicas({
          currentReplicas: n,
          podUsageMilli: new Array<number>(n).fill(observedPerPod),
          podRequestMilli: new Array<number>(n).fill(this.o.podCpuRequestMilli),
          targetUtilization: m.targetUtilization,
          tolerance,
        }).replicas;
      case 'cpu-average-value':
        return podsAverageValueReplicas({ currentReplicas: n, podMilli: new Array<number>(n).fill(observedPerPod), targetMilli: m.targetMilli, tolerance }).replicas;
      case 'predicted-cpu': {
        let perPod: number;
        if (r.forecastCores !== undefined) perPod = perPodMillis(r.forecastCores, n);
        else if (this.o.predictionFallback === 'observed') perPod = Math.max(0, Math.ceil((r.usageCores * 1000) / n));
        else return 'unavailable: no forecast';
        return podsAverageValueReplicas({ currentReplicas: n, podMilli: new Array<number>(n).fill(perPod), targetMilli: m.targetMilli, tolerance }).replicas;
      }
      case 'cron':
        if (r.cronReplicas === undefined) return 'unavailable: no cron value';
        return externalAverageValueReplicas({ statusReplicas: n, sumMilli: r.cronReplicas * 1000, targetMilli: m.targetMilli, tolerance });
    }
  }

  /** One reconcile of the HPA (upstream reconcileAutoscaler without behavior policies). */
  sync(r: MetricReadings): SyncResult {
    const n = this.replicas;
    const { minReplicas, maxReplicas } = this.o;
    const proposals: Record<string, number | string> = {};
    if (n === 0 && minReplicas !== 0) return { replicas: 0, proposals, limitedBy: 'ScalingDisabled' };
    if (n > maxReplicas || n < minReplicas) {
      // Upstream: out-of-range counts are brought back into range before metrics are even read.
      this.resize(Math.min(maxReplicas, Math.max(minReplicas, n)), r.nowMs);
      return { replicas: this.replicas, proposals, limitedBy: n > maxReplicas ? 'TooManyReplicas' : 'TooFewReplicas' };
    }
    let best: number | undefined;
    let invalid = 0;
    for (const m of this.o.metrics) {
      const p = this.proposal(m, r, n);
      proposals[m.label] = p;
      if (typeof p === 'string') invalid++;
      else if (best === undefined || p > best) best = p;
    }
    // Upstream: with every metric failing, or some failing and the rest asking to scale down, do nothing.
    if (best === undefined || (invalid > 0 && best < n)) return { replicas: n, proposals, limitedBy: 'FailedGetMetrics' };
    const out = normalizeDesiredReplicas({
      nowMs: r.nowMs,
      currentReplicas: n,
      proposal: best,
      minReplicas,
      maxReplicas,
      history: this.history,
      stabilizationWindowMs: this.o.downscaleStabilizationMs,
    });
    this.history = out.history;
    this.resize(out.replicas, r.nowMs);
    return { replicas: out.replicas, proposals, ...(out.limitedBy ? { limitedBy: out.limitedBy } : {}) };
  }
}
