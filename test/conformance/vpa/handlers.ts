// One handler per vector kind of shared/conformance/vpa-vectors.json (format: spec §8). Each replays the
// vector's input through our core and asserts the expected values exactly.
import { expect } from 'chai';
import {
  AggregateContainerState,
  AggregationsConfig,
  ClusterState,
  ContainerState,
  DecayingHistogram,
  ExponentialHistogramOptions,
  Histogram,
  LinearHistogramOptions,
  MICROS_PER_HOUR,
  VpaConditions,
  VpaState,
  bytesFromMemoryAmount,
  coresFromCPUAmount,
  cpuAmountFromCores,
  defaultAggregationsConfig,
  formatInstant,
  memoryAmountFromBytes,
  parseInstant,
  roundTime,
  roundUpToScale,
  scaleResource,
  vpasInCheckpointOrder,
  type HistogramOptions,
  type Instant,
} from '../../../src/vpa/model/index.ts';
import {
  PodResourceRecommender,
  DEFAULT_RECOMMENDATION_CONFIG,
  applyVPAPolicy,
  extractContainerName,
  getConfidence,
  humanizeMemoryQuantity,
  integerCPUPostProcess,
  mapToListOfRecommendedContainerResources,
  percentileCPUEstimator,
  percentileMemoryEstimator,
  resourcesAsResourceList,
  withConfidenceMultiplier,
  withMargin,
  withMinResource,
  type ContainerRecommendation,
  type Estimator,
  type QuantityList,
} from '../../../src/vpa/logic/index.ts';
import { Quantity } from '../../../src/quantity/index.ts';
import { historyQueries, memorySampleAmount, cpuSampleAmount, oomsFromEvictionEvent, vpaSelectedByRecommender } from '../../../src/vpa/input/index.ts';
import { oomBuilders } from './oom-pods.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
export interface Vector {
  source: string;
  description: string;
  kind: string;
  input: any;
  expected: any;
}

const num = (x: unknown): number => Number(x);

/** '+24h', '-30h', '+30m', '+24h-1s', '+7d', 'creation+9d' -> microseconds. */
export function offsetMicros(text: string): number {
  const units: Record<string, number> = { d: 86400e6, h: 3600e6, m: 60e6, s: 1e6 };
  let total = 0;
  for (const m of text.matchAll(/([+-])(\d+)(d|h|m|s)/g)) total += (m[1] === '-' ? -1 : 1) * Number(m[2]) * (units[m[3] as string] as number);
  return total;
}

function duration(text: string): number {
  return offsetMicros(text.startsWith('+') || text.startsWith('-') ? text : `+${text}`);
}

const optionsCache = new Map<string, HistogramOptions>();

/** Options objects are shared per layout: like upstream, histograms merge only with identical options. */
function options(o: any): HistogramOptions {
  const key = JSON.stringify(o);
  let opts = optionsCache.get(key);
  if (!opts) {
    opts = o.type === 'linear' ? new LinearHistogramOptions(o.maxValue, o.bucketSize, o.epsilon) : new ExponentialHistogramOptions(o.maxValue, o.firstBucketSize, o.ratio, o.epsilon);
    optionsCache.set(key, opts);
  }
  return opts;
}

function defaultOptions(which: string): HistogramOptions {
  const c = defaultAggregationsConfig();
  return which === 'cpu' ? c.cpuHistogramOptions : c.memoryHistogramOptions;
}

function checkPercentiles(h: Histogram, expected: Record<string, number>): void {
  for (const [p, v] of Object.entries(expected)) expect(h.percentile(Number(p)), `percentile ${p}`).to.equal(num(v));
}

function cpWeights(m: Map<number, number>): Record<string, number> {
  return Object.fromEntries([...m].map(([k, v]) => [String(k), v]));
}

function cpFromJSON(cp: any): { totalWeight: number; bucketWeights: Map<number, number>; referenceTimestamp?: Instant } | null {
  if (cp === null) return null;
  const out: { totalWeight: number; bucketWeights: Map<number, number>; referenceTimestamp?: Instant } = {
    totalWeight: cp.totalWeight,
    bucketWeights: new Map(Object.entries(cp.bucketWeights ?? {}).map(([k, v]) => [Number(k), v as number])),
  };
  if (cp.referenceTimestamp) out.referenceTimestamp = parseInstant(cp.referenceTimestamp);
  return out;
}

function decaying(v: any, samples: any[]): DecayingHistogram {
  const h = new DecayingHistogram(options(v.options), duration(v.halfLife));
  for (const s of samples) h.addSample(s.value, s.weight, parseInstant(s.time));
  return h;
}

const constEstimator = (x: number): Estimator => () => x;

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

function quantityList(pair: [string, string] | undefined): QuantityList {
  const out: QuantityList = new Map();
  if (pair) {
    out.set('cpu', Quantity.parse(pair[0]));
    out.set('memory', Quantity.parse(pair[1]));
  }
  return out;
}

function listPair(l: QuantityList): [string, string] {
  return [l.get('cpu')!.toString(), l.get('memory')!.toString()];
}

function resourceListFromJSON(r: Record<string, string> | null): QuantityList | undefined {
  if (!r) return undefined;
  return new Map(Object.entries(r).map(([k, s]) => [k, Quantity.parse(s)]));
}

function recommendationAt(cluster: ClusterState, vpa: VpaState, pod: string, container: string, now: Instant) {
  const id = { namespace: 'ns', podName: pod };
  if (!cluster.pods.has(ClusterState.podKey(id))) cluster.addOrUpdatePod(id, { app: 'x' }, 'Running');
  if (!cluster.getContainer(id, container)) cluster.addOrUpdateContainer(id, container, now);
  return { id, state: vpa };
}

export const HANDLERS: Record<string, (v: Vector) => void> = {
  histogram_options(v) {
    const o = options(v.input);
    expect(o.numBuckets).to.equal(v.expected.numBuckets);
    expect(o.epsilon).to.equal(v.expected.epsilon);
    for (const [b, s] of Object.entries(v.expected.getBucketStart)) expect(o.getBucketStart(Number(b))).to.equal(s);
    for (const f of v.expected.findBucket) expect(o.findBucket(f.value), `findBucket(${f.value})`).to.equal(f.bucket);
  },
  histogram(v) {
    const h = new Histogram(options(v.input.options));
    const empties: boolean[] = [];
    const checks: Record<string, number>[] = [];
    for (const op of v.input.ops) {
      if (op.op === 'add') h.addSample(op.value, op.weight);
      else if (op.op === 'subtract') h.subtractSample(op.value, op.weight);
      else if (op.op === 'isEmpty') empties.push(h.isEmpty());
      else if (op.op === 'check') checks.push(Object.fromEntries(op.percentiles.map((p: number) => [String(p), h.percentile(p)])));
    }
    if (v.expected.numBuckets !== undefined) expect(h.options.numBuckets).to.equal(v.expected.numBuckets);
    if (v.expected.percentiles) checkPercentiles(h, v.expected.percentiles);
    if (v.expected.isEmpty !== undefined) expect(h.isEmpty()).to.equal(v.expected.isEmpty);
    if (v.expected.isEmptySequence) expect(empties).to.deep.equal(v.expected.isEmptySequence);
    if (v.expected.checks) expect(checks).to.deep.equal(v.expected.checks);
  },
  histogram_merge(v) {
    const o = options(v.input.options);
    const build = (xs: [number, number][]) => {
      const h = new Histogram(o);
      for (const [val, w] of xs) h.addSample(val, w);
      return h;
    };
    const h1 = build(v.input.h1);
    h1.merge(build(v.input.h2));
    expect(h1.equals(build(v.expected.equalsHistogramWith))).to.equal(true);
    for (const [b, w] of Object.entries(v.expected.bucketWeights)) expect(h1.bucketWeight[Number(b)]).to.equal(w);
    expect(h1.totalWeight).to.equal(v.expected.totalWeight);
  },
  histogram_checkpoint_save(v) {
    const h = new Histogram(options(v.input.options));
    for (const [val, w] of v.input.samples) h.addSample(val, w);
    const cp = h.saveToCheckpoint();
    expect(cp.totalWeight).to.equal(v.expected.totalWeight);
    expect(cpWeights(cp.bucketWeights)).to.deep.equal(v.expected.bucketWeights);
  },
  histogram_checkpoint_load(v) {
    const h = new Histogram(options(v.input.options));
    let error = false;
    try {
      h.loadFromCheckpoint(cpFromJSON(v.input.checkpoint));
    } catch {
      error = true;
    }
    expect(error).to.equal(v.expected.error);
    if (!error) {
      expect(h.totalWeight).to.equal(v.expected.totalWeight);
      for (const [b, w] of Object.entries(v.expected.bucketWeight)) expect(h.bucketWeight[Number(b)]).to.equal(w);
    } else expect(h.totalWeight).to.equal(0);
  },
  histogram_checkpoint_roundtrip(v) {
    const o = options(v.input.options);
    const h = new Histogram(o);
    // "second weight is float64(MaxCheckpointWeight)*1e-15 - 1e-15 computed in float64"
    h.addSample(1, 1e-15);
    h.addSample(2, 10000 * 1e-15 - 1e-15);
    const cp = h.saveToCheckpoint();
    expect(cpWeights(cp.bucketWeights)).to.deep.equal(v.expected.saved.bucketWeights);
    expect(cp.totalWeight).to.equal(v.expected.saved.totalWeight);
    const loaded = new Histogram(o);
    loaded.loadFromCheckpoint(cp);
    expect(loaded.isEmpty()).to.equal(v.expected.loadedIsEmpty);
    expect(loaded.percentile(0)).to.equal(v.expected.loadedPercentile0);
    expect(loaded.percentile(1)).to.equal(v.expected.loadedPercentile1);
  },
  decaying_histogram(v) {
    checkPercentiles(decaying(v.input, v.input.samples), v.expected.percentiles);
  },
  decaying_histogram_merge(v) {
    const h1 = decaying(v.input, v.input.h1);
    h1.merge(decaying(v.input, v.input.h2));
    expect(h1.equals(decaying(v.input, v.expected.equalsHistogramBuiltFrom))).to.equal(true);
  },
  decaying_histogram_checkpoint_save(v) {
    const cp = decaying(v.input, v.input.samples).saveToCheckpoint();
    expect(formatInstant(cp.referenceTimestamp!)).to.equal(v.expected.referenceTimestamp);
    expect(cpWeights(cp.bucketWeights)).to.deep.equal(v.expected.bucketWeights);
    expect(cp.totalWeight).to.equal(v.expected.totalWeight);
  },
  decaying_histogram_checkpoint_load(v) {
    const h = decaying(v.input, []);
    h.loadFromCheckpoint(cpFromJSON(v.input.checkpoint));
    expect(h.isEmpty()).to.equal(v.expected.isEmpty);
    expect(formatInstant(h.referenceTimestamp)).to.equal(v.expected.referenceTimestamp);
  },
  histogram_options_bucket_starts(v) {
    const o = defaultOptions(v.input.histogram);
    expect(o.numBuckets).to.equal(v.expected.bucketStarts.length);
    v.expected.bucketStarts.forEach((s: string, b: number) => expect(o.getBucketStart(b), `bucket ${b}`).to.equal(Number(s)));
  },
  histogram_find_bucket(v) {
    const o = defaultOptions(v.input.histogram);
    for (const p of v.expected) expect(o.findBucket(Number(p.value)), `FindBucket(${p.value})`).to.equal(p.bucket);
  },
  histogram_percentile_plain(v) {
    const h = new Histogram(defaultOptions(v.input.histogram));
    for (const [val, w] of v.input.samples) h.addSample(val, w);
    const p = h.percentile(v.input.percentile);
    expect(p).to.equal(Number(v.expected.percentile));
    expect(memoryAmountFromBytes(p)).to.equal(v.expected.memoryAmountFromBytes);
  },
  go_time_round(v) {
    const got = v.input.map((x: any) => formatInstant(roundTime(parseInstant(x.t), duration(x.d))));
    expect(got).to.deep.equal(v.expected);
  },
  estimator_percentile(v) {
    const cpu = new Histogram(defaultOptions('cpu'));
    const mem = new Histogram(defaultOptions('memory'));
    for (const c of v.input.cpuSamplesCores) cpu.addSample(c, v.input.weights);
    for (const m of v.input.memorySamplesBytes) mem.addSample(m, v.input.weights);
    const s = { aggregateCPUUsage: cpu, aggregateMemoryPeaks: mem } as unknown as AggregateContainerState;
    expect(cpu.percentile(v.input.cpuPercentile)).to.equal(v.expected.cpuPercentileRaw);
    expect(mem.percentile(v.input.memoryPercentile)).to.equal(v.expected.memoryPercentileRaw);
    expect(percentileCPUEstimator(v.input.cpuPercentile)(s)).to.equal(v.expected.cpuMillicores);
    expect(percentileMemoryEstimator(v.input.memoryPercentile)(s)).to.equal(v.expected.memoryBytes);
  },
  estimator_confidence(v) {
    const s = new AggregateContainerState();
    if (typeof v.input.samples === 'string') {
      // "9 cpu samples of 1 core at Unix 0 + k*2min, k=0..8"
      for (let k = 0; k <= 8; k++) s.addCPUSample(1000, k * 120e6);
    }
    const interval = duration(v.input.confidenceInterval);
    const cases = v.input.cases ?? [{ multiplier: v.input.multiplier, exponent: v.input.exponent }];
    const cpu = cases.map((c: any) => withConfidenceMultiplier(c.multiplier, c.exponent, constEstimator(v.input.baseCpuMillicores), interval)(s));
    if (v.expected.confidence !== undefined) expect(getConfidence(s, interval)).to.equal(v.expected.confidence);
    expect(cases.length === 1 ? cpu[0] : cpu).to.deep.equal(v.expected.cpuMillicores);
    if (v.expected.memoryBytes !== undefined) {
      const c = cases[0];
      expect(withConfidenceMultiplier(c.multiplier, c.exponent, constEstimator(v.input.baseMemoryBytes), interval)(s)).to.equal(v.expected.memoryBytes);
    }
  },
  estimator_margin(v) {
    const s = new AggregateContainerState();
    expect(withMargin(v.input.marginFraction, constEstimator(v.input.baseCpuMillicores))(s)).to.equal(v.expected.cpuMillicores);
    expect(withMargin(v.input.marginFraction, constEstimator(v.input.baseMemoryBytes))(s)).to.equal(v.expected.memoryBytes);
  },
  estimator_min(v) {
    const s = new AggregateContainerState();
    expect(withMinResource(v.input.minCpuMillicores, constEstimator(v.input.baseCpuMillicores))(s)).to.equal(v.expected.cpuMillicores);
    expect(withMinResource(v.input.minMemoryBytes, constEstimator(v.input.baseMemoryBytes))(s)).to.equal(v.expected.memoryBytes);
  },
  pod_recommender_min(v) {
    const cpu = constEstimator(v.input.constCpuMillicores);
    const mem = constEstimator(v.input.constMemoryBytes);
    const r = new PodResourceRecommender(
      { ...DEFAULT_RECOMMENDATION_CONFIG, podMinCPUMillicores: v.input.podMinCPUMillicores, podMinMemoryMb: v.input.podMinMemoryMb },
      { targetCPU: cpu, lowerBoundCPU: cpu, upperBoundCPU: cpu, targetMemory: mem, lowerBoundMemory: mem, upperBoundMemory: mem },
    );
    const states = new Map(v.input.containers.map((n: string) => [n, new AggregateContainerState()] as const));
    const rec = r.getRecommendedPodResources(states as Map<string, AggregateContainerState>);
    for (const [name, e] of Object.entries(v.expected) as [string, any][]) {
      expect(rec.get(name)!.target.cpu).to.equal(e.targetCpuMillicores);
      expect(rec.get(name)!.target.memory).to.equal(e.targetMemoryBytes);
    }
  },
  pod_recommender_controlled_resources(v) {
    const s = new AggregateContainerState();
    s.updateFromPolicy({ controlledResources: v.input.controlledResources });
    const rec = new PodResourceRecommender().getRecommendedPodResources(new Map([['c', s]])).get('c')!;
    expect(Object.keys(rec.target).sort()).to.deep.equal(v.expected.targetKeys);
    expect(Object.keys(rec.lowerBound).sort()).to.deep.equal(v.expected.lowerBoundKeys);
    expect(Object.keys(rec.upperBound).sort()).to.deep.equal(v.expected.upperBoundKeys);
  },
  recommendation_list_order(v) {
    const m = new Map(v.input.containers.map((n: string) => [n, { target: { cpu: 1 }, lowerBound: {}, upperBound: {} }] as const));
    const list = mapToListOfRecommendedContainerResources(m as any);
    expect(list.map((r) => r.containerName)).to.deep.equal(v.expected.order);
  },
  cpu_amount_from_cores: (v) => expect(cpuAmountFromCores(v.input.cores)).to.equal(v.expected.millicores),
  cores_from_cpu_amount: (v) => expect(coresFromCPUAmount(v.input.millicores)).to.equal(v.expected.cores),
  memory_amount_from_bytes: (v) => expect(memoryAmountFromBytes(v.input.bytes)).to.equal(v.expected.amount),
  scale_resource: (v) => expect(scaleResource(v.input.amount, v.input.factor)).to.equal(v.expected.amount),
  round_up_to_scale: (v) => expect(roundUpToScale(v.input.value, v.input.scale)).to.deep.equal(v.expected),
  humanize_memory: (v) => expect(humanizeMemoryQuantity(v.input.bytes)).to.equal(v.expected.string),
  quantity_from_cpu_amount: (v) => expect(Quantity.scaled(v.input.millicores, -3).toString()).to.equal(v.expected.quantity),
  quantity_from_memory_amount: (v) => expect(Quantity.of(v.input.bytes, 'BinarySI').toString()).to.equal(v.expected.quantity),
  resources_as_resource_list(v) {
    const i = v.input;
    const l = resourcesAsResourceList(
      { cpu: i.cpuMillicores, memory: i.memoryBytes },
      { humanizeMemory: i.humanizeMemory, roundCPUMillicores: i.roundCPUMillicores, roundMemoryBytes: i.roundMemoryBytes },
    );
    expect(l.get('cpu')!.toString()).to.equal(v.expected.cpuQuantity);
    expect(l.get('memory')!.toString()).to.equal(v.expected.memoryQuantity);
    expect(l.get('cpu')!.milliValue()).to.equal(v.expected.cpuMillicores);
    if (v.expected.memoryBytes !== undefined) expect(l.get('memory')!.value()).to.equal(v.expected.memoryBytes);
    else expect(l.get('memory')!.milliValue()).to.equal(839500431360); // memoryNote: MilliValue 839500431360
  },
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
  integer_cpu_extract_name: (v) => expect(extractContainerName(v.input.key, v.input.prefix, v.input.suffix)).to.equal(v.expected.containerName),
  integer_cpu_post_processor(v) {
    v.input.forEach((c: any, idx: number) => {
      const recs: ContainerRecommendation[] = Object.entries(c.targets).map(([name, pair]) => ({
        containerName: name,
        target: quantityList(pair as [string, string]),
        lowerBound: quantityList(pair as [string, string]),
        upperBound: quantityList(pair as [string, string]),
        uncappedTarget: quantityList(pair as [string, string]),
      }));
      const out = integerCPUPostProcess(c.annotations, recs);
      for (const r of out) {
        const [cpu, mem] = v.expected[idx][r.containerName];
        for (const l of [r.target, r.lowerBound, r.upperBound, r.uncappedTarget]) {
          expect(l.get('cpu')!.cmp(Quantity.parse(cpu)), `${r.containerName} cpu`).to.equal(0);
          expect(l.get('memory')!.cmp(Quantity.parse(mem))).to.equal(0);
        }
      }
    });
  },
  integer_cpu_round(v) {
    const q = Quantity.parse(v.input.cpu).roundUp(0);
    expect(q.toString()).to.equal(v.expected.cpu);
    expect(Quantity.parse(v.input.memory).toString()).to.equal(v.expected.memory);
  },
  apply_vpa_policy(v) {
    const recs: ContainerRecommendation[] | null =
      v.input.recommendation === null
        ? null
        : v.input.recommendation.map((r: any) => ({
            containerName: r.containerName,
            target: quantityList(r.target),
            lowerBound: quantityList(r.lowerBound),
            upperBound: quantityList(r.upperBound),
            uncappedTarget: quantityList(r.uncappedTarget),
          }));
    const out = applyVPAPolicy(recs, v.input.resourcePolicy, resourceListFromJSON(v.input.globalMaxAllowed));
    if (v.expected && 'result' in v.expected) {
      expect(out).to.equal(v.expected.result);
      return;
    }
    expect(
      out!.map((r) => ({
        containerName: r.containerName,
        target: listPair(r.target),
        lowerBound: listPair(r.lowerBound),
        upperBound: listPair(r.upperBound),
        uncappedTarget: listPair(r.uncappedTarget),
      })),
    ).to.deep.equal(v.expected);
  },
};
