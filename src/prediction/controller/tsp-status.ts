// TimeSeriesPrediction status, written as Crane writes it (docs/crane-behaviour.md §D.2, §D.10):
// samples as Go "%.5f" strings with unix-second timestamps, a `Ready` condition with reasons, and the
// freshness rule that decides when the forecast must be refreshed.
import { upsertCondition, type Condition } from '../../api/meta.ts';
import type { HistorySeries } from '../../prometheus/series.ts';
import type { PredictionMetricStatus, TimeSeriesPrediction, TspStatus } from '../../api/prediction.ts';
import { formatGoFixed5 } from '../go-format.ts';
import type { MetricCalibration } from './calibration-status.ts';

export const PREDICT_SUCCEED = 'PredictSucceed';
export const PREDICT_PARTIAL = 'PredictPartial';
export const PREDICT_FAILED = 'PredictFailed';
/** A bound of docs/security.md §2 refused the spec (or the status it would make). */
export const INVALID_SPEC = 'InvalidSpec';
/** The `Defaulted` condition: a percentile block Crane cannot parse runs Crane's defaults, as in Crane. */
export const DEFAULTED = 'Defaulted';
export const CRANE_DEFAULTS_APPLIED = 'CraneDefaultsApplied';

/** Defaulted=True naming the blocks Crane's defaults replaced (crane-config.ts craneDefaultsMessage). */
export function defaultedCondition(message: string): Omit<Condition, 'lastTransitionTime'> {
  return { type: DEFAULTED, status: 'True', reason: 'CraneDefaultsApplied', message: message.slice(0, 1024) };
}

const truncateToMinute = (s: number) => Math.floor(s / 60) * 60;

/** Crane's IsWindowInSamples: the last sample reaches the window end (truncated to the minute). */
export function windowInSamples(timestamps: readonly number[], windowEndS: number): boolean {
  if (timestamps.length === 0) return false;
  return Math.max(...timestamps) >= truncateToMinute(windowEndS);
}

/** True when every spec metric has a ready status whose series all still cover [now, now + window]. */
export function statusUpToDate(tsp: TimeSeriesPrediction, nowS: number): boolean {
  const metrics = tsp.status?.predictionMetrics;
  if (!metrics || metrics.length === 0) return false;
  const end = nowS + tsp.spec.predictionWindowSeconds;
  return tsp.spec.predictionMetrics.every((m) => {
    const st = metrics.find((s) => s.resourceIdentifier === m.resourceIdentifier);
    if (!st?.prediction?.length) return false;
    return st.prediction.every((p) => windowInSamples(p.samples.map((x) => x.timestamp), end));
  });
}

/** The series without its samples after `untilS` (unix s, inclusive); the same object when nothing is cut, so
 *  its other fields (calibration, note) and the formatted-values memo below carry over. */
export function trimForecast<S extends HistorySeries>(s: S, untilS: number): S {
  let n = s.timestamps.length;
  while (n > 0 && (s.timestamps[n - 1] as number) > untilS) n--;
  if (n === s.timestamps.length) return s;
  return { ...s, timestamps: s.timestamps.slice(0, n), values: s.values.slice(0, n) };
}

/** The Go "%.5f" texts of the samples the last status of a series showed, [from, from + texts.length), reused
 *  by the next pass over the same or an overlapping stretch (a day-wide window at 60 s is 2,880 samples per
 *  series, formatted on the event loop every --prediction-update-frequency before the memo). Only the shown
 *  stretch is held, not the whole cached forecast: at thousands of TSPs the texts of every cached sample were
 *  27 KB a TSP of serve's heap. Keyed by the series object, which a fit never changes. */
const formattedValues = new WeakMap<HistorySeries, { from: number; texts: string[] }>();

/** Texts of s.values[from..to) (indexes), reusing what the previous call for this series formatted. */
function valueTexts(s: HistorySeries, from: number, to: number): { from: number; texts: string[] } {
  const memo = formattedValues.get(s);
  if (memo && memo.from <= from && memo.from + memo.texts.length >= to) return memo;
  const texts = new Array<string>(Math.max(0, to - from));
  for (let i = from; i < to; i++) {
    const k = i - (memo?.from ?? 0);
    texts[i - from] = memo && k >= 0 && k < memo.texts.length ? (memo.texts[k] as string) : formatGoFixed5(s.values[i] as number);
  }
  const next = { from, texts };
  formattedValues.set(s, next);
  return next;
}

/**
 * Status of one metric from its forecast: samples within [startS, endS] (inclusive, like Crane's query),
 * ready when there is at least one series and each covers the TSP window.
 */
export function metricStatus(resourceIdentifier: string, forecast: readonly HistorySeries[], startS: number, endS: number, windowEndS: number): PredictionMetricStatus {
  const prediction = forecast
    .map((s) => {
      const samples: { value: string; timestamp: number }[] = [];
      // Timestamps ascend: the shown stretch is one run of indexes [from, to).
      let from = 0;
      while (from < s.timestamps.length && (s.timestamps[from] as number) < startS) from++;
      let to = from;
      while (to < s.timestamps.length && (s.timestamps[to] as number) <= endS) to++;
      const memo = valueTexts(s, from, to);
      for (let i = from; i < to; i++) samples.push({ value: memo.texts[i - memo.from] as string, timestamp: s.timestamps[i] as number });
      return {
        labels: Object.keys(s.labels)
          .sort()
          .map((name) => ({ name, value: s.labels[name] as string })),
        samples,
      };
    })
    .filter((p) => p.samples.length > 0);
  const ready = prediction.length > 0 && prediction.every((p) => windowInSamples(p.samples.map((x) => x.timestamp), windowEndS));
  return { resourceIdentifier, ready, prediction };
}

export interface MetricOutcome {
  status: PredictionMetricStatus;
  /** Why the metric is not ready, for the condition message. */
  error?: string;
  /** What `auto` mode's calibration chose for the metric (the Calibrated condition). */
  calibration?: MetricCalibration;
}

/**
 * The status; `extra` are the conditions after Ready: `Defaulted` when Crane's defaults replaced a block, and
 * auto mode's Calibrated and PredictionPays (calibration-status.ts), none in Crane's own modes.
 */
export function buildTspStatus(tsp: TimeSeriesPrediction, outcomes: readonly MetricOutcome[], nowMs: number, extra: readonly Omit<Condition, 'lastTransitionTime'>[] = []): TspStatus {
  const readyCount = outcomes.filter((o) => o.status.ready).length;
  const all = readyCount === tsp.spec.predictionMetrics.length && readyCount === outcomes.length;
  const errors = outcomes.filter((o) => !o.status.ready).map((o) => `${o.status.resourceIdentifier}: ${o.error ?? 'no prediction covering the window'}`);
  const cond = all
    ? { type: 'Ready', status: 'True' as const, reason: PREDICT_SUCCEED, message: '' }
    : {
        type: 'Ready',
        status: 'False' as const,
        reason: readyCount > 0 ? PREDICT_PARTIAL : PREDICT_FAILED,
        // Crane's message first, so tooling that matches on it keeps working.
        message: `not all metric predicted; ${errors.join('; ')}`.slice(0, 1024),
      };
  return {
    conditions: [upsertCondition(tsp.status?.conditions, cond, nowMs), ...extra.map((c) => upsertCondition(tsp.status?.conditions, c, nowMs))],
    predictionMetrics: outcomes.map((o) => o.status),
  };
}

/** Ready=False for a spec refused by a bound: no predictions, the problems as the message. */
export function invalidSpecStatus(tsp: TimeSeriesPrediction, message: string, nowMs: number): TspStatus {
  return {
    conditions: [upsertCondition(tsp.status?.conditions, { type: 'Ready', status: 'False', reason: INVALID_SPEC, message: message.slice(0, 1024) }, nowMs)],
    predictionMetrics: [],
  };
}
