// Feeds the recommender's ClusterState from API objects and samples (upstream input/cluster_feeder.go):
// VPAs with their resolved selectors, the pods those VPAs select (only those: memory-saver mode is the
// only mode here), current usage samples, OOM kills and, at start-up, Prometheus history. Pure: every
// input is an argument, time included.
import { ClusterState, VpaState, type Labels, type PodId, type PodPhase } from '../model/cluster-state.ts';
import type { Instant } from '../../gomath/go-time.ts';
import type { PodResourcePolicy, UpdateMode } from '../model/vpa-types.ts';
import { parseQuantity } from '../../quantity/index.ts';
import type { OomInfo } from './oom-observer.ts';

/** A VPA as the API serves it (the fields the loop reads). */
export interface VpaObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; uid?: string; generation?: number; resourceVersion?: string; annotations?: Record<string, string> };
  spec?: {
    targetRef?: { apiVersion?: string; kind?: string; name?: string };
    updatePolicy?: { updateMode?: UpdateMode };
    resourcePolicy?: PodResourcePolicy;
    recommenders?: { name: string }[];
  };
  status?: Record<string, unknown>;
}

export interface PodObject {
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; resourceVersion?: string };
  spec?: { containers?: { name: string; resources?: { requests?: Record<string, string> } }[]; initContainers?: { name: string }[] };
  status?: { phase?: string };
}

/** What resolving a VPA's targetRef gave. */
export interface TargetSelection {
  /** Pod selector; undefined when the target could not be resolved (the VPA then selects nothing). */
  selector?: (labels: Labels) => boolean;
  /** Identity of the selector, so an unchanged VPA is not re-linked every loop. */
  selectorKey: string;
  /** Labels the selector requires by equality: given to history pods attributed to this VPA by name. */
  equalityLabels?: Labels;
  /** ConfigUnsupported message when the target is unusable. */
  unsupported?: string;
}

export interface UsageSample {
  namespace: string;
  pod: string;
  container: string;
  /** Millicores (already converted, e.g. MilliValue rounding up). */
  cpuMillicores?: number;
  /** Bytes. */
  memoryBytes?: number;
  time: Instant;
}

/** One pod's history at start-up: per container, time-sorted CPU (millicores) and memory (bytes) samples. */
export interface PodHistory {
  namespace: string;
  pod: string;
  containers: Map<string, { cpu: [Instant, number][]; memory: [Instant, number][] }>;
  /** The pod's last labels from the pod-labels series (upstream's `LastLabels`), when that query found it. */
  labels?: Labels;
}

export function vpaKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

function requestAmounts(requests: Record<string, string> | undefined): { cpu?: number; memory?: number } | undefined {
  if (!requests) return undefined;
  const out: { cpu?: number; memory?: number } = {};
  try {
    if (requests.cpu !== undefined) out.cpu = parseQuantity(requests.cpu).milliValue();
    if (requests.memory !== undefined) out.memory = parseQuantity(requests.memory).value();
  } catch {
    // A malformed request is informational only here; the API server would not have admitted it anyway.
  }
  return out;
}

const PHASES = new Set<string>(['Running', 'Succeeded', 'Failed', 'Unknown']);

export interface FeedCounts {
  accepted: number;
  rejected: number;
  /** Samples or OOMs for containers the model does not track (not under a VPA). */
  untracked: number;
}

function count(n: FeedCounts, accepted: boolean): void {
  if (accepted) n.accepted++;
  else n.rejected++;
}

export class ClusterFeeder {
  private readonly fingerprints = new Map<string, string>();
  private readonly byNamespace = new Map<string, VpaState[]>();
  /** resourceVersion of each tracked pod when it was last applied. */
  private readonly podVersions = new Map<string, string>();
  private vpasChanged = true;

  constructor(readonly cluster: ClusterState) {}

  /** Adds, updates (only when spec, annotations or selector changed) and removes VPAs. */
  syncVpas(vpas: readonly { obj: VpaObject; target: TargetSelection }[]): void {
    const seen = new Set<string>();
    for (const { obj, target } of vpas) {
      const ns = obj.metadata.namespace ?? '';
      const key = vpaKey(ns, obj.metadata.name);
      seen.add(key);
      const fp = JSON.stringify([obj.metadata.generation ?? obj.spec ?? null, obj.metadata.annotations ?? null, target.selectorKey]);
      if (this.fingerprints.get(key) === fp && this.cluster.vpas.has(key)) continue;
      const old = this.cluster.vpas.get(key);
      const state = new VpaState(ns, obj.metadata.name, target.selector ?? (() => false), obj.spec?.resourcePolicy, obj.spec?.updatePolicy?.updateMode, obj.metadata.annotations ?? {});
      if (old) {
        // Checkpointed state is loaded once per process and must survive spec updates.
        for (const [n, s] of old.containersInitialAggregateState) state.containersInitialAggregateState.set(n, s);
        state.checkpointWritten = old.checkpointWritten;
      }
      this.cluster.addOrUpdateVpa(state);
      this.fingerprints.set(key, fp);
      this.vpasChanged = true;
    }
    for (const [key, state] of [...this.cluster.vpas]) {
      if (seen.has(key)) continue;
      for (const id of [...state.aggregateContainerStates.keys()]) state.deleteAggregation(id);
      this.cluster.vpas.delete(key);
      this.fingerprints.delete(key);
      this.vpasChanged = true;
    }
    if (this.vpasChanged) {
      this.byNamespace.clear();
      for (const v of this.cluster.vpas.values()) {
        let l = this.byNamespace.get(v.namespace);
        if (!l) this.byNamespace.set(v.namespace, (l = []));
        l.push(v);
      }
    }
  }

  matchingVpas(namespace: string, labels: Labels): VpaState[] {
    return (this.byNamespace.get(namespace) ?? []).filter((v) => v.selector(labels));
  }

  private underSomeVpa(namespace: string, labels: Labels): boolean {
    for (const v of this.byNamespace.get(namespace) ?? []) if (v.selector(labels)) return true;
    return false;
  }

  /**
   * Tracks the non-Pending pods some VPA selects and forgets every other pod. A pod whose
   * resourceVersion did not change since the last loop is skipped (nothing about it can have changed),
   * unless the VPAs changed.
   */
  syncPods(pods: readonly PodObject[], now: Instant): { tracked: number } {
    const seen = new Set<string>();
    const recheck = this.vpasChanged;
    this.vpasChanged = false;
    for (const pod of pods) {
      const phase = pod.status?.phase ?? '';
      if (!PHASES.has(phase)) continue; // Pending (or no status yet): upstream's informer excludes these.
      const namespace = pod.metadata.namespace ?? '';
      const id: PodId = { namespace, podName: pod.metadata.name };
      const key = ClusterState.podKey(id);
      const rv = pod.metadata.resourceVersion;
      if (!recheck && rv !== undefined && this.podVersions.get(key) === rv && this.cluster.pods.has(key)) {
        seen.add(key);
        continue;
      }
      const labels = pod.metadata.labels ?? {};
      if (!this.underSomeVpa(namespace, labels)) continue;
      seen.add(key);
      const state = this.cluster.addOrUpdatePod(id, labels, phase as PodPhase);
      for (const c of pod.spec?.containers ?? []) this.cluster.addOrUpdateContainer(id, c.name, now, requestAmounts(c.resources?.requests));
      state.initContainers = (pod.spec?.initContainers ?? []).map((c) => c.name);
      if (rv !== undefined) this.podVersions.set(key, rv);
    }
    for (const key of [...this.cluster.pods.keys()]) {
      if (seen.has(key)) continue;
      const p = this.cluster.pods.get(key)!;
      this.cluster.deletePod(p.id);
      this.podVersions.delete(key);
    }
    return { tracked: seen.size };
  }

  /** Current usage; samples of untracked containers are dropped (only pods under a VPA are modelled). */
  addUsage(samples: Iterable<UsageSample>): FeedCounts {
    const n: FeedCounts = { accepted: 0, rejected: 0, untracked: 0 };
    for (const s of samples) {
      const c = this.cluster.getContainer({ namespace: s.namespace, podName: s.pod }, s.container);
      if (!c) {
        n.untracked++;
        continue;
      }
      if (s.cpuMillicores !== undefined) count(n, c.addCPUSample(s.cpuMillicores, s.time));
      if (s.memoryBytes !== undefined) count(n, c.addMemorySample(s.memoryBytes, s.time));
    }
    return n;
  }

  recordOoms(ooms: Iterable<OomInfo>): FeedCounts {
    const n: FeedCounts = { accepted: 0, rejected: 0, untracked: 0 };
    for (const o of ooms) {
      const c = this.cluster.getContainer({ namespace: o.namespace, podName: o.pod }, o.container);
      if (!c) {
        n.untracked++;
        continue;
      }
      try {
        c.recordOOM(o.timestamp, o.memoryBytes);
        n.accepted++;
      } catch {
        n.rejected++; // too old, like upstream's "OOM event will be discarded"
      }
    }
    return n;
  }

  /**
   * Start-up history. `labelsOf` gives a history pod's labels (a live pod's, or those of the VPA it is
   * attributed to by name) or undefined to drop it; `skip` drops pods whose every selecting VPA was
   * restored from checkpoints (so nothing is counted twice). The pods are added as Unknown and go
   * away at the next pod sync unless they are live; their aggregates stay, like upstream.
   */
  feedHistory(histories: Iterable<PodHistory>, now: Instant, labelsOf: (history: PodHistory) => Labels | undefined, skip: (vpa: VpaState) => boolean): FeedCounts {
    const n: FeedCounts = { accepted: 0, rejected: 0, untracked: 0 };
    for (const h of histories) {
      const id: PodId = { namespace: h.namespace, podName: h.pod };
      const existing = this.cluster.pods.get(ClusterState.podKey(id));
      const labels = existing?.labels ?? labelsOf(h);
      const vpas = labels ? this.matchingVpas(h.namespace, labels) : [];
      if (!labels || vpas.length === 0 || vpas.every(skip)) {
        n.untracked++;
        continue;
      }
      if (!existing) this.cluster.addOrUpdatePod(id, labels, 'Unknown');
      for (const [name, series] of h.containers) {
        const c = this.cluster.getContainer(id, name) ?? this.cluster.addOrUpdateContainer(id, name, now);
        for (const [t, v] of series.cpu) count(n, c.addCPUSample(v, t));
        for (const [t, v] of series.memory) count(n, c.addMemorySample(v, t));
      }
    }
    return n;
  }

  /** For aggregate GC: a finished pod still counts while some VPA selects it. */
  podUnderVpa(namespace: string, labels: Labels): boolean {
    return this.underSomeVpa(namespace, labels);
  }
}
