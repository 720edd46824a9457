// Conformance handlers (see ../vpa-vectors.test.ts); kinds: estimators, pod recommender, amounts and quantities, post-processors.
import { expect } from 'chai';
import {
  AggregateContainerState,
  Histogram,
  coresFromCPUAmount,
  cpuAmountFromCores,
  memoryAmountFromBytes,
  roundUpToScale,
  scaleResource,
} from '../../../src/vpa/model/index.ts';
import {
  DEFAULT_RECOMMENDATION_CONFIG,
  PodResourceRecommender,
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
import { defaultOptions, duration, type Vector } from './common.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
const constEstimator = (x: number): Estimator => () => x;

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


export const LOGIC_HANDLERS: Record<string, (v: Vector) => void> = {
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
