// The recommender's main loop, one RunOnce per tick (upstream routines/recommender.go): VPAs, pods,
// current usage and OOMs into the model; recommendation and conditions into each VPA's status (written
// only when changed); checkpoints for as many VPAs as fit in the checkpoint budget, oldest first;
// checkpoint and aggregate GC. The first run restores checkpoints and then loads Prometheus history for
// the VPAs that had none; when that load fails (Prometheus refuses the credentials, is unreachable, ...),
// those VPAs get a Warning event and FetchingHistory=False with the cause for the rest of the term, beside
// the log line. Every side effect goes through `RecommenderIO`, time through `now`.
//
// The loop shares its thread with the metrics APIs, so its long synchronous steps (usage, start-up history,
// the per-VPA recommendations: at 10,000 VPAs / 100,000 containers each runs for hundreds of milliseconds)
// hand the event loop a turn every SLICE_BUDGET_MS (kube/event-loop-turns.ts). The model sees the same
// calls in the same order, only spread over several turns; nothing else writes to it meanwhile.
import type { Logger } from 'pino';
import { TimeSlice } from '../../kube/event-loop-turns.ts';
import { ClusterState, vpasInCheckpointOrder, type Labels, type VpaState } from '../model/cluster-state.ts';
import type { VerticalPodAutoscalerCheckpointJSON } from '../model/checkpoint-json.ts';
import type { OomInfo } from '../input/oom-observer.ts';
import { vpaSelectedByRecommender, type VpaFilterOptions } from '../input/vpa-filter.ts';
import { ClusterFeeder, vpaKey, type FeedCounts, type PodHistory, type PodObject, type TargetSelection, type UsageSample, type VpaObject } from '../input/cluster-feeder.ts';
import { checkpointObjects, containersByAggregate, loadCheckpoints, orphanedCheckpoints, type ContainersByAggregate } from '../checkpoint/checkpoints.ts';
import { recommendForVpa, type RecommenderSettings } from './recommend-vpa.ts';
import { cpuEhpaIndex, SPLIT_CONDITION, splitMessage, type EhpaForSplit } from './resource-split.ts';
import { desiredVpaStatus, hasTrueCondition, HISTORY_UNAVAILABLE_REASON, historyUnavailableMessage, statusChanged, type VpaStatusJSON } from './vpa-status.ts';

/** Upstream's aggregateContainerStateGCInterval. */
const AGGREGATE_GC_INTERVAL_MICROS = 3_600_000_000;

export interface RecommenderIO {
  vpas(): readonly VpaObject[];
  pods(): readonly PodObject[];
  ehpas(): readonly EhpaForSplit[];
  /** The VPA's pod selector from its targetRef (cached by the implementation). */
  targetSelector(vpa: VpaObject): Promise<TargetSelection>;
  currentUsage(): Promise<UsageSample[]>;
  /** Start-up history, or undefined when history is off. */
  history?: () => Promise<PodHistory[]>;
  checkpoints(): Promise<VerticalPodAutoscalerCheckpointJSON[]>;
  /** OOMs seen since the last call. */
  takeOoms(): OomInfo[];
  writeStatus(vpa: VpaObject, status: VpaStatusJSON): Promise<void>;
  writeCheckpoint(cp: VerticalPodAutoscalerCheckpointJSON): Promise<void>;
  deleteCheckpoint(namespace: string, name: string): Promise<void>;
  event(vpa: VpaObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface LoopOptions {
  settings: RecommenderSettings;
  filter: VpaFilterOptions;
  /** Memory-only recommendations for VPAs whose target an EHPA scales on CPU. */
  splitWithEhpa: boolean;
  checkpointsTimeoutMs: number;
  checkpointsGcIntervalMs: number;
  /** Concurrent status writes (upstream --update-worker-count). */
  updateWorkers: number;
  /** Wall clock in milliseconds (injected). */
  now: () => number;
  /** Attributes a non-live history pod to VPA targets by pod name; undefined = drop it. */
  historyPodLabels?: (namespace: string, pod: string, vpas: readonly { obj: VpaObject; target: TargetSelection }[]) => Labels | undefined;
  /** Longest synchronous stretch between turns of the event loop, ms (default SLICE_BUDGET_MS). */
  sliceBudgetMs?: number;
  log?: Logger;
}

export interface LoopStats {
  vpas: number;
  trackedPods: number;
  trackedContainers: number;
  samplesAccepted: number;
  samplesRejected: number;
  ooms: number;
  statusWrites: number;
  checkpointWrites: number;
  checkpointDeletes: number;
  events: number;
  /** Milliseconds of the model part (feeding, recommending, building checkpoints) without waiting on I/O. */
  modelMs: number;
  totalMs: number;
  /** Wall time per step: feeding (VPAs, pods, usage, OOMs), status update, checkpoints, aggregate GC. */
  phaseMs: { feed: number; update: number; checkpoints: number; gc: number };
  historySamples?: number;
  checkpointsRestored?: number;
}

type HandledVpa = { obj: VpaObject; target: TargetSelection };

/** Longest stretch of the loop's synchronous work between two turns of the event loop, ms. */
export const SLICE_BUDGET_MS = 10;
/** Usage samples fed per call (a few ms of histogram updates). */
const USAGE_PART = 2000;
/** History pods fed per call (a day of samples each). */
const HISTORY_PART = 50;

/** `feed` over `items` in parts of `size`, in order, with a turn of the event loop between parts once the stretch has used its budget; counts summed. */
async function feedInParts<T>(items: readonly T[], size: number, slice: TimeSlice, feed: (part: readonly T[]) => FeedCounts): Promise<FeedCounts> {
  const n: FeedCounts = { accepted: 0, rejected: 0, untracked: 0 };
  for (let i = 0; i < items.length; i += size) {
    if (i > 0) await slice.pause();
    const c = feed(items.slice(i, i + size));
    n.accepted += c.accepted;
    n.rejected += c.rejected;
    n.untracked += c.untracked;
  }
  return n;
}

/** The state of one loop: its time, its counters and the clocks of the model part and of each step. */
interface Run {
  nowMs: number;
  /** Microseconds, the model's time unit. */
  now: number;
  stats: LoopStats;
  /** Turns of the event loop between the loop's synchronous stretches. */
  slice: TimeSlice;
  timed<T>(f: () => T): T;
  phase(name: keyof LoopStats['phaseMs']): void;
  finish(): LoopStats;
}

function startRun(nowMs: number, sliceBudgetMs: number): Run {
  const t0 = performance.now();
  let modelMs = 0;
  let mark = t0;
  const stats: LoopStats = { vpas: 0, trackedPods: 0, trackedContainers: 0, samplesAccepted: 0, samplesRejected: 0, ooms: 0, statusWrites: 0, checkpointWrites: 0, checkpointDeletes: 0, events: 0, modelMs: 0, totalMs: 0, phaseMs: { feed: 0, update: 0, checkpoints: 0, gc: 0 } };
  return {
    nowMs,
    now: nowMs * 1000,
    stats,
    slice: new TimeSlice(sliceBudgetMs),
    timed<T>(f: () => T): T {
      const s = performance.now();
      try {
        return f();
      } finally {
        modelMs += performance.now() - s;
      }
    },
    phase(name) {
      const t = performance.now();
      stats.phaseMs[name] += t - mark;
      mark = t;
    },
    finish() {
      stats.modelMs = modelMs;
      stats.totalMs = performance.now() - t0;
      return stats;
    },
  };
}

async function forEachLimit<T>(items: readonly T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

export class RecommenderLoop {
  readonly cluster: ClusterState;
  readonly feeder: ClusterFeeder;
  private initialized = false;
  private lastCheckpointGcMs = -Infinity;
  /** The failed start-up history load of this term: the message, and the VPAs it would have fed. */
  private historyUnavailable: { message: string; vpas: Set<string> } | undefined;

  constructor(
    private readonly io: RecommenderIO,
    private readonly o: LoopOptions,
  ) {
    this.cluster = new ClusterState({ config: o.settings.aggregations, gates: o.settings.gates });
    this.feeder = new ClusterFeeder(this.cluster);
  }

  /**
   * One loop, as upstream's RunOnce: load the VPAs, feed pods, usage and OOMs, update the VPAs, maintain the
   * checkpoints, collect garbage; each step is timed (LoopStats.phaseMs).
   */
  async runOnce(): Promise<LoopStats> {
    const run = startRun(Math.round(this.o.now()), this.o.sliceBudgetMs ?? SLICE_BUDGET_MS);
    const vpas = await this.loadVpas(run);
    if (!this.initialized) {
      await this.init(run, vpas);
      this.initialized = true;
    }
    await this.feedPodsUsageAndOoms(run);
    run.phase('feed');
    await this.updateVpas(run, vpas);
    run.phase('update');
    await this.maintainCheckpoints(run, vpas);
    run.phase('checkpoints');
    this.garbageCollect(run);
    run.phase('gc');
    return run.finish();
  }

  /** 1. The VPAs this recommender handles, with their target selectors, synced into the model. */
  private async loadVpas(run: Run): Promise<HandledVpa[]> {
    const selected = this.io.vpas().filter((v) => vpaSelectedByRecommender({ namespace: v.metadata.namespace ?? '', recommenders: v.spec?.recommenders }, this.o.filter));
    const targets: TargetSelection[] = new Array(selected.length);
    await forEachLimit([...selected.keys()], this.o.updateWorkers, async (i) => {
      targets[i] = await this.io.targetSelector(selected[i]!);
    });
    const withTargets = selected.map((obj, i) => ({ obj, target: targets[i]! }));
    run.timed(() => this.feeder.syncVpas(withTargets));
    run.stats.vpas = withTargets.length;
    return withTargets;
  }

  /** 2-4. Pods, current usage, OOMs into the model. */
  private async feedPodsUsageAndOoms(run: Run): Promise<void> {
    const pods = this.io.pods();
    run.stats.trackedPods = run.timed(() => this.feeder.syncPods(pods, run.now)).tracked;
    let samples: UsageSample[] = [];
    try {
      samples = await this.io.currentUsage();
    } catch (e) {
      this.o.log?.warn({ err: (e as Error).message }, 'vpa-recommender: current usage unavailable this loop');
    }
    const fed = await feedInParts(samples, USAGE_PART, run.slice, (part) => run.timed(() => this.feeder.addUsage(part)));
    const ooms = run.timed(() => this.feeder.recordOoms(this.io.takeOoms()));
    run.stats.samplesAccepted = fed.accepted;
    run.stats.samplesRejected = fed.rejected;
    run.stats.ooms = ooms.accepted;
    for (const p of this.cluster.pods.values()) run.stats.trackedContainers += p.containers.size;
  }

  /** 5. Recommendations, events and status writes for the changed ones. */
  private async updateVpas(run: Run, withTargets: HandledVpa[]): Promise<void> {
    const cpuEhpaFor = cpuEhpaIndex(this.o.splitWithEhpa ? this.io.ehpas() : []);
    const writes: { obj: VpaObject; status: VpaStatusJSON }[] = [];
    for (const { obj, target } of withTargets) {
      await run.slice.pause();
      const ns = obj.metadata.namespace ?? '';
      const state = this.cluster.vpas.get(vpaKey(ns, obj.metadata.name));
      if (!state) continue;
      const split = cpuEhpaFor(ns, obj.spec?.targetRef);
      const noHistory = this.historyUnavailable?.vpas.has(vpaKey(ns, obj.metadata.name)) ? this.historyUnavailable.message : undefined;
      const status = run.timed(() => {
        const recs = recommendForVpa(state, this.o.settings, run.now, !!split);
        return desiredVpaStatus(obj.status as VpaStatusJSON | undefined, {
          recommendation: recs,
          podsMatched: state.podCount > 0,
          configUnsupported: target.unsupported,
          splitWithEhpa: split?.metadata.name,
          historyUnavailable: noHistory,
          now: run.now,
        });
      });
      if (split && !hasTrueCondition(obj.status as VpaStatusJSON | undefined, SPLIT_CONDITION)) {
        this.io.event(obj, 'Normal', SPLIT_CONDITION, splitMessage(split.metadata.name));
        run.stats.events++;
      }
      if (run.timed(() => statusChanged(obj.status as VpaStatusJSON | undefined, status))) writes.push({ obj, status });
    }
    await forEachLimit(writes, this.o.updateWorkers, async ({ obj, status }) => {
      try {
        await this.io.writeStatus(obj, status);
        run.stats.statusWrites++;
      } catch (e) {
        this.o.log?.warn({ namespace: obj.metadata.namespace, name: obj.metadata.name, err: (e as Error).message }, 'vpa-recommender: status write failed');
      }
    });
  }

  /** 6. Checkpoints, least recently written VPA first, until the budget is spent (at least one VPA); GC of orphans. */
  private async maintainCheckpoints(run: Run, withTargets: HandledVpa[]): Promise<void> {
    const deadline = this.o.now() + this.o.checkpointsTimeoutMs;
    const handled = new Set(withTargets.map(({ obj }) => vpaKey(obj.metadata.namespace, obj.metadata.name)));
    const order = vpasInCheckpointOrder([...this.cluster.vpas.values()].filter((v) => handled.has(vpaKey(v.namespace, v.name))));
    let wroteOne = false;
    let index: ContainersByAggregate | undefined;
    for (const vpa of order) {
      if (wroteOne && this.o.now() > deadline) break;
      index ??= run.timed(() => containersByAggregate(this.cluster));
      const objs = run.timed(() => checkpointObjects(this.cluster, vpa, run.now, index));
      let ok = true;
      for (const cp of objs) {
        try {
          await this.io.writeCheckpoint(cp);
          run.stats.checkpointWrites++;
        } catch (e) {
          ok = false;
          this.o.log?.warn({ namespace: vpa.namespace, name: cp.metadata.name, err: (e as Error).message }, 'vpa-recommender: checkpoint write failed');
        }
      }
      if (ok) vpa.checkpointWritten = run.now;
      wroteOne = true;
    }
    if (run.nowMs - this.lastCheckpointGcMs >= this.o.checkpointsGcIntervalMs) {
      this.lastCheckpointGcMs = run.nowMs;
      run.stats.checkpointDeletes = await this.collectCheckpointGarbage();
    }
  }

  /** 7. Aggregates, at most hourly. */
  private garbageCollect(run: Run): void {
    run.timed(() => this.cluster.garbageCollect(run.now, AGGREGATE_GC_INTERVAL_MICROS, (pod) => this.feeder.podUnderVpa(pod.id.namespace, pod.labels)));
  }

  /** First loop of a leadership term: checkpoints, then Prometheus history for VPAs that had none. */
  private async init(run: Run, vpas: HandledVpa[]): Promise<void> {
    const { now, stats, timed } = run;
    let restored = new Set<string>();
    try {
      const cps = await this.io.checkpoints();
      const r = timed(() => loadCheckpoints(this.cluster, cps, now));
      for (const e of r.errors) this.o.log?.warn({ err: e }, 'vpa-recommender: checkpoint skipped');
      restored = r.restored;
      stats.checkpointsRestored = r.loaded;
      this.o.log?.info({ checkpoints: r.loaded, vpas: r.restored.size }, 'vpa-recommender: restored from checkpoints');
    } catch (e) {
      this.o.log?.warn({ err: (e as Error).message }, 'vpa-recommender: could not list checkpoints; starting without');
    }
    if (!this.io.history) return;
    try {
      const histories = await this.io.history();
      const live = new Map<string, Labels>();
      for (const p of this.io.pods()) live.set(`${p.metadata.namespace ?? ''}/${p.metadata.name}`, p.metadata.labels ?? {});
      // Live pods' own labels first, then the pod-labels series (upstream), then attribution by pod name.
      const labelsOf = (h: PodHistory) => live.get(`${h.namespace}/${h.pod}`) ?? h.labels ?? this.o.historyPodLabels?.(h.namespace, h.pod, vpas);
      const skip = (v: VpaState) => restored.has(vpaKey(v.namespace, v.name));
      const n = await feedInParts(histories, HISTORY_PART, run.slice, (part) => timed(() => this.feeder.feedHistory(part, now, labelsOf, skip)));
      stats.historySamples = n.accepted;
      this.o.log?.info({ pods: histories.length, samples: n.accepted, rejected: n.rejected, skippedPods: n.untracked }, 'vpa-recommender: loaded Prometheus history');
    } catch (e) {
      const cause = (e as Error).message;
      this.o.log?.warn({ err: cause }, 'vpa-recommender: Prometheus history unavailable; starting without');
      // Visible on the VPAs the history was for (those restored from a checkpoint did not need it).
      const affected = vpas.filter(({ obj }) => !restored.has(vpaKey(obj.metadata.namespace, obj.metadata.name)));
      if (affected.length === 0) return;
      const message = historyUnavailableMessage(cause);
      this.historyUnavailable = { message, vpas: new Set(affected.map(({ obj }) => vpaKey(obj.metadata.namespace, obj.metadata.name))) };
      for (const { obj } of affected) {
        this.io.event(obj, 'Warning', HISTORY_UNAVAILABLE_REASON, message);
        stats.events++;
      }
    }
  }

  private async collectCheckpointGarbage(): Promise<number> {
    let deleted = 0;
    try {
      const all = new Set(this.io.vpas().map((v) => vpaKey(v.metadata.namespace, v.metadata.name)));
      const inScope = (ns: string) => (!this.o.filter.vpaObjectNamespace || ns === this.o.filter.vpaObjectNamespace) && !this.o.filter.ignoredNamespaces?.includes(ns);
      const orphans = orphanedCheckpoints(await this.io.checkpoints(), (ns, name) => !inScope(ns) || all.has(vpaKey(ns, name)));
      for (const o of orphans) {
        await this.io.deleteCheckpoint(o.namespace, o.name);
        deleted++;
      }
    } catch (e) {
      this.o.log?.warn({ err: (e as Error).message }, 'vpa-recommender: checkpoint garbage collection failed');
    }
    return deleted;
  }
}
