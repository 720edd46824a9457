// TimeSeriesPrediction controller (docs/crane-behaviour.md §D.2): when a TSP's status no longer
// covers [now, now + window], fetch history, forecast [now, now + 2·window], write the status. Forecasts
// are cached per (TSP, metric, query, algorithm) and reused while they still cover the horizon, so a
// refresh costs Prometheus queries only when the model is due; a pass drops the forecasts its TSP's spec
// no longer asks for. Prometheus failures become a not-ready condition; they never throw out of the loop.
// Each pass runs under an AbortController per TSP: `cancel(key)` (the informer saw the TSP deleted or its
// spec changed) stops its history reads and fits at once, and the pass ends without writing a status.
// A pass in which a refit yields no ready forecast returns requeueWithBackoff, and the work queue brings the
// key back with its per-key backoff (tsp-retry.ts); this file keeps no retry timing of its own.
// A TSP whose status would be too large to store (series × forecast samples over BOUNDS.statusSamples) is
// refused as soon as a metric's query has answered, before that metric is fitted, and then left alone: no
// query and no fit until its spec changes, or until the model update interval has passed (sizeRetryMs says why).
//
// A pass reads as its steps (`pass`), each ending the pass with a result or handing over to the next: a deleted
// TSP is forgotten; a refused one waits; a current status is kept; an invalid spec is refused; a status held
// for write budget is written; otherwise the metrics are forecast and the status written.
import type { Logger } from 'pino';
import type { Condition } from '../../api/meta.ts';
import { resourcePath } from '../../kube/api-client.ts';
import type { ReconcileResult } from '../../kube/controller-runner.ts';
import type { CacheReader } from '../../kube/informers.ts';
import type { StatusWriter } from '../../kube/status-writer.ts';
import { semanticEqual } from '../../kube/semantic-equal.ts';
import type { TenantPacer } from '../../kube/tenant-pacer.ts';
import type { EventSink } from '../../kube/event-recorder.ts';
import { splitKey, type BackoffPolicy } from '../../kube/work-queue.ts';
import type { UserPromqlPolicy } from '../../prometheus/promql-confine.ts';
import type { HistoryProvider } from '../../prometheus/series.ts';
import { TSP_API_VERSION, TSP_PLURAL, type TimeSeriesPrediction } from '../../api/prediction.ts';
import { statusSamplesProblem, tspBoundsProblems } from '../spec-bounds.ts';
import { formatDurationMs } from '../../config/duration.ts';
import { AUTO_MODE_ANNOTATIONS } from '../coverage-annotation.ts';
import type { Forecaster } from './forecaster.ts';
import { buildTspStatus, invalidSpecStatus, statusUpToDate, CRANE_DEFAULTS_APPLIED, INVALID_SPEC, type MetricOutcome } from './tsp-status.ts';
import type { CoverageMetrics } from './coverage-metrics.ts';
import { sumCounts } from './realized-coverage.ts';
import { MetricPredictor, StatusTooLargeError, type MetricPass, type MetricResult } from './metric-predictor.ts';
import { autoModeConditions, autoSettingsOf, coverageTargetOf, defaultedOf } from './tsp-conditions.ts';
import { TspKeyStates, type HeldStatus, type TspKeyState } from './tsp-key-state.ts';
import { passResult, sizeRetryMs, tspRetryBackoff } from './tsp-retry.ts';

export { FAILURE_BACKOFF_MAX_FACTOR } from './tsp-retry.ts';

/**
 * What a TSP's forecast depends on besides its status: the spec (its generation) and auto mode's
 * annotations, which are metadata and bump no generation. A change of any asks for a new forecast.
 */
export function tspSpecVersion(tsp: TimeSeriesPrediction): string {
  return [String(tsp.metadata.generation), ...AUTO_MODE_ANNOTATIONS.map((k) => tsp.metadata.annotations?.[k] ?? '')].join('\u0000');
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

/** One pass over one TSP: what its steps read. */
interface Pass {
  key: string;
  namespace: string;
  name: string;
  tsp: TimeSeriesPrediction;
  path: string;
  log: Logger;
  /** tspSpecVersion of the TSP, and whether the current status was made for it. */
  version: string;
  sameSpec: boolean;
  nowMs: number;
  nowS: number;
  windowSeconds: number;
}

type PlainCondition = Omit<Condition, 'lastTransitionTime'>;

/** Forecast samples a metric's status holds. */
const statusSamplesOf = (o: MetricOutcome) => (o.status.prediction ?? []).reduce((k, p) => k + p.samples.length, 0);

export class TspReconciler {
  /** The work queue's per-key backoff for these keys: after a failed refit, and after a pass that threw. */
  readonly retryBackoff: BackoffPolicy;
  private readonly now: () => number;
  private readonly states = new TspKeyStates();
  private readonly metrics: MetricPredictor;
  private stopped = false;

  constructor(private readonly d: TspReconcilerDeps) {
    this.now = d.now ?? Date.now;
    this.retryBackoff = tspRetryBackoff(d.updateFrequencyMs);
    this.metrics = new MetricPredictor({
      history: d.history,
      forecaster: d.forecaster,
      modelUpdateIntervalMs: d.modelUpdateIntervalMs,
      enforcePays: d.enforcePays !== false,
      ...(d.refitSpread !== undefined ? { refitSpread: d.refitSpread } : {}),
      ...(d.userPromql ? { userPromql: d.userPromql } : {}),
    });
  }

  /** Number of cached forecasts (metrics, tests). */
  cachedForecasts(): number {
    let n = 0;
    for (const [, s] of this.states.entries()) n += s.forecasts.size;
    return n;
  }

  /** Forecast samples held in the cache, over every TSP and series (what the cache costs in memory). */
  cachedSamples(): number {
    let n = 0;
    for (const [, s] of this.states.entries()) for (const c of s.forecasts.values()) for (const x of c.series) n += x.timestamps.length;
    return n;
  }

  /** Cancels the key's pass in flight, if any: its history reads and fits stop, it writes no status. */
  cancel(key: string, why: string): void {
    this.states.find(key)?.inflight?.abort(new Error(why));
  }

  /**
   * The controller is stopping (leadership lost, shutdown): cancels every pass in flight, and passes asked
   * for afterwards return at once (the work queue hands out the keys it still holds while it drains).
   */
  stop(why: string): void {
    this.stopped = true;
    for (const [key, s] of this.states.entries()) {
      s.inflight?.abort(new Error(why));
      // The next leader judges from its own forecasts; this replica's figures would go stale.
      if (s.forecasts.size > 0) this.forgetMetrics(key);
    }
    this.states.close();
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    if (this.stopped) return {};
    // The work queue never hands one key to two workers, so a key has at most one pass in flight.
    const state = this.states.of(key);
    const ac = new AbortController();
    state.inflight = ac;
    try {
      return await this.pass(key, state, ac.signal);
    } finally {
      if (state.inflight === ac) delete state.inflight;
    }
  }

  /** The pass as named steps: each either ends it with a result or returns undefined for the next one. */
  private async pass(key: string, state: TspKeyState, signal: AbortSignal): Promise<ReconcileResult> {
    const { namespace, name } = splitKey(key);
    const tsp = this.d.tsps.get(namespace, name);
    if (!tsp) return this.forgetDeleted(key);
    const p = this.begin(key, tsp, state);
    const settled = this.waitOutSizeRefusal(p, state) ?? this.keepCurrentStatus(p, state) ?? (await this.refuseInvalidSpec(p, state));
    if (settled) return settled;
    const defaulted = this.announceDefaults(p);
    return (await this.writeHeldStatus(p, state)) ?? (await this.forecastAndWrite(p, state, defaulted, signal));
  }

  private begin(key: string, tsp: TimeSeriesPrediction, state: TspKeyState): Pass {
    const { namespace, name } = splitKey(key);
    const nowMs = this.now();
    const version = tspSpecVersion(tsp);
    return {
      key,
      namespace,
      name,
      tsp,
      path: resourcePath(TSP_API_VERSION, TSP_PLURAL, namespace, name),
      log: this.d.log.child({ namespace, name }),
      version,
      sameSpec: state.computedVersion === version,
      nowMs,
      nowS: Math.floor(nowMs / 1000),
      windowSeconds: tsp.spec.predictionWindowSeconds,
    };
  }

  private checkAgain(): ReconcileResult {
    return { requeueAfterMs: this.d.updateFrequencyMs };
  }

  private forgetDeleted(key: string): ReconcileResult {
    this.states.forget(key);
    this.forgetMetrics(key);
    return {};
  }

  private forgetMetrics(key: string): void {
    const { namespace, name } = splitKey(key);
    this.d.coverageMetrics?.forget(namespace, name);
  }

  /**
   * Refused for its status size: its status already says why, and repeating the query would only repeat
   * the answer, so nothing runs until the spec changes or the retry time comes.
   */
  private waitOutSizeRefusal(p: Pass, state: TspKeyState): ReconcileResult | undefined {
    const r = state.refused;
    if (r && r.version === p.version && p.nowMs < r.retryAtMs) return { requeueAfterMs: r.retryAtMs - p.nowMs };
    delete state.refused;
    return undefined;
  }

  /**
   * The status still covers [now, now + window] for this spec: nothing to do. Written by a previous leader
   * for this spec: trust it until it runs out. Its coverage target is known without a refit, so the gauge is
   * there from the first pass (realized coverage starts with this replica's own forecasts: it judges only
   * what it published).
   */
  private keepCurrentStatus(p: Pass, state: TspKeyState): ReconcileResult | undefined {
    if (!statusUpToDate(p.tsp, p.nowS)) return undefined;
    if (p.sameSpec) return this.checkAgain();
    const ready = p.tsp.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    if (state.computedVersion !== undefined || !ready) return undefined;
    state.computedVersion = p.version;
    const target = coverageTargetOf(p.tsp);
    if (target !== undefined) this.d.coverageMetrics?.set(p.namespace, p.name, { realized: sumCounts([]), target });
    return this.checkAgain();
  }

  /**
   * Bounds first (an object stored before the CRD had them): refused whole, nothing queried or fitted, and
   * not retried until the spec changes (an edit bumps the generation and the informer requeues it).
   */
  private async refuseInvalidSpec(p: Pass, state: TspKeyState): Promise<ReconcileResult | undefined> {
    const problems = tspBoundsProblems(p.tsp);
    if (problems.length === 0) return undefined;
    if (p.sameSpec) return {};
    const message = problems.join('; ');
    state.forecasts.clear();
    this.forgetMetrics(p.key);
    this.d.events?.event(p.tsp, 'Warning', INVALID_SPEC, message);
    await this.d.status.update(p.path, p.tsp, (obj) => invalidSpecStatus(obj, message, p.nowMs));
    state.computedVersion = p.version;
    p.log.info({ reason: INVALID_SPEC }, message);
    return {};
  }

  /** Where Crane would run its default percentile configuration, so does this, and says so (condition Defaulted, and a Warning event once per spec). */
  private announceDefaults(p: Pass): PlainCondition | undefined {
    const defaulted = defaultedOf(p.tsp);
    if (defaulted && !p.sameSpec) this.d.events?.event(p.tsp, 'Warning', CRANE_DEFAULTS_APPLIED, defaulted.message);
    return defaulted;
  }

  /**
   * A status held back by the namespace's write budget is written as it was built, with no refit, while it
   * still covers [now, now + window] (it was built for [then, then + 2 window]).
   */
  private async writeHeldStatus(p: Pass, state: TspKeyState): Promise<ReconcileResult | undefined> {
    const held = state.held;
    delete state.held;
    if (!held || held.version !== p.version || p.nowMs - held.builtAtMs > p.windowSeconds * 1000) return undefined;
    // Asked for again before its turn (e.g. by the informer): back in line for the rest of the wait.
    if (held.writeAtMs !== undefined && p.nowMs < held.writeAtMs) {
      state.held = held;
      return { requeueAfterMs: held.writeAtMs - p.nowMs };
    }
    return this.writeStatus(p, state, held);
  }

  /** Forecasts every metric (from the cache where it still serves), then writes the status they make. */
  private async forecastAndWrite(p: Pass, state: TspKeyState, defaulted: PlainCondition | undefined, signal: AbortSignal): Promise<ReconcileResult> {
    const settings = autoSettingsOf(p.tsp, this.d.acceptExtraCost);
    const mp: MetricPass = { tsp: p.tsp, nowS: p.nowS, windowSeconds: p.windowSeconds, auto: settings, cache: state.forecasts, used: new Set(), log: p.log, signal };
    let results: MetricResult[] | undefined;
    try {
      results = await this.predictMetrics(mp);
    } catch (e) {
      if (!(e instanceof StatusTooLargeError)) throw e;
      return this.refuseSize(p, state, e.message);
    }
    if (!results) return {};
    // Forecasts of an older spec (another query, algorithm or metric) are never asked for again.
    for (const k of state.forecasts.keys()) if (!mp.used.has(k)) state.forecasts.delete(k);
    const outcomes = results.map((r) => r.outcome);
    const realized = sumCounts([...state.forecasts.values()].map((c) => c.realized));
    const { calibrated, pays, paying } = autoModeConditions({ outcomes, settings, windowSeconds: p.windowSeconds, realized, enforcePays: this.d.enforcePays !== false });
    if (!this.stopped) this.d.coverageMetrics?.set(p.namespace, p.name, { realized, target: coverageTargetOf(p.tsp), pays: paying });
    // The last line: the check before each fit counts at least what the fits give, so this holds only when a
    // forecaster answers with more series or samples than it was asked for.
    const tooBig = statusSamplesProblem(outcomes.reduce((n, o) => n + statusSamplesOf(o), 0));
    if (tooBig) return this.refuseSize(p, state, tooBig);
    const autoConditions = [defaulted, calibrated, pays].flatMap((c) => (c ? [c] : []));
    return this.writeStatus(p, state, { version: p.version, outcomes, autoConditions, builtAtMs: p.nowMs, refitFailed: results.some((r) => r.refitFailed) });
  }

  /** Each metric in spec order; undefined when the pass was cancelled meanwhile. */
  private async predictMetrics(mp: MetricPass): Promise<MetricResult[] | undefined> {
    const results: MetricResult[] = [];
    for (const [i, m] of (mp.tsp.spec.predictionMetrics ?? []).entries()) {
      // What the metrics before this one put in the status: its own forecasts must fit in the rest.
      const before = results.reduce((n, r) => n + statusSamplesOf(r.outcome), 0);
      results.push(await this.metrics.predict(mp, m, `spec.predictionMetrics[${i}]`, before));
      // Deleted or edited meanwhile: the informer queued the key again, and that pass reads the new spec.
      if (mp.signal.aborted) {
        mp.log.debug({ reason: (mp.signal.reason as Error).message }, 'prediction cancelled');
        return undefined;
      }
    }
    return results;
  }

  /** Refuses the TSP for its status size: Ready=False/InvalidSpec and a Warning event, its forecasts dropped, left alone until sizeRetryMs. */
  private async refuseSize(p: Pass, state: TspKeyState, problem: string): Promise<ReconcileResult> {
    const retryMs = sizeRetryMs(this.d.modelUpdateIntervalMs, this.d.updateFrequencyMs);
    const message = `${problem}; tried again when the spec changes, or in ${formatDurationMs(retryMs)}`;
    state.forecasts.clear();
    this.forgetMetrics(p.key);
    this.d.events?.event(p.tsp, 'Warning', INVALID_SPEC, message);
    await this.d.status.update(p.path, p.tsp, (obj) => invalidSpecStatus(obj, message, p.nowMs));
    // Only once the condition is written: a write that failed leaves the next pass to try again.
    state.refused = { version: p.version, retryAtMs: p.nowMs + retryMs };
    state.computedVersion = p.version;
    p.log.info({ reason: INVALID_SPEC }, message);
    return { requeueAfterMs: retryMs };
  }

  /**
   * Writes the status built from `s`, unless the namespace is over its write budget (tenant-pacer.ts): then
   * the status is held and the key asked for again when the budget allows, so a tenant writing many large
   * statuses waits its turn without holding a worker, refitting or delaying other namespaces.
   */
  private async writeStatus(p: Pass, state: TspKeyState, s: HeldStatus): Promise<ReconcileResult> {
    const build = (obj: TimeSeriesPrediction) => buildTspStatus(obj, s.outcomes, s.builtAtMs, s.autoConditions);
    // Built once for the cached object: the pacer sizes it, the writer compares and sends it (it rebuilds
    // only from an object re-read after a conflict). A day-wide status is ~130 KB on this event loop.
    const next = build(p.tsp);
    if (this.d.pacer && s.writeAtMs === undefined && !semanticEqual(p.tsp.status ?? {}, next)) {
      const waitMs = this.d.pacer.reserve(p.namespace, JSON.stringify(next).length);
      if (waitMs > 0) {
        state.held = { ...s, writeAtMs: this.now() + waitMs };
        p.log.debug({ waitMs }, 'status write paced: the namespace is over its write budget');
        return { requeueAfterMs: waitMs };
      }
    }
    await this.d.status.update(p.path, p.tsp, (obj) => (obj === p.tsp ? next : build(obj)));
    state.computedVersion = s.version;
    return passResult({ refitFailed: s.refitFailed, outcomes: s.outcomes, nowS: p.nowS, windowSeconds: p.windowSeconds, updateFrequencyMs: this.d.updateFrequencyMs });
  }
}
