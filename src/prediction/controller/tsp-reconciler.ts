// TimeSeriesPrediction controller (docs/crane-behaviour.md §D.2): when a TSP's status no longer
// covers [now, now + window], fetch history, forecast [now, now + 2·window], write the status. Forecasts
// are cached per (TSP, metric, query, algorithm) and reused while they still cover the horizon, so a
// refresh costs Prometheus queries only when the model is due; a pass drops the forecasts its TSP's spec
// no longer asks for. Prometheus failures become a not-ready condition; they never throw out of the loop.
// Each pass runs under an AbortController per TSP: `cancel(key)` (the informer saw the TSP deleted or its
// spec changed) stops its history reads and fits at once, and the pass ends without writing a status.
// A refit that yields no ready forecast (Prometheus failing, a query refused for too many series, a fit over
// its budget, a history with no period) is not repeated at every pass: the next try waits the update
// frequency doubled per consecutive failure, up to FAILURE_BACKOFF_MAX_FACTOR update frequencies (5 min at
// Crane's default 30 s); a spec edit retries at once.
// A TSP whose status would be too large to store (series × forecast samples over BOUNDS.statusSamples) is
// refused as soon as a metric's query has answered, before that metric is fitted, and then left alone: no
// query and no fit until its spec changes, or until the model update interval has passed (sizeRetryMs says why).
import type { Logger } from 'pino';
import type { Condition } from '../../api/meta.ts';
import { resourcePath } from '../../kube/api-client.ts';
import type { CacheReader } from '../../kube/informers.ts';
import type { StatusWriter } from '../../kube/status-writer.ts';
import { semanticEqual } from '../../kube/semantic-equal.ts';
import type { TenantPacer } from '../../kube/tenant-pacer.ts';
import type { EventSink } from '../../kube/event-recorder.ts';
import { metricQuery, NAMESPACED_PROMQL } from '../history/queries.ts';
import type { UserPromqlPolicy } from '../../prometheus/promql-confine.ts';
import type { HistoryProvider } from '../../prometheus/series.ts';
import { BOUNDS } from '../../api/bounds.ts';
import { TSP_API_VERSION, TSP_PLURAL, type PredictionMetricSpec, type TimeSeriesPrediction } from '../../api/prediction.ts';
import { statusSamplesProblem, statusSizeProblem, tspBoundsProblems } from '../spec-bounds.ts';
import { formatDurationMs } from '../../config/duration.ts';
import type { ForecastSeries, Forecaster } from './forecaster.ts';
import { calibratesWindowMax, fitSeriesCount, seriesToFit } from './core-forecaster.ts';
import { buildTspStatus, defaultedCondition, invalidSpecStatus, metricStatus, statusUpToDate, trimForecast, CRANE_DEFAULTS_APPLIED, INVALID_SPEC, type MetricOutcome } from './tsp-status.ts';
import { craneDefaultsApplied, craneDefaultsMessage } from '../crane-config.ts';
import { acceptExtraCostFromAnnotations, AUTO_MODE_ANNOTATIONS, coverageFromAnnotations } from '../coverage-annotation.ts';
import { DEFAULT_COVERAGE_TARGET } from '../index.ts';
import { calibratedCondition, paysCondition, stepAsideReason, type MetricCalibration } from './calibration-status.ts';
import { refitAgeMs } from './refit-spread.ts';
import type { CoverageMetrics } from './coverage-metrics.ts';
import { judgeKept, judgeStrideSeconds, keepForecast, REALIZED_LOOKBACK_SECONDS, sumCounts, type CoverageCount, type KeptMetricForecast } from './realized-coverage.ts';

/**
 * What a TSP's forecast depends on besides its status: the spec (its generation) and auto mode's
 * annotations, which are metadata and bump no generation. A change of any asks for a new forecast.
 */
export function tspSpecVersion(tsp: TimeSeriesPrediction): string {
  return [String(tsp.metadata.generation), ...AUTO_MODE_ANNOTATIONS.map((k) => tsp.metadata.annotations?.[k] ?? '')].join('\u0000');
}

/** The coverage auto mode calibrates this TSP for, or undefined when no metric runs auto mode. An invalid
 *  annotation reads as the default here: such a TSP is refused by the bounds before anything uses it. */
function coverageTargetOf(tsp: TimeSeriesPrediction): number | undefined {
  const anyAuto = (tsp.spec.predictionMetrics ?? []).some((m) => calibratesWindowMax(m.algorithm ?? {}));
  return anyAuto ? (coverageFromAnnotations(tsp.metadata.annotations).coverage ?? DEFAULT_COVERAGE_TARGET) : undefined;
}

export interface TspReconcilerDeps {
  tsps: CacheReader<TimeSeriesPrediction>;
  history: HistoryProvider;
  forecaster: Forecaster;
  status: Pick<StatusWriter, 'update'>;
  log: Logger;
  now?: () => number;
  /** Crane's --prediction-update-frequency-duration (30 s): how often a TSP is re-checked. */
  updateFrequencyMs: number;
  /** Crane's --model-update-interval (12 h): a cached forecast older than this is rebuilt from fresh history. */
  modelUpdateIntervalMs: number;
  /** --prediction-accept-extra-cost: auto mode's default trade when judging whether a forecast pays (annotation overrides). */
  acceptExtraCost?: number;
  /** --prediction-pays: false only reports the verdict (observe); default true steps aside where a forecast does not pay. */
  enforcePays?: boolean;
  /** Fraction of the interval over which refits are spread (refit-spread.ts; default 0.2, 0 = none). */
  refitSpread?: number;
  /** --user-promql: how a TSP's own PromQL is confined (default: to its namespace). */
  userPromql?: UserPromqlPolicy;
  /** Warning events for specs refused by a bound (docs/security.md §2). */
  events?: EventSink;
  /** Realized coverage and coverage target per TSP on /metrics (coverage-metrics.ts). */
  coverageMetrics?: CoverageMetrics;
  /** Per-namespace budget of status bytes (--tenant-status-bytes-per-second); none: writes are not paced. A
   *  positive answer has charged the bytes: the status is then written once that time has passed. */
  pacer?: Pick<TenantPacer, 'reserve'>;
}

/** The longest wait between refits that keep failing, in update frequencies (the first wait is one, then doubles). */
export const FAILURE_BACKOFF_MAX_FACTOR = 10;

/** A metric's query answered with more series than the TSP's status can hold forecasts for: the pass stops. */
class StatusTooLargeError extends Error {}

/** Forecast samples a metric's status holds. */
const statusSamplesOf = (o: MetricOutcome) => (o.status.prediction ?? []).reduce((k, p) => k + p.samples.length, 0);

/** Consecutive refits of one (TSP, metric, query, algorithm) that gave no ready forecast. */
interface RefitBackoff {
  failures: number;
  retryAtMs: number;
  /** The answer until then when the refit left no forecast of its own (it threw, or read no history). */
  outcome?: MetricOutcome;
}

interface CachedForecast {
  builtAtMs: number;
  series: ForecastSeries[];
  /** Last forecast timestamp common to every series (unix s). */
  coversUntilS: number;
  /** The forecasts published over the last day (the realized coverage judges them at each refit). */
  kept: KeptMetricForecast[];
  /** Their realized coverage as of the latest refit. */
  realized?: CoverageCount;
}

/** What a status is built from, kept while its namespace waits for write budget (tenant-pacer.ts). */
interface HeldStatus {
  version: string;
  outcomes: MetricOutcome[];
  /** The conditions after Ready: Defaulted, and auto mode's Calibrated and PredictionPays. */
  autoConditions: Omit<Condition, 'lastTransitionTime'>[];
  builtAtMs: number;
  /** Its bytes are paid for: it is written from this instant on, without asking the pacer again. */
  writeAtMs?: number;
}

export class TspReconciler {
  private readonly now: () => number;
  /** Per TSP key: forecasts by (metric, query, algorithm). */
  private readonly forecasts = new Map<string, Map<string, CachedForecast>>();
  /** The pass in flight per TSP key, to cancel. */
  private readonly inflight = new Map<string, AbortController>();
  private stopped = false;
  /** Spec (tspSpecVersion) that produced the current status, so a spec change refreshes at once. */
  private readonly computedVersion = new Map<string, string>();
  /** Per TSP key: a status built but held back by its namespace's write budget, written as built later. */
  private readonly held = new Map<string, HeldStatus>();
  /** Per TSP key: refits backing off after failing, by the forecast cache key. */
  private readonly backoffs = new Map<string, Map<string, RefitBackoff>>();
  /** Per TSP key: refused for its status size, for this spec version, until this instant. */
  private readonly refused = new Map<string, { version: string; retryAtMs: number }>();

  constructor(private readonly d: TspReconcilerDeps) {
    this.now = d.now ?? Date.now;
  }

  /** Number of cached forecasts (metrics, tests). */
  cachedForecasts(): number {
    let n = 0;
    for (const m of this.forecasts.values()) n += m.size;
    return n;
  }

  /** Forecast samples held in the cache, over every TSP and series (what the cache costs in memory). */
  cachedSamples(): number {
    let n = 0;
    for (const m of this.forecasts.values()) for (const c of m.values()) for (const s of c.series) n += s.timestamps.length;
    return n;
  }

  /** Cancels the key's pass in flight, if any: its history reads and fits stop, it writes no status. */
  cancel(key: string, why: string): void {
    this.inflight.get(key)?.abort(new Error(why));
  }

  /**
   * The controller is stopping (leadership lost, shutdown): cancels every pass in flight, and passes asked
   * for afterwards return at once (the work queue hands out the keys it still holds while it drains).
   */
  stop(why: string): void {
    this.stopped = true;
    this.held.clear();
    this.backoffs.clear();
    this.refused.clear();
    for (const ac of this.inflight.values()) ac.abort(new Error(why));
    // The next leader judges from its own forecasts; this replica's figures would go stale.
    for (const key of this.forecasts.keys()) this.forgetMetrics(key);
  }

  private forgetMetrics(key: string): void {
    const [namespace, name] = key.split('/') as [string, string];
    this.d.coverageMetrics?.forget(namespace, name);
  }

  async reconcile(key: string): Promise<{ requeueAfterMs?: number }> {
    if (this.stopped) return {};
    // The work queue never hands one key to two workers, so a key has at most one pass in flight.
    const ac = new AbortController();
    this.inflight.set(key, ac);
    try {
      return await this.pass(key, ac.signal);
    } finally {
      if (this.inflight.get(key) === ac) this.inflight.delete(key);
    }
  }

  private async pass(key: string, signal: AbortSignal): Promise<{ requeueAfterMs?: number }> {
    const [namespace, name] = key.split('/') as [string, string];
    const tsp = this.d.tsps.get(namespace, name);
    if (!tsp) {
      this.forecasts.delete(key);
      this.computedVersion.delete(key);
      this.held.delete(key);
      this.backoffs.delete(key);
      this.refused.delete(key);
      this.forgetMetrics(key);
      return {};
    }
    const requeue = { requeueAfterMs: this.d.updateFrequencyMs };
    const nowMs = this.now();
    const nowS = Math.floor(nowMs / 1000);
    const version = tspSpecVersion(tsp);
    const sameSpec = this.computedVersion.get(key) === version;
    // An edit is the user's answer to a failure: try again at once.
    if (!sameSpec) this.backoffs.delete(key);
    // Refused for its status size: its status already says why, and repeating the query would only repeat
    // the answer, so nothing runs until the spec changes or the retry time comes.
    const refusal = this.refused.get(key);
    if (refusal && refusal.version === version && nowMs < refusal.retryAtMs) return { requeueAfterMs: refusal.retryAtMs - nowMs };
    this.refused.delete(key);
    if (sameSpec && statusUpToDate(tsp, nowS)) return requeue;
    if (!this.computedVersion.has(key) && statusUpToDate(tsp, nowS) && tsp.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) {
      // Written by a previous leader for this spec: trust it until it runs out. Its coverage target is known
      // without a refit, so the gauge is there from the first pass (realized coverage starts with this
      // replica's own forecasts: it judges only what it published).
      this.computedVersion.set(key, version);
      const target = coverageTargetOf(tsp);
      if (target !== undefined) this.d.coverageMetrics?.set(namespace, name, { realized: sumCounts([]), target });
      return requeue;
    }
    const log = this.d.log.child({ namespace, name });
    const path = resourcePath(TSP_API_VERSION, TSP_PLURAL, namespace, name);
    // Bounds first (an object stored before the CRD had them): refused whole, nothing queried or fitted,
    // and not retried until the spec changes (an edit bumps the generation and the informer requeues it).
    const problems = tspBoundsProblems(tsp);
    if (problems.length > 0) {
      if (sameSpec) return {};
      const message = problems.join('; ');
      this.forecasts.delete(key);
      this.forgetMetrics(key);
      this.d.events?.event(tsp, 'Warning', INVALID_SPEC, message);
      await this.d.status.update(path, tsp, (obj) => invalidSpecStatus(obj, message, nowMs));
      this.computedVersion.set(key, version);
      log.info({ reason: INVALID_SPEC }, message);
      return {};
    }
    // Where Crane would run its default percentile configuration, so does this, and says so (condition
    // Defaulted, and a Warning event once per spec).
    const defaultedBlocks = (tsp.spec.predictionMetrics ?? []).flatMap((m, i) => craneDefaultsApplied(m.algorithm, `spec.predictionMetrics[${i}].algorithm`) ?? []);
    const defaulted = defaultedBlocks.length ? defaultedCondition(craneDefaultsMessage(defaultedBlocks)) : undefined;
    if (defaulted && !sameSpec) this.d.events?.event(tsp, 'Warning', CRANE_DEFAULTS_APPLIED, defaulted.message);
    const window = tsp.spec.predictionWindowSeconds;
    // A status held back by the namespace's write budget is written as it was built, with no refit, while it
    // still covers [now, now + window] (it was built for [then, then + 2 window]).
    const held = this.held.get(key);
    this.held.delete(key);
    if (held && held.version === version && nowMs - held.builtAtMs <= window * 1000) {
      // Asked for again before its turn (e.g. by the informer): back in line for the rest of the wait.
      if (held.writeAtMs !== undefined && nowMs < held.writeAtMs) {
        this.held.set(key, held);
        return { requeueAfterMs: held.writeAtMs - nowMs };
      }
      return this.writeForecast(key, path, tsp, held, namespace, log, requeue);
    }
    // The bounds passed, so the annotation is absent or valid.
    const annotated = coverageFromAnnotations(tsp.metadata.annotations).coverage;
    const coverage = annotated ?? DEFAULT_COVERAGE_TARGET;
    const acceptExtraCost = acceptExtraCostFromAnnotations(tsp.metadata.annotations).acceptExtraCost ?? this.d.acceptExtraCost ?? 0;
    const outcomes: MetricOutcome[] = [];
    const cache = this.forecasts.get(key) ?? new Map<string, CachedForecast>();
    const backoffs = this.backoffs.get(key) ?? new Map<string, RefitBackoff>();
    const used = new Set<string>();
    try {
      for (const [i, m] of (tsp.spec.predictionMetrics ?? []).entries()) {
        // What the metrics before this one put in the status: its own forecasts must fit in the rest.
        const before = outcomes.reduce((n, o) => n + statusSamplesOf(o), 0);
        outcomes.push(await this.predictMetric(cache, backoffs, used, tsp, m, `spec.predictionMetrics[${i}]`, before, nowS, window, { coverage, acceptExtraCost }, log, signal));
        // Deleted or edited meanwhile: the informer queued the key again, and that pass reads the new spec.
        if (signal.aborted) {
          log.debug({ reason: (signal.reason as Error).message }, 'prediction cancelled');
          return {};
        }
      }
    } catch (e) {
      if (!(e instanceof StatusTooLargeError)) throw e;
      return this.refuseSize(key, path, tsp, version, e.message, nowMs, log);
    }
    // Forecasts of an older spec (another query, algorithm or metric) are never asked for again.
    for (const k of cache.keys()) if (!used.has(k)) cache.delete(k);
    if (cache.size > 0) this.forecasts.set(key, cache);
    else this.forecasts.delete(key);
    for (const k of backoffs.keys()) if (!used.has(k)) backoffs.delete(k);
    if (backoffs.size > 0 && !this.stopped) this.backoffs.set(key, backoffs);
    else this.backoffs.delete(key);
    const realized = sumCounts([...cache.values()].map((c) => c.realized));
    const pays = paysCondition(outcomes.flatMap((o) => (o.calibration ? [o.calibration] : [])), { enforce: this.d.enforcePays !== false });
    const paying = pays?.status === 'True' ? true : pays?.status === 'False' ? false : undefined;
    if (!this.stopped) this.d.coverageMetrics?.set(namespace, name, { realized, target: coverageTargetOf(tsp), pays: paying });
    const calibrated = calibratedCondition(
      outcomes.flatMap((o) => (o.calibration ? [o.calibration] : [])),
      { target: coverage, windowSeconds: window, annotated: annotated !== undefined, realized },
    );
    // The last line: the check before each fit counts at least what the fits give, so this holds only when a
    // forecaster answers with more series or samples than it was asked for.
    const tooBig = statusSamplesProblem(outcomes.reduce((n, o) => n + statusSamplesOf(o), 0));
    if (tooBig) return this.refuseSize(key, path, tsp, version, tooBig, nowMs, log);
    return this.writeForecast(key, path, tsp, { version, outcomes, autoConditions: [defaulted, calibrated, pays].flatMap((c) => (c ? [c] : [])), builtAtMs: nowMs }, namespace, log, requeue);
  }

  /**
   * How long a TSP refused for its status size waits before its query is tried again, unchanged. Not
   * forever: the series count is not the spec's alone. A range query over the history returns a series for
   * every pod that ran in it, so the count falls as old pods age out of the history (hours to days), or when
   * an exporter's labels change. Not at every pass either: each try costs a query (and the fits of the
   * metrics before the one that overruns) to learn what the status already says. The model update interval
   * (12 h by default) is how often even a healthy forecast re-reads its history; never less than the longest
   * failure backoff. A spec edit (fewer series, a shorter window) retries at once.
   */
  private sizeRetryMs(): number {
    return Math.max(this.d.modelUpdateIntervalMs, this.d.updateFrequencyMs * FAILURE_BACKOFF_MAX_FACTOR);
  }

  /** Refuses the TSP for its status size: Ready=False/InvalidSpec and a Warning event, its forecasts dropped, left alone until sizeRetryMs. */
  private async refuseSize(key: string, path: string, tsp: TimeSeriesPrediction, version: string, problem: string, nowMs: number, log: Logger): Promise<{ requeueAfterMs: number }> {
    const retryMs = this.sizeRetryMs();
    const message = `${problem}; tried again when the spec changes, or in ${formatDurationMs(retryMs)}`;
    this.forecasts.delete(key);
    this.backoffs.delete(key);
    this.forgetMetrics(key);
    this.d.events?.event(tsp, 'Warning', INVALID_SPEC, message);
    await this.d.status.update(path, tsp, (obj) => invalidSpecStatus(obj, message, nowMs));
    // Only once the condition is written: a write that failed leaves the next pass to try again.
    if (!this.stopped) this.refused.set(key, { version, retryAtMs: nowMs + retryMs });
    this.computedVersion.set(key, version);
    log.info({ reason: INVALID_SPEC }, message);
    return { requeueAfterMs: retryMs };
  }

  /**
   * Writes the status built from `s`, unless the namespace is over its write budget (tenant-pacer.ts): then
   * the status is held and the key asked for again when the budget allows, so a tenant writing many large
   * statuses waits its turn without holding a worker, refitting or delaying other namespaces.
   */
  private async writeForecast(key: string, path: string, tsp: TimeSeriesPrediction, s: HeldStatus, namespace: string, log: Logger, requeue: { requeueAfterMs: number }): Promise<{ requeueAfterMs?: number }> {
    const build = (obj: TimeSeriesPrediction) => buildTspStatus(obj, s.outcomes, s.builtAtMs, s.autoConditions);
    // Built once for the cached object: the pacer sizes it, the writer compares and sends it (it rebuilds
    // only from an object re-read after a conflict). A day-wide status is ~130 KB on this event loop.
    const next = build(tsp);
    if (this.d.pacer && s.writeAtMs === undefined && !semanticEqual(tsp.status ?? {}, next)) {
      const waitMs = this.d.pacer.reserve(namespace, JSON.stringify(next).length);
      if (waitMs > 0) {
        this.held.set(key, { ...s, writeAtMs: this.now() + waitMs });
        log.debug({ waitMs }, 'status write paced: the namespace is over its write budget');
        return { requeueAfterMs: waitMs };
      }
    }
    await this.d.status.update(path, tsp, (obj) => (obj === tsp ? next : build(obj)));
    this.computedVersion.set(key, s.version);
    return requeue;
  }

  private async predictMetric(
    cache: Map<string, CachedForecast>,
    backoffs: Map<string, RefitBackoff>,
    used: Set<string>,
    tsp: TimeSeriesPrediction,
    m: PredictionMetricSpec,
    /** Where the metric is in the spec ("spec.predictionMetrics[0]"), for a refusal's message. */
    field: string,
    /** Forecast samples the TSP's earlier metrics hold in this pass's status. */
    before: number,
    nowS: number,
    window: number,
    autoSettings: { coverage: number; acceptExtraCost: number },
    log: Logger,
    signal: AbortSignal,
  ): Promise<MetricOutcome> {
    const rid = m.resourceIdentifier;
    const algorithm = m.algorithm ?? {};
    const horizonEnd = nowS + 2 * window;
    const auto = calibratesWindowMax(algorithm);
    const failed = (error: string): MetricOutcome => ({ status: { resourceIdentifier: rid, ready: false, prediction: [] }, error, calibration: { resourceIdentifier: rid, auto, series: [], error } });
    let cacheKey: string | undefined;
    // Set when this pass refits: its outcome then decides the backoff.
    let refitted = false;
    const backOff = (outcome?: MetricOutcome) => {
      if (cacheKey === undefined) return;
      const failures = (backoffs.get(cacheKey)?.failures ?? 0) + 1;
      const waitMs = this.d.updateFrequencyMs * Math.min(2 ** Math.min(failures - 1, 30), FAILURE_BACKOFF_MAX_FACTOR);
      backoffs.set(cacheKey, { failures, retryAtMs: nowS * 1000 + waitMs, ...(outcome ? { outcome } : {}) });
    };
    try {
      const query = metricQuery(tsp, m, this.d.userPromql ?? NAMESPACED_PROMQL);
      const { coverage, acceptExtraCost } = autoSettings;
      cacheKey = `${rid}\u0000${query}\u0000${JSON.stringify(algorithm)}\u0000${auto ? `${coverage}\u0000${acceptExtraCost}` : ''}`;
      used.add(cacheKey);
      let cached = cache.get(cacheKey);
      const nowMs = nowS * 1000;
      const maxAgeMs = refitAgeMs(`${tsp.metadata.namespace}/${tsp.metadata.name}\u0000${rid}`, this.d.modelUpdateIntervalMs, this.d.refitSpread);
      const backoff = backoffs.get(cacheKey);
      const waiting = backoff !== undefined && nowMs < backoff.retryAtMs;
      if (waiting && backoff.outcome) return backoff.outcome;
      if (!waiting && (!cached || cached.coversUntilS < horizonEnd || nowMs - cached.builtAtMs > maxAgeMs)) {
        refitted = true;
        const { lengthSeconds, stepSeconds } = this.d.forecaster.historyWindow(algorithm);
        const end = Math.floor(nowS / stepSeconds) * stepSeconds;
        const history = await this.d.history.queryRange(query, end - lengthSeconds, end, stepSeconds, { signal, maxSeries: BOUNDS.seriesPerQuery });
        const usable = history.filter((h) => h.values.length > 0);
        if (usable.length === 0) {
          const outcome = failed('no history returned by the query');
          backOff(outcome);
          return outcome;
        }
        // The status-size bound from the series count alone, before merging or fitting anything.
        const tooBig = statusSizeProblem({ field: `${field} (${rid})`, series: fitSeriesCount(usable.length, algorithm), windowSeconds: window, stepSeconds, before });
        if (tooBig) throw new StatusTooLargeError(tooBig);
        const toFit = seriesToFit(usable, algorithm);
        // The forecasts published so far against what happened, from the history this refit reads anyway.
        if (cached) cached.realized = judgeKept(cached.kept, toFit, { now: nowS, windowSeconds: window, strideSeconds: judgeStrideSeconds(window, stepSeconds) });
        const fitted = await this.d.forecaster.forecast(toFit, algorithm, { nowS, horizonSeconds: 2 * window, coverage, coverageWindowSeconds: window, acceptExtraCost }, { signal, tenant: tsp.metadata.namespace });
        // Only what a status can show before the next refit is kept: Crane's DSP horizon is the whole history
        // length (15 days = 21,600 samples a series at 60 s), which at thousands of TSPs held gigabytes
        // (serve died of heap exhaustion at 5,000 EHPAs before this trim).
        const series = fitted.map((s) => trimForecast(s, nowS + maxAgeMs / 1000 + 2 * window));
        const coversUntilS = series.length ? Math.min(...series.map((s) => (s.timestamps.length ? (s.timestamps[s.timestamps.length - 1] as number) : -Infinity))) : -Infinity;
        // A forecast stays in force until the next refit: at most the model update interval, or until it runs out.
        const spanSeconds = REALIZED_LOOKBACK_SECONDS + this.d.modelUpdateIntervalMs / 1000 + window;
        const kept = keepForecast(cached?.kept ?? [], series, nowS, { spanSeconds });
        cached = { builtAtMs: nowMs, series, coversUntilS, kept, ...(cached?.realized ? { realized: cached.realized } : {}) };
        cache.set(cacheKey, cached);
        log.debug({ metric: rid, historySeries: usable.length, forecastSeries: series.length }, 'forecast built');
      }
      // Waiting with no forecast yet cannot happen (a refit that leaves none keeps its outcome), but stay total.
      if (!cached) return failed('no forecast yet');
      const status = metricStatus(rid, cached.series, nowS, horizonEnd, nowS + window);
      const none = cached.series.length ? undefined : 'the algorithm found no prediction in the history';
      const calibration: MetricCalibration = {
        resourceIdentifier: rid,
        auto,
        series: cached.series.map((s) => ({ ...(s.calibration ? { calibration: s.calibration } : {}), ...(s.note !== undefined ? { note: s.note } : {}) })),
        ...(none ? { error: none } : {}),
      };
      // auto mode steps aside where its forecast does not pay against a plain HPA (the adapter then serves the
      // observed value); the forecast stays in the status for anyone to watch.
      const declined = this.d.enforcePays !== false ? stepAsideReason(calibration) : undefined;
      if (declined) status.stepAside = declined;
      // A refit that left a forecast short of the window (or none at all) is shown as it is, and not tried
      // again before its backoff ends: the status is built from that forecast meanwhile.
      if (refitted) {
        if (status.ready) backoffs.delete(cacheKey);
        else backOff();
      }
      return status.ready ? { status, calibration } : { status, calibration, error: none ?? 'forecast does not cover the window' };
    } catch (e) {
      if (e instanceof StatusTooLargeError) throw e;
      if (signal.aborted) return failed((e as Error).message);
      log.warn({ metric: rid, err: (e as Error).message }, 'prediction failed');
      const outcome = failed((e as Error).message);
      // Failed while refitting: back off. A refusal before any query (e.g. another namespace's target) has no
      // cache key and costs nothing to repeat.
      backOff(outcome);
      return outcome;
    }
  }
}
