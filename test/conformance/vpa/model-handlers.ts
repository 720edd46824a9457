// Conformance handlers (see ../vpa-vectors.test.ts); kinds: aggregate/container state, cluster GC, conditions, inputs, checkpoint writer.
import { expect } from 'chai';
import {
  AggregateContainerState,
  AggregationsConfig,
  ClusterState,
  ContainerState,
  DecayingHistogram,
  MICROS_PER_HOUR,
  VpaConditions,
  VpaState,
  bytesFromMemoryAmount,
  coresFromCPUAmount,
  cpuAmountFromCores,
  formatInstant,
  memoryAmountFromBytes,
  parseInstant,
  vpasInCheckpointOrder,
  type Instant,
} from '../../../src/vpa/model/index.ts';
import {
  historyQueries,
  memorySampleAmount,
  cpuSampleAmount,
  oomsFromEvictionEvent,
  vpaSelectedByRecommender,
} from '../../../src/vpa/input/index.ts';
import { oomBuilders } from './oom-pods.ts';
import { cpWeights, duration, offsetMicros, type Vector } from './common.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
/** A recording stand-in for the aggregate a ContainerState writes to (upstream tests mock it too). */
function recordingContainer(interval: number) {
  const t = { cpu: [] as unknown[][], memory: [] as unknown[][] };
  const fake = {
    memoryAggregationInterval: interval,
    oomMinBumpUp: 104857600,
    oomBumpUpRatio: 1.2,
    addCPUSample: (m: number, time: Instant) => t.cpu.push(['AddSample', coresFromCPUAmount(m), 0.1, time]),
    addMemoryPeak: (b: number, time: Instant) => t.memory.push(['AddSample', bytesFromMemoryAmount(b), 1.0, time]),
    subtractMemoryPeak: (b: number, time: Instant) => t.memory.push(['SubtractSample', bytesFromMemoryAmount(b), 1.0, time]),
  };
  const c = new ContainerState({ aggregate: () => fake as unknown as AggregateContainerState });
  return { c, calls: t };
}

function replayContainerEvents(v: any) {
  const interval = v.input.memoryAggregationInterval ? duration(v.input.memoryAggregationInterval) : 24 * MICROS_PER_HOUR;
  const t0 = parseInstant(v.input.t0);
  const { c, calls } = recordingContainer(interval);
  const results: boolean[] = [];
  for (const [kind, off, value] of v.input.events as [string, string, number][]) {
    const t = t0 + offsetMicros(off);
    if (kind === 'cpu') results.push(c.addCPUSample(value, t));
    else if (kind === 'memory') results.push(c.addMemorySample(value, t));
    else {
      try {
        c.recordOOM(t, value);
        results.push(true);
      } catch {
        results.push(false);
      }
    }
  }
  const rel = (list: unknown[][]) => list.map(([m, val, w, t]) => [m, val, w, (t as number) - t0]);
  const exp = (list: [string, number, number, string][]) => list.map(([m, val, w, off]) => [m, val, w, offsetMicros(off)]);
  return { results, cpu: rel(calls.cpu), memory: rel(calls.memory), exp };
}

function recommendationAt(cluster: ClusterState, vpa: VpaState, pod: string, container: string, now: Instant) {
  const id = { namespace: 'ns', podName: pod };
  if (!cluster.pods.has(ClusterState.podKey(id))) cluster.addOrUpdatePod(id, { app: 'x' }, 'Running');
  if (!cluster.getContainer(id, container)) cluster.addOrUpdateContainer(id, container, now);
  return { id, state: vpa };
}


export const MODEL_HANDLERS: Record<string, (v: Vector) => void> = {
  aggregate_is_expired(v) {
    const base = v.input.lastSampleStartOrCreation ? parseInstant(v.input.lastSampleStartOrCreation) : parseInstant('2017-04-18T17:35:05Z');
    const config = new AggregationsConfig({
      memoryAggregationInterval: duration(v.input.memoryAggregationInterval),
      memoryAggregationIntervalCount: v.input.memoryAggregationIntervalCount,
    });
    const got = v.input.checks.map((c: any) => {
      const s = new AggregateContainerState(config, base);
      if (c.totalSamplesCount > 0) s.addCPUSample(1000, base);
      return s.isExpired(base + offsetMicros(c.now));
    });
    expect(got).to.deep.equal(v.expected.expired);
  },
  aggregate_checkpoint_save(v) {
    const t = { t1: parseInstant(v.input.t1), t2: parseInstant(v.input.t2) } as Record<string, Instant>;
    const s = new AggregateContainerState();
    s.firstSampleStart = t[v.input.firstSampleStart]!;
    s.lastSampleStart = t[v.input.lastSampleStart]!;
    s.totalSamplesCount = v.input.totalSamplesCount;
    for (const x of v.input.cpuSamples) s.aggregateCPUUsage.addSample(x.value, x.weight, t[x.time]!);
    for (const x of v.input.memorySamples) s.aggregateMemoryPeaks.addSample(x.value, x.weight, t[x.time]!);
    const cp = s.saveToCheckpoint(0);
    expect(cp.version).to.equal(v.expected.version);
    expect(cp.totalSamplesCount).to.equal(v.expected.totalSamplesCount);
    expect(cp.cpuHistogram.bucketWeights.size).to.equal(v.expected.cpuBucketCount);
    expect(cp.memoryHistogram.bucketWeights.size).to.equal(v.expected.memoryBucketCount);
    const exact = v.expected.exact_from_executing_upstream_code;
    for (const [h, e] of [
      [cp.cpuHistogram, exact.cpuHistogram],
      [cp.memoryHistogram, exact.memoryHistogram],
    ] as const) {
      expect(cpWeights(h.bucketWeights)).to.deep.equal(e.bucketWeights);
      expect(h.totalWeight).to.equal(e.totalWeight);
      expect(formatInstant(h.referenceTimestamp!)).to.equal(e.referenceTimestamp);
    }
  },
  aggregate_checkpoint_load(v) {
    const s = new AggregateContainerState();
    const i = v.input;
    const hist = (x: any) => (x ? { totalWeight: x.totalWeight, bucketWeights: new Map(Object.entries(x.bucketWeights).map(([k, w]) => [Number(k), w as number])) } : { totalWeight: 0, bucketWeights: new Map() });
    let error = false;
    try {
      s.loadFromCheckpoint({
        version: i.version,
        lastUpdateTime: 0,
        firstSampleStart: i.firstSampleStart ? parseInstant(i.firstSampleStart) : 0,
        lastSampleStart: i.lastSampleStart ? parseInstant(i.lastSampleStart) : 0,
        totalSamplesCount: i.totalSamplesCount ?? 0,
        cpuHistogram: hist(i.cpuHistogram),
        memoryHistogram: hist(i.memoryHistogram),
      });
    } catch {
      error = true;
    }
    expect(error).to.equal(v.expected.error);
    if (error) return;
    expect(formatInstant(s.firstSampleStart)).to.equal(v.expected.firstSampleStart);
    expect(formatInstant(s.lastSampleStart)).to.equal(v.expected.lastSampleStart);
    expect(s.totalSamplesCount).to.equal(v.expected.totalSamplesCount);
    expect(s.aggregateCPUUsage.isEmpty()).to.equal(v.expected.cpuIsEmpty);
    expect(s.aggregateMemoryPeaks.isEmpty()).to.equal(v.expected.memoryIsEmpty);
  },
  update_from_policy(v) {
    const s = new AggregateContainerState();
    s.updateFromPolicy(v.input.policy, { perVPAConfig: v.input.perVPAConfigFeatureGate ?? false });
    const e = v.expected;
    if (e.scalingMode !== undefined) expect(s.scalingMode).to.equal(e.scalingMode);
    if (e.controlledResources !== undefined) expect(s.getControlledResources()).to.deep.equal(e.controlledResources);
    if (e.memoryAggregationInterval !== undefined) expect(s.memoryAggregationInterval).to.equal(duration(e.memoryAggregationInterval));
    if (e.memoryAggregationIntervalCount !== undefined) expect(s.memoryAggregationIntervalCount).to.equal(e.memoryAggregationIntervalCount);
  },
  aggregate_by_container_name(v) {
    const t = parseInstant(v.input.timestamp);
    const cluster = new ClusterState();
    const vpa = new VpaState('ns', 'vpa', () => true);
    cluster.addOrUpdateVpa(vpa);
    for (const [pod, container, cores, bytes] of v.input.samples) {
      const { id } = recommendationAt(cluster, vpa, pod, container, t);
      cluster.addCPUSample(id, container, cpuAmountFromCores(cores), t);
      cluster.addMemorySample(id, container, memoryAmountFromBytes(bytes), t);
    }
    const byName = vpa.aggregateStateByContainerName(cluster.config, t);
    const counts = Object.fromEntries([...byName].map(([n, s]) => [n, s.totalSamplesCount]));
    expect(counts).to.deep.equal(v.expected.totalSamplesCount);
    // "two peaks 2e9 and 4e9, weight 1 each, at timestamp+24h (WindowEnd)"
    const ref = new DecayingHistogram(cluster.config.memoryHistogramOptions, cluster.config.memoryHistogramDecayHalfLife);
    ref.addSample(2e9, 1, t + 24 * MICROS_PER_HOUR);
    ref.addSample(4e9, 1, t + 24 * MICROS_PER_HOUR);
    expect(byName.get('app-A')!.aggregateMemoryPeaks.equals(ref)).to.equal(true);
  },
  container_samples(v) {
    const r = replayContainerEvents(v);
    if (v.expected.accepted) expect(r.results).to.deep.equal(v.expected.accepted);
    if (v.expected.cpuHistogramCalls) expect(r.cpu).to.deep.equal(r.exp(v.expected.cpuHistogramCalls));
    expect(r.memory).to.deep.equal(r.exp(v.expected.memoryHistogramCalls));
  },
  container_oom(v) {
    const r = replayContainerEvents(v);
    expect(r.results.map((ok) => !ok)).to.deep.equal(v.expected.errors);
    if (v.expected.memoryHistogramCalls) expect(r.memory).to.deep.equal(r.exp(v.expected.memoryHistogramCalls));
  },
  cluster_gc(v) {
    const i = v.input;
    const sampleTime = parseInstant(i.sampleTime ?? '2017-04-18T17:35:05Z');
    const id = { namespace: 'ns', podName: 'pod' };
    const setup = (phase: 'Running' | 'Succeeded', creation: Instant) => {
      const cluster = new ClusterState();
      const vpa = new VpaState('ns', 'vpa', () => true);
      cluster.addOrUpdateVpa(vpa);
      cluster.addOrUpdatePod(id, { app: 'x' }, phase);
      cluster.addOrUpdateContainer(id, 'c', creation);
      return cluster;
    };
    let deleted: boolean[];
    if (i.podPhases) {
      deleted = i.podPhases.map((phase: 'Running' | 'Succeeded') => {
        const c = setup(phase, sampleTime);
        c.garbageCollect(sampleTime, 0, () => i.controllerExists);
        return c.aggregates.size === 0;
      });
    } else if (i.gcInterval) {
      const gcInterval = duration(i.gcInterval);
      const first = sampleTime + offsetMicros('+9d');
      const c = setup('Running', first);
      deleted = [];
      c.garbageCollect(first, gcInterval);
      deleted.push(c.aggregates.size === 0);
      c.addCPUSample(id, 'c', 1000, sampleTime);
      for (const off of ['+9d+30s', '+9d+2m']) {
        c.garbageCollect(sampleTime + offsetMicros(off), gcInterval);
        deleted.push(c.aggregates.size === 0);
      }
    } else {
      deleted = i.checks.map((check: string) => {
        const withSample = !check.startsWith('creation');
        const c = setup('Running', sampleTime);
        if (withSample) c.addCPUSample(id, 'c', 1000, sampleTime);
        c.garbageCollect(sampleTime + offsetMicros(check.replace('creation', '')), 0);
        return c.aggregates.size === 0;
      });
    }
    expect(deleted).to.deep.equal(v.expected.deleted);
  },
  vpa_conditions(v) {
    const c = new VpaConditions();
    c.update(v.input.podsMatched, v.input.hasRecommendation, 0);
    const got = c.asList().map(({ type, status, reason, message }) => ({ type, status, reason, message }));
    const sortByType = (xs: any[]) => [...xs].sort((a, b) => (a.type < b.type ? -1 : 1));
    expect(got).to.deep.equal(sortByType(v.expected.conditions));
    for (const t of v.expected.absent) expect(c.get(t)).to.equal(undefined);
  },
  filter_vpas(v) {
    const sel = v.input.vpas
      .map((vpa: any, idx: number) => (vpaSelectedByRecommender(vpa, { recommenderName: v.input.recommenderName, ignoredNamespaces: v.input.ignoredNamespaces }) ? idx : -1))
      .filter((idx: number) => idx >= 0);
    expect(sel).to.deep.equal(v.expected.selectedIndexes);
  },
  oom_observer(v) {
    const key = `${v.input.oldContainerState}|${v.input.newContainerState}`;
    const build = oomBuilders[key];
    if (!build) expect.fail(`no pod builder for ${key}`);
    const got = build(v.input.specRequestMemory);
    const e = v.expected.oomInfo;
    if (e === null) expect(got).to.deep.equal([]);
    else expect(got.map((o) => ({ ...o, timestamp: formatInstant(o.timestamp) }))).to.deep.equal([{ ...e }].map((x) => ({ namespace: x.namespace, pod: x.pod, container: x.container, memoryBytes: x.memoryBytes, timestamp: x.timestamp })));
  },
  eviction_event(v) {
    const got = v.input.map((ev: any) =>
      oomsFromEvictionEvent({ reason: 'Evicted', involvedObject: { kind: 'Pod', name: 'pod', namespace: 'ns' }, metadata: { annotations: ev.annotations } }).map((o) => ({
        container: o.container,
        memoryBytes: o.memoryBytes,
      })),
    );
    expect(got).to.deep.equal(v.expected);
  },
  prometheus_queries(v) {
    const i = v.input;
    const cfg = {
      cadvisorMetricsJobName: i.jobName,
      ctrPodNameLabel: i.ctrPodNameLabel,
      ctrNameLabel: i.ctrNameLabel,
      ctrNamespaceLabel: i.ctrNamespaceLabel,
      historyResolution: i.historyResolution,
      cpuMetricName: i.cpuMetric,
      memoryMetricName: i.memoryMetric,
      podLabelsMetricName: i.podLabelsMetricName,
      podNamespaceLabel: 'kubernetes_namespace',
      podNameLabel: 'kubernetes_pod_name',
      podLabelPrefix: 'pod_label_',
    };
    const q = historyQueries(cfg);
    expect(q.cpu).to.equal(v.expected.cpuQuery);
    expect(q.memory).to.equal(v.expected.memoryQuery);
    expect(q.labels).to.equal(v.expected.labelsQuery);
    const nsq = historyQueries({ ...cfg, namespace: 'kube-system' });
    expect(nsq.cpu).to.equal(v.expected['cpuNamespacedQuery(namespace=kube-system)']);
    expect(nsq.memory).to.equal(v.expected['memoryNamespacedQuery(namespace=kube-system)']);
  },
  prometheus_samples(v) {
    const got = v.input.map((s: any) => ({ usage: s.resource === 'cpu' ? cpuSampleAmount(s.value) : memorySampleAmount(s.value) }));
    expect(got).to.deep.equal(v.expected);
  },
  checkpoint_writer(v) {
    if (v.input.vpas) {
      const vpas = v.input.vpas.map((x: any) => {
        const s = new VpaState('ns', x.name, () => true);
        if (x.checkpointWritten) s.checkpointWritten = parseInstant(x.checkpointWritten);
        return s;
      });
      expect(vpasInCheckpointOrder(vpas).map((s) => s.name)).to.deep.equal(v.expected.order);
      return;
    }
    const got = v.input.checks.map((check: string) => {
      const cluster = new ClusterState();
      const vpa = new VpaState('ns', 'vpa', () => true);
      cluster.addOrUpdateVpa(vpa);
      const t = parseInstant(v.input.memorySample.time);
      const { id } = recommendationAt(cluster, vpa, 'pod', 'c', t);
      cluster.addMemorySample(id, 'c', v.input.memorySample.bytes, t);
      const now = parseInstant(check.replace('now=', ''));
      return cluster.checkpointStates(vpa, now).get('c')!.aggregateMemoryPeaks.isEmpty();
    });
    expect(got).to.deep.equal(v.expected.memoryHistogramEmpty);
  },
};
