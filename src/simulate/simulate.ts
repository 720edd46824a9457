// `simulate`'s core: replay a recorded workload CPU history through what the server would do for an EHPA
// (desired HPA from src/ehpa, forecasts from src/prediction refreshed like the TSP controller, the adapter's
// metric values, cron windows, the HPA's replica arithmetic) next to a plain HPA on the EHPA's original
// metrics, and score both. Pure: the history and every setting come in; time is the data's.
import type { V2MetricSpec } from '@kubernetes/client-node';
import { buildDesiredHpa } from '../ehpa/desired-hpa.ts';
import { predictionEnabled, type EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { cronWindowActive } from '../cron/cron-window.ts';
import { cronReplicas } from '../metric-values/cron-replicas.ts';
import { STEPPED_ASIDE_VALUE } from '../metric-values/forecast-value.ts';
import { HpaReplay, replayableMetrics, type ReplayedMetric } from './hpa-replay.ts';
import { forecastPlan, lastIndexAtOrBefore, LOOKBACK_SECONDS, TspReplay, type RefreshOutcome, type Series } from './tsp-replay.ts';
import { summarize, type SimulationSummary } from './summary.ts';
import { SimulationInputError } from './ehpa-input.ts';

export interface SimulationOptions {
  ehpa: EffectiveHorizontalPodAutoscaler;
  /** Workload total CPU, cores, by unix second. */
  history: Series;
  /** Replay window, unix seconds (inclusive); history before `fromS` feeds the forecaster. */
  fromS: number;
  toS: number;
  /** HPA sync interval of the replay. */
  stepSeconds: number;
  podCpuRequestMilli: number;
  tolerance: number;
  /** Without `behavior.scaleDown.stabilizationWindowSeconds` on the EHPA. */
  downscaleStabilizationSeconds: number;
  /** Zone that `timezone: Local` in crons means. */
  localZone: string;
  seed: number;
  predictionFallback: 'observed' | 'error';
  /** Undefined: the count that meets the per-pod target at the first step. */
  initialReplicas?: number;
  forecastRetrySeconds: number;
  /** Force the DSP estimator mode (default: Crane's when the EHPA lists estimators, else auto). */
  dspEstimators?: 'crane' | 'auto';
  /**
   * Pod start-up time, seconds (default 0): a pod added at t serves only from t + d, and is capacity for a
   * step's sample only when it was ready throughout the interval the sample measures (since the previous
   * step). Starting pods count in the HPA's current replicas and in replica-hours (HpaReplay explains the model).
   */
  podStartupSeconds?: number;
  /** Called after each step with the steps done and the total (the grid of the window); the CLI prints progress. */
  onProgress?: (done: number, total: number) => void;
  /**
   * The forecasts an earlier replay of the same EHPA, history, window and step served (its steps), used
   * instead of refitting: the forecast depends on the history only, never on the replicas, so replays that
   * differ in pod start-up, tolerance or initial replicas can share one set of fits. A step missing from the
   * record is an error.
   */
  recordedForecasts?: readonly RecordedForecast[];
  /** serve's --prediction-pays (default enforce: auto mode's forecast steps aside where it does not pay). */
  predictionPays?: 'enforce' | 'observe';
}

/** What a replay step records of the forecast (a SimulationStep is one). */
export type RecordedForecast = Pick<SimulationStep, 't' | 'forecastCores' | 'forecastWindowMaxCores' | 'forecastRefresh'>;

/** The forecast side of one step: fitted by a TspReplay, or read back from a record. */
interface ForecastFeed {
  step(t: number): { refresh?: RefreshOutcome | SimulationStep['forecastRefresh']; windowMaxCores?: number; pointCores?: number; steppedAside?: boolean };
  refreshes(): number;
  failedRefreshes(): number;
}

function liveFeed(tsp: TspReplay): ForecastFeed {
  return {
    step(t) {
      const refresh = tsp.advance(t);
      const windowMax = tsp.windowMax(t);
      const point = tsp.pointAt(t);
      return { ...(refresh ? { refresh } : {}), ...(windowMax.ok ? { windowMaxCores: windowMax.largest } : {}), ...(point !== undefined ? { pointCores: point } : {}), ...(tsp.steppedAside ? { steppedAside: true } : {}) };
    },
    refreshes: () => tsp.refreshes,
    failedRefreshes: () => tsp.failedRefreshes,
  };
}

function recordedFeed(record: readonly RecordedForecast[]): ForecastFeed {
  const byTime = new Map(record.map((r) => [r.t, r]));
  let refreshes = 0;
  let failed = 0;
  // A failed refresh keeps the status it had (as the controller does); a ready one replaces it.
  let aside = false;
  return {
    step(t) {
      const r = byTime.get(t);
      if (!r) throw new RangeError(`the recorded forecasts have no step at ${t}: record them with the same history, window and step`);
      if (r.forecastRefresh) {
        refreshes++;
        if (!r.forecastRefresh.ready) failed++;
        aside = r.forecastRefresh.ready && r.forecastRefresh.stepAside !== undefined;
      }
      return {
        ...(aside ? { steppedAside: true } : {}),
        ...(r.forecastRefresh ? { refresh: r.forecastRefresh } : {}),
        ...(r.forecastWindowMaxCores !== null ? { windowMaxCores: r.forecastWindowMaxCores } : {}),
        ...(r.forecastCores !== null ? { pointCores: r.forecastCores } : {}),
      };
    },
    refreshes: () => refreshes,
    failedRefreshes: () => failed,
  };
}

export interface StepReplicas {
  /** Replicas after this step's sync (ready or starting): what the HPA decided. */
  replicas: number;
  /** Replicas ready throughout the interval this step's sample measures: the capacity the score judges. */
  readyReplicas: number;
  proposals: Record<string, number | string>;
  limitedBy?: string;
  /** usage > readyReplicas × the per-pod target. */
  underProvisioned: boolean;
}

export interface SimulationStep {
  t: number;
  usageCores: number;
  /** The forecast for this instant (from the last refresh), cores. */
  forecastCores: number | null;
  /** Largest forecast in [t, t + window]: what the adapter splits over the pods. */
  forecastWindowMaxCores: number | null;
  cronReplicas: number | null;
  /** A cron window of the EHPA is active at this step (absent: none is). */
  cronActive?: boolean;
  ehpa: StepReplicas;
  plain: StepReplicas;
  /** The forecast in force stepped aside (it did not pay): the predicted metric served the observed usage. */
  steppedAside?: boolean;
  forecastRefresh?: { ready: boolean; error?: string; period?: string | null; stepAside?: string };
}

export interface SimulationResult {
  steps: SimulationStep[];
  summary: SimulationSummary;
}

/** Per-pod CPU the scaling aims at, cores: the EHPA's first CPU target, else the HPA default of 80%. */
export function perPodTargetCores(metrics: readonly V2MetricSpec[], podCpuRequestMilli: number): number {
  const cpu = metrics.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
  const t = cpu?.resource?.target;
  const replayed = cpu ? replayableMetrics([cpu]).metrics[0] : undefined;
  if (t?.type === 'AverageValue' && replayed?.kind === 'cpu-average-value') return replayed.targetMilli / 1000;
  const utilization = t?.type === 'Utilization' && t.averageUtilization != null ? t.averageUtilization : 80;
  return (podCpuRequestMilli * utilization) / 100 / 1000;
}

const DEFAULT_CPU_METRIC: V2MetricSpec = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } };

function cronValue(ehpa: EffectiveHorizontalPodAutoscaler, nowMs: number, localZone: string, current: number): { replicas: number; active: boolean } {
  const active = (ehpa.spec.crons ?? []).filter((c) => cronWindowActive(c, nowMs, localZone)).map((c) => c.targetReplicas ?? 0);
  const r = cronReplicas({ activeTargets: active, hasOtherMetrics: (ehpa.spec.metrics?.length ?? 0) > 0, minReplicas: ehpa.spec.minReplicas ?? 1, currentReplicas: current });
  // currentReplicas is always given, so the result is always ok.
  return { replicas: r.ok ? r.replicas : current, active: active.length > 0 };
}

export function simulate(o: SimulationOptions): SimulationResult {
  const { ehpa } = o;
  if (!(o.stepSeconds > 0)) throw new RangeError('step must be positive');
  if (o.toS < o.fromS) throw new RangeError('the replay window ends before it starts');
  const podStartupSeconds = o.podStartupSeconds ?? 0;
  if (!(podStartupSeconds >= 0) || !Number.isFinite(podStartupSeconds)) throw new RangeError('pod start-up must be a finite number of seconds >= 0');
  const desired = buildDesiredHpa({ ehpa, podCpuRequests: { pods: 1, requestMilli: o.podCpuRequestMilli, missing: [] } });
  const ehpaMetrics = replayableMetrics(desired.hpa.spec.metrics ?? []);
  const originals = (ehpa.spec.metrics ?? []).length ? (ehpa.spec.metrics as V2MetricSpec[]) : [DEFAULT_CPU_METRIC];
  const plainMetrics = replayableMetrics(originals);
  if (!plainMetrics.metrics.some((m) => m.kind === 'cpu-utilization' || m.kind === 'cpu-average-value')) {
    throw new SimulationInputError(`simulate replays CPU only, and spec.metrics has no Resource cpu metric (it has ${plainMetrics.skipped.join(', ')})`);
  }
  const minReplicas = ehpa.spec.minReplicas ?? 1;
  const maxReplicas = ehpa.spec.maxReplicas;
  const targetCores = perPodTargetCores(originals, o.podCpuRequestMilli);
  const windowSeconds = ehpa.spec.prediction?.predictionWindowSeconds ?? 3600;
  const plan = predictionEnabled(ehpa.spec) ? forecastPlan(ehpa.spec.prediction?.predictionAlgorithm ?? {}, o.dspEstimators) : undefined;
  const usesPrediction = ehpaMetrics.metrics.some((m) => m.kind === 'predicted-cpu');
  const usesCron = ehpaMetrics.metrics.some((m) => m.kind === 'cron');
  const feed = !usesPrediction
    ? undefined
    : o.recordedForecasts
      ? recordedFeed(o.recordedForecasts)
      : liveFeed(new TspReplay({ history: o.history, plan, windowSeconds, seed: o.seed, retrySeconds: o.forecastRetrySeconds, ...(o.predictionPays ? { predictionPays: o.predictionPays } : {}) }));

  const usageAt = (t: number): number | undefined => {
    const i = lastIndexAtOrBefore(o.history.timestamps, t);
    if (i < 0 || t - (o.history.timestamps[i] as number) > Math.max(LOOKBACK_SECONDS, o.stepSeconds)) return undefined;
    return o.history.values[i] as number;
  };
  const firstUsage = usageAt(o.fromS) ?? o.history.values[Math.max(0, lastIndexAtOrBefore(o.history.timestamps, o.toS))] ?? 0;
  const initial = o.initialReplicas ?? Math.min(maxReplicas, Math.max(minReplicas, Math.ceil(firstUsage / targetCores)));
  const stabilizationS = ehpa.spec.behavior?.scaleDown?.stabilizationWindowSeconds ?? o.downscaleStabilizationSeconds;
  const common = {
    minReplicas,
    maxReplicas,
    podCpuRequestMilli: o.podCpuRequestMilli,
    tolerance: o.tolerance,
    downscaleStabilizationMs: stabilizationS * 1000,
    initialReplicas: initial,
    predictionFallback: o.predictionFallback,
    podStartupMs: podStartupSeconds * 1000,
  };
  const ehpaHpa = new HpaReplay({ ...common, metrics: ehpaMetrics.metrics });
  const plainHpa = new HpaReplay({ ...common, metrics: plainMetrics.metrics as ReplayedMetric[] });

  const steps: SimulationStep[] = [];
  let stepsWithoutData = 0;
  const total = Math.floor((o.toS - o.fromS) / o.stepSeconds) + 1;
  let done = 0;
  for (let t = o.fromS; t <= o.toS; t += o.stepSeconds) {
    if (o.onProgress && done > 0) o.onProgress(done, total);
    done++;
    const usage = usageAt(t);
    if (usage === undefined) {
      stepsWithoutData++;
      continue;
    }
    const nowMs = t * 1000;
    // Capacity in effect while this sample was measured: what earlier syncs decided, counting only the pods
    // ready since the previous step (with no start-up, every pod the previous sync left).
    const ehpaBefore = ehpaHpa.replicas;
    const ehpaReady = ehpaHpa.readyReplicas(nowMs - o.stepSeconds * 1000);
    const plainReady = plainHpa.readyReplicas(nowMs - o.stepSeconds * 1000);
    const fed = feed?.step(t);
    const refresh = fed?.refresh;
    // Stepped aside, the predicted metric serves the adapter's neutral value: the HPA scales as a plain one.
    const forecastCores = fed?.windowMaxCores ?? (fed?.steppedAside ? STEPPED_ASIDE_VALUE : undefined);
    const cron = usesCron ? cronValue(ehpa, nowMs, o.localZone, ehpaBefore) : undefined;
    const e = ehpaHpa.sync({ nowMs, usageCores: usage, forecastCores, cronReplicas: cron?.replicas });
    const p = plainHpa.sync({ nowMs, usageCores: usage });
    const step: SimulationStep = {
      t,
      usageCores: usage,
      forecastCores: fed?.pointCores ?? null,
      forecastWindowMaxCores: fed?.windowMaxCores ?? null,
      ...(fed?.steppedAside ? { steppedAside: true } : {}),
      cronReplicas: cron?.replicas ?? null,
      ...(cron?.active ? { cronActive: true } : {}),
      ehpa: { replicas: e.replicas, readyReplicas: ehpaReady, proposals: e.proposals, ...(e.limitedBy ? { limitedBy: e.limitedBy } : {}), underProvisioned: usage > ehpaReady * targetCores + 1e-9 },
      plain: { replicas: p.replicas, readyReplicas: plainReady, proposals: p.proposals, ...(p.limitedBy ? { limitedBy: p.limitedBy } : {}), underProvisioned: usage > plainReady * targetCores + 1e-9 },
    };
    if (refresh) {
      step.forecastRefresh = {
        ready: refresh.ready,
        ...(refresh.error ? { error: refresh.error } : {}),
        ...(refresh.period !== undefined ? { period: refresh.period } : {}),
        ...(refresh.stepAside !== undefined ? { stepAside: refresh.stepAside } : {}),
      };
    }
    steps.push(step);
  }
  o.onProgress?.(total, total);
  const summary = summarize(steps, {
    fromS: o.fromS,
    toS: o.toS,
    stepSeconds: o.stepSeconds,
    podStartupSeconds,
    initialReplicas: initial,
    perPodTargetCores: targetCores,
    podCpuRequestCores: o.podCpuRequestMilli / 1000,
    stepsWithoutData,
    ehpaMetrics: ehpaMetrics.metrics.map((m) => m.label),
    plainMetrics: plainMetrics.metrics.map((m) => m.label),
    skippedMetrics: [...new Set([...ehpaMetrics.skipped, ...plainMetrics.skipped])],
    ...(desired.problem ? { conversionProblem: `${desired.problem.reason}: ${desired.problem.message}` } : {}),
    ...(feed
      ? {
          forecast: {
            windowSeconds,
            algorithm: plan ? `${plan.config.algorithm}${plan.config.algorithm === 'dsp' ? ` (${plan.config.estimators} estimators)` : ''}` : String(ehpa.spec.prediction?.predictionAlgorithm?.algorithmType),
            refreshes: feed.refreshes(),
            failedRefreshes: feed.failedRefreshes(),
            ...(plan?.settingsError ? { settingsError: plan.settingsError } : {}),
          },
        }
      : {}),
  });
  return { steps, summary };
}

/**
 * Where a replay starts when the user does not say: after enough history for the forecaster (its history
 * length), but never past the middle of the data, so there is always something to replay. Without
 * prediction, at the first sample.
 */
export function defaultReplayStart(ehpa: EffectiveHorizontalPodAutoscaler, history: Series, stepSeconds: number): number {
  const first = history.timestamps[0] as number;
  const last = history.timestamps[history.timestamps.length - 1] as number;
  const plan = predictionEnabled(ehpa.spec) ? forecastPlan(ehpa.spec.prediction?.predictionAlgorithm ?? {}) : undefined;
  if (!plan) return first;
  const warmup = Math.min(plan.historySeconds, Math.floor((last - first) / 2));
  return first + Math.ceil(warmup / stepSeconds) * stepSeconds;
}
