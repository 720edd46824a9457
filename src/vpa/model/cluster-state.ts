// The recommender's in-memory view of pods, containers, aggregates and VPAs (upstream
// recommender/model/cluster.go + vpa.go). Containers of pods with the same labels in one namespace
// share one AggregateContainerState per container name; a VPA uses every aggregate whose namespace and
// labels it selects, plus the states it loaded from checkpoints.
import { AggregateContainerState, type ModelFeatureGates } from './aggregate-container-state.ts';
import { AggregationsConfig, defaultAggregationsConfig } from './aggregations-config.ts';
import { ContainerState, type AggregateLink } from './container-state.ts';
import type { Instant } from '../../gomath/go-time.ts';
import type { ResourceAmount } from './resource-amount.ts';
import { getContainerResourcePolicy, type PodResourcePolicy, type UpdateMode } from './vpa-types.ts';

export type Labels = Readonly<Record<string, string>>;
export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
export interface PodId {
  namespace: string;
  podName: string;
}

/** labels.Set(...).String(): sorted `k=v` pairs joined by ",". */
export function labelSetKey(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}

export interface AggregateStateKey {
  namespace: string;
  containerName: string;
  labels: Labels;
  /** namespace/containerName/labelSetKey; what maps are keyed by. */
  id: string;
}

function aggregateKey(namespace: string, containerName: string, labels: Labels, setKey: string): AggregateStateKey {
  return { namespace, containerName, labels, id: `${namespace}\u0000${containerName}\u0000${setKey}` };
}

export class PodState {
  labels: Labels = {};
  labelSetKey = '';
  phase: PodPhase = 'Running';
  readonly containers = new Map<string, ContainerState>();
  initContainers: string[] = [];
  constructor(readonly id: PodId) {}
}

/** A VPA as the model sees it: a pod selector, its policy and the aggregates it uses. */
export class VpaState {
  readonly aggregateContainerStates = new Map<string, { key: AggregateStateKey; state: AggregateContainerState }>();
  /** States loaded from checkpoints at start-up, by container name, kept for the life of the process. */
  readonly containersInitialAggregateState = new Map<string, AggregateContainerState>();
  podCount = 0;
  checkpointWritten: Instant | undefined;
  /** The selector's canonical text (labels.Selector.String()); a changed selector recreates the VPA. */
  selectorKey = '';

  constructor(
    readonly namespace: string,
    readonly name: string,
    public selector: (labels: Labels) => boolean,
    public resourcePolicy: PodResourcePolicy | undefined = undefined,
    public updateMode: UpdateMode | undefined = undefined,
    public annotations: Readonly<Record<string, string>> = {},
  ) {}

  matches(key: AggregateStateKey): boolean {
    return key.namespace === this.namespace && this.selector(key.labels);
  }

  useAggregationIfMatching(key: AggregateStateKey, state: AggregateContainerState, gates: ModelFeatureGates): void {
    if (this.aggregateContainerStates.has(key.id) || !this.matches(key)) return;
    this.aggregateContainerStates.set(key.id, { key, state });
    state.isUnderVPA = true;
    state.updateMode = this.updateMode;
    state.updateFromPolicy(getContainerResourcePolicy(key.containerName, this.resourcePolicy), gates);
  }

  /** Sets the policy and re-applies it to every aggregate in use (upstream Vpa.SetResourcePolicy). */
  setResourcePolicy(policy: PodResourcePolicy | undefined, gates: ModelFeatureGates = {}): void {
    if (policy === this.resourcePolicy) return;
    this.resourcePolicy = policy;
    for (const { key, state } of this.aggregateContainerStates.values()) {
      state.updateFromPolicy(getContainerResourcePolicy(key.containerName, policy), gates);
    }
  }

  deleteAggregation(id: string): void {
    const entry = this.aggregateContainerStates.get(id);
    if (!entry) return;
    entry.state.markNotAutoscaled();
    this.aggregateContainerStates.delete(id);
  }

  /**
   * Fresh per-container-name states merging every used aggregate, then the checkpointed states
   * (upstream AggregateStateByContainerName + MergeCheckpointedState). Aggregates merge in sorted key
   * order: upstream's Go map order is random, which can only change results in the last ulp with three or
   * more aggregates per name.
   */
  aggregateStateByContainerName(config: AggregationsConfig, now: Instant): Map<string, AggregateContainerState> {
    const out = new Map<string, AggregateContainerState>();
    const ids = this.aggregateContainerStates.size > 1 ? [...this.aggregateContainerStates.keys()].sort() : this.aggregateContainerStates.keys();
    for (const id of ids) {
      const { key, state } = this.aggregateContainerStates.get(id) as { key: AggregateStateKey; state: AggregateContainerState };
      let merged = out.get(key.containerName);
      if (!merged) {
        merged = new AggregateContainerState(config, now);
        out.set(key.containerName, merged);
      }
      merged.mergeContainerState(state);
    }
    const names = this.containersInitialAggregateState.size > 1 ? [...this.containersInitialAggregateState.keys()].sort() : this.containersInitialAggregateState.keys();
    for (const name of names) {
      let merged = out.get(name);
      if (!merged) {
        merged = new AggregateContainerState(config, now);
        out.set(name, merged);
      }
      merged.mergeContainerState(this.containersInitialAggregateState.get(name) as AggregateContainerState);
    }
    return out;
  }
}

export interface ClusterOptions {
  config?: AggregationsConfig;
  gates?: ModelFeatureGates;
}

export class ClusterState {
  readonly config: AggregationsConfig;
  readonly gates: ModelFeatureGates;
  readonly pods = new Map<string, PodState>();
  readonly aggregates = new Map<string, { key: AggregateStateKey; state: AggregateContainerState }>();
  readonly vpas = new Map<string, VpaState>();
  private lastGC: Instant = 0;

  constructor(options: ClusterOptions = {}) {
    this.config = options.config ?? defaultAggregationsConfig();
    this.gates = options.gates ?? {};
  }

  static podKey(id: PodId): string {
    return `${id.namespace}/${id.podName}`;
  }

  /**
   * Adds a VPA, or updates the tracked one with the same namespace/name (upstream AddOrUpdateVpa): when
   * its selectorKey is unchanged the existing VpaState is kept (with its checkpointed initial state) and
   * takes the new policy, update mode and annotations; when the selector changed it is replaced, which —
   * as upstream — drops the state it had loaded from checkpoints. Returns the live VpaState.
   */
  addOrUpdateVpa(vpa: VpaState): VpaState {
    const id = `${vpa.namespace}/${vpa.name}`;
    const old = this.vpas.get(id);
    if (old && old !== vpa && old.selectorKey === vpa.selectorKey && vpa.selectorKey !== '') {
      old.updateMode = vpa.updateMode;
      old.annotations = vpa.annotations;
      old.setResourcePolicy(vpa.resourcePolicy, this.gates);
      return old;
    }
    if (old === vpa) return vpa;
    if (old) this.deleteVpa(old.namespace, old.name);
    this.vpas.set(id, vpa);
    for (const { key, state } of this.aggregates.values()) vpa.useAggregationIfMatching(key, state, this.gates);
    vpa.podCount = 0;
    for (const pod of this.pods.values()) {
      if (vpa.matches(aggregateKey(pod.id.namespace, '', pod.labels, pod.labelSetKey))) vpa.podCount++;
    }
    return vpa;
  }

  deleteVpa(namespace: string, name: string): void {
    const id = `${namespace}/${name}`;
    const vpa = this.vpas.get(id);
    if (!vpa) return;
    for (const { state } of vpa.aggregateContainerStates.values()) state.markNotAutoscaled();
    this.vpas.delete(id);
  }

  /** Adds a pod or updates its labels/phase; a label change re-links its containers to other aggregates. */
  addOrUpdatePod(id: PodId, labels: Labels, phase: PodPhase): PodState {
    const k = ClusterState.podKey(id);
    let pod = this.pods.get(k);
    const exists = pod !== undefined;
    if (!pod) {
      pod = new PodState(id);
      this.pods.set(k, pod);
    }
    const setKey = labelSetKey(labels);
    if (exists && pod.labelSetKey !== setKey) this.countPod(pod, -1);
    if (!exists || pod.labelSetKey !== setKey) {
      pod.labels = { ...labels };
      pod.labelSetKey = setKey;
      this.countPod(pod, +1);
    }
    pod.phase = phase;
    return pod;
  }

  private countPod(pod: PodState, delta: number): void {
    const probe = aggregateKey(pod.id.namespace, '', pod.labels, pod.labelSetKey);
    for (const vpa of this.vpas.values()) if (vpa.matches(probe)) vpa.podCount += delta;
  }

  deletePod(id: PodId): void {
    const k = ClusterState.podKey(id);
    const pod = this.pods.get(k);
    if (pod) this.countPod(pod, -1);
    this.pods.delete(k);
  }

  /** Adds a container to an existing pod (throws when the pod is unknown). */
  addOrUpdateContainer(id: PodId, containerName: string, now: Instant, request?: ContainerState['request']): ContainerState {
    const pod = this.pods.get(ClusterState.podKey(id));
    if (!pod) throw new Error(`pod ${ClusterState.podKey(id)} does not exist`);
    let c = pod.containers.get(containerName);
    if (c) {
      c.request = request;
      return c;
    }
    this.findOrCreateAggregate(pod, containerName, now);
    c = new ContainerState(this.linkFor(pod, containerName, now), request);
    pod.containers.set(containerName, c);
    return c;
  }

  getContainer(id: PodId, containerName: string): ContainerState | undefined {
    return this.pods.get(ClusterState.podKey(id))?.containers.get(containerName);
  }

  /** Upstream's ContainerStateAggregatorProxy: resolves the pod's current aggregate, re-creating it after GC. */
  private linkFor(pod: PodState, containerName: string, creation: Instant): AggregateLink {
    let cachedKey = '';
    let cached: AggregateContainerState | undefined;
    return {
      aggregate: () => {
        if (cached && !cached.removed && cachedKey === pod.labelSetKey) return cached;
        cached = this.findOrCreateAggregate(pod, containerName, creation);
        cachedKey = pod.labelSetKey;
        return cached;
      },
    };
  }

  makeAggregateStateKey(pod: PodState, containerName: string): AggregateStateKey {
    return aggregateKey(pod.id.namespace, containerName, pod.labels, pod.labelSetKey);
  }

  private findOrCreateAggregate(pod: PodState, containerName: string, now: Instant): AggregateContainerState {
    const key = this.makeAggregateStateKey(pod, containerName);
    const found = this.aggregates.get(key.id);
    if (found) return found.state;
    const state = new AggregateContainerState(this.config, now);
    this.aggregates.set(key.id, { key, state });
    for (const vpa of this.vpas.values()) vpa.useAggregationIfMatching(key, state, this.gates);
    return state;
  }

  /**
   * Drops aggregates that are expired, or empty and not contributive (no active pod uses the key and
   * `controllerExists` says the pod's controller is gone). Upstream runs this at most once per `interval`.
   */
  garbageCollect(now: Instant, interval: number, controllerExists: (pod: PodState) => boolean = () => true): void {
    if (now - this.lastGC < interval) return;
    this.lastGC = now;
    const contributive = new Set<string>();
    for (const pod of this.pods.values()) {
      const active = pod.phase !== 'Succeeded' && pod.phase !== 'Failed';
      if (active || controllerExists(pod)) {
        for (const name of pod.containers.keys()) contributive.add(this.makeAggregateStateKey(pod, name).id);
      }
    }
    for (const [id, { state }] of [...this.aggregates]) {
      if ((!contributive.has(id) && state.isEmpty()) || state.isExpired(now)) {
        state.removed = true;
        this.aggregates.delete(id);
        for (const vpa of this.vpas.values()) vpa.deleteAggregation(id);
      }
    }
  }

  addCPUSample(id: PodId, containerName: string, millicores: ResourceAmount, time: Instant): boolean {
    const c = this.getContainer(id, containerName);
    if (!c) throw new Error(`container ${ClusterState.podKey(id)}/${containerName} does not exist`);
    return c.addCPUSample(millicores, time);
  }

  addMemorySample(id: PodId, containerName: string, bytes: ResourceAmount, time: Instant): boolean {
    const c = this.getContainer(id, containerName);
    if (!c) throw new Error(`container ${ClusterState.podKey(id)}/${containerName} does not exist`);
    return c.addMemorySample(bytes, time);
  }

  /** Throws when the container is unknown or the OOM is too old. */
  recordOOM(id: PodId, containerName: string, time: Instant, requestedMemory: ResourceAmount): void {
    const c = this.getContainer(id, containerName);
    if (!c) throw new Error(`container ${ClusterState.podKey(id)}/${containerName} does not exist`);
    c.recordOOM(time, requestedMemory);
  }

  /**
   * The per-container-name states a checkpoint is written from (checkpoint_writer.go): merged like for
   * a recommendation, minus each tracked container's in-progress window peak (so a restart does not count
   * it twice).
   */
  checkpointStates(vpa: VpaState, now: Instant): Map<string, AggregateContainerState> {
    const states = vpa.aggregateStateByContainerName(this.config, now);
    // Sorted, so the order of the subtractions (which can matter in the last ulp) is reproducible;
    // upstream walks Go maps in random order here.
    for (const podKey of [...this.pods.keys()].sort()) {
      const pod = this.pods.get(podKey) as PodState;
      for (const name of [...pod.containers.keys()].sort()) {
        const container = pod.containers.get(name) as ContainerState;
        const key = this.makeAggregateStateKey(pod, name);
        if (!vpa.aggregateContainerStates.has(key.id)) continue;
        const merged = states.get(name);
        if (merged && now < container.windowEnd) merged.subtractMemoryPeak(container.getMaxMemoryPeak(), container.windowEnd);
      }
    }
    return states;
  }
}

/**
 * routines.GetContainerNameToAggregateStateMap: the VPA's per-name states with mode-Off containers
 * dropped and every other one updated from its container policy.
 */
export function containerNameToAggregateStateMap(
  vpa: VpaState,
  config: AggregationsConfig,
  now: Instant,
  gates: ModelFeatureGates = {},
): Map<string, AggregateContainerState> {
  const out = new Map<string, AggregateContainerState>();
  for (const [name, state] of vpa.aggregateStateByContainerName(config, now)) {
    const policy = getContainerResourcePolicy(name, vpa.resourcePolicy);
    if (policy?.mode === 'Off') continue;
    state.updateFromPolicy(policy, gates);
    out.set(name, state);
  }
  return out;
}

/** VPAs in checkpoint-writing order: least recently written first, never-written ones before all. */
export function vpasInCheckpointOrder(vpas: Iterable<VpaState>): VpaState[] {
  return [...vpas].sort((a, b) => (a.checkpointWritten ?? -Infinity) - (b.checkpointWritten ?? -Infinity));
}
