// The forecast behind `crane_pod_cpu_usage` (docs/crane-behaviour.md §C.3): the largest predicted
// workload CPU in [now, now + window] from the EHPA's one TimeSeriesPrediction, or why there is none. One
// pure function shared by the adapter (which serves it, or falls back) and the EHPA controller (which
// reports the fallback as a condition), so the two can never disagree about "is the forecast usable".
import type { EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import type { TimeSeriesPrediction } from '../api/prediction.ts';
import { maxForecastInWindow, readyPredictionSeries, type ForecastProblem } from './forecast-window.ts';
import { POD_CPU_USAGE_IDENTIFIER } from '../api/names.ts';

/** Resource identifiers a TSP may use for the workload's CPU: Crane v0.2–v0.7's, then HEAD's. */
const CPU_IDENTIFIERS = [POD_CPU_USAGE_IDENTIFIER, 'resource.cpu'];
const DEFAULT_WINDOW_SECONDS = 3600;

export type FallbackReason = 'PredictionMissing' | 'PredictionNotReady' | 'PredictionOutdated';
export type WorkloadCpuForecast = { ok: true; largest: number } | { ok: false; reason: FallbackReason; message: string };

function problemReason(p: ForecastProblem): FallbackReason {
  return p.reason === 'Outdated' ? 'PredictionOutdated' : p.reason === 'NotReady' ? 'PredictionNotReady' : 'PredictionMissing';
}

export function forecastFor(tsps: readonly TimeSeriesPrediction[], ehpa: EffectiveHorizontalPodAutoscaler, nowMs: number): WorkloadCpuForecast {
  if (tsps.length !== 1) {
    const message = tsps.length === 0
      ? `no TimeSeriesPrediction for EffectiveHorizontalPodAutoscaler ${ehpa.metadata.namespace}/${ehpa.metadata.name}`
      : `only one TimeSeriesPrediction should match EffectiveHorizontalPodAutoscaler ${ehpa.metadata.namespace}/${ehpa.metadata.name}, found ${tsps.length}`;
    return { ok: false, reason: 'PredictionMissing', message };
  }
  const tsp = tsps[0] as TimeSeriesPrediction;
  let problem: ForecastProblem | undefined;
  for (const rid of CPU_IDENTIFIERS) {
    const series = readyPredictionSeries(tsp, rid);
    if (!series.ok) {
      problem ??= series.problem;
      continue;
    }
    const window = tsp.spec?.predictionWindowSeconds ?? ehpa.spec.prediction?.predictionWindowSeconds ?? DEFAULT_WINDOW_SECONDS;
    const r = maxForecastInWindow(series.metric, nowMs, window);
    if (r.ok) return r;
    problem = r.problem;
    break;
  }
  const p = problem as ForecastProblem;
  return { ok: false, reason: problemReason(p), message: `TimeSeriesPrediction ${tsp.metadata.namespace}/${tsp.metadata.name}: ${p.message}` };
}
