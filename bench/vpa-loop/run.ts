// `npm run bench -- vpa-loop`: the recommender loop (src/vpa/routines/recommender-loop.ts) at 10,000
// tracked containers, in-process and fed from memory: every tick brings one CPU and one memory sample
// per container, and the writers are counters standing in for the API server (they apply status writes
// to the in-memory VPAs so "write only on change" is exercised for real). Reports the loop time (total
// and model-only, medians over the ticks after the first), the first loop (checkpoint restore + one day
// of history), and the API requests per loop the writers would make.
import v8 from 'node:v8';
import vm from 'node:vm';
import { DEFAULT_RECOMMENDATION_CONFIG, DEFAULT_RECOMMENDATION_FORMAT, PodResourceRecommender } from '../../src/vpa/logic/index.ts';
import { AggregationsConfig } from '../../src/vpa/model/aggregations-config.ts';
import type { VerticalPodAutoscalerCheckpointJSON } from '../../src/vpa/model/checkpoint-json.ts';
import type { PodHistory, PodObject, TargetSelection, UsageSample, VpaObject } from '../../src/vpa/routines/cluster-feeder.ts';
import { RecommenderLoop, type LoopStats, type RecommenderIO } from '../../src/vpa/routines/recommender-loop.ts';
import type { EhpaForSplit } from '../../src/vpa/routines/resource-split.ts';
import type { VpaStatusJSON } from '../../src/vpa/routines/vpa-status.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const WORKLOADS = Number(process.env.VPA_LOOP_WORKLOADS ?? 1000);
const PODS_PER_WORKLOAD = Number(process.env.VPA_LOOP_PODS ?? 10);
const TICKS = Number(process.env.VPA_LOOP_TICKS ?? 15);
const HISTORY_HOURS = Number(process.env.VPA_LOOP_HISTORY_HOURS ?? 24);
const START_MS = Date.UTC(2026, 10, 22, 9, 0, 0);
const MINUTE_MS = 60_000;

const cpuMilli = (tick: number, k: number) => 50 + ((tick * 7919 + k * 31) % 400);
const memBytes = (tick: number, k: number) => 300 * 1024 * 1024 + ((tick * 104729 + k * 7) % 97) * 4 * 1024 * 1024;

class BenchIO implements RecommenderIO {
  readonly vpaList: VpaObject[] = [];
  readonly podList: PodObject[] = [];
  readonly ehpaList: EhpaForSplit[] = [];
  readonly selectors = new Map<string, TargetSelection>();
  readonly checkpointStore = new Map<string, VerticalPodAutoscalerCheckpointJSON>();
  requests = { statusPatch: 0, checkpointPatch: 0, event: 0, list: 0 };
  tick = 0;
  history?: () => Promise<PodHistory[]>;

  constructor(readonly clock: { ms: number }) {
    for (let w = 0; w < WORKLOADS; w++) {
      const app = `app-${w}`;
      this.vpaList.push({ apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler', metadata: { name: app, namespace: 'bench', generation: 1 }, spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: app } } });
      this.selectors.set(app, { selector: (l) => l['app'] === app, selectorKey: `app=${app}`, equalityLabels: { app } });
      for (let p = 0; p < PODS_PER_WORKLOAD; p++) {
        this.podList.push({
          metadata: { name: `${app}-7d9c8b6f5d-${String(p).padStart(5, '0')}`, namespace: 'bench', labels: { app, 'pod-template-hash': '7d9c8b6f5d' }, resourceVersion: '1' },
          spec: { containers: [{ name: 'main', resources: { requests: { cpu: '250m', memory: '512Mi' } } }] },
          status: { phase: 'Running' },
        });
      }
    }
    // A quarter of the workloads are also scaled by an EHPA on CPU (memory-only recommendations).
    for (let w = 0; w < WORKLOADS; w += 4) {
      this.ehpaList.push({ metadata: { name: `app-${w}`, namespace: 'bench' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `app-${w}` }, metrics: [{ type: 'Resource', resource: { name: 'cpu' } }] } });
    }
  }

  vpas() {
    return this.vpaList;
  }
  pods() {
    return this.podList;
  }
  ehpas() {
    return this.ehpaList;
  }
  async targetSelector(vpa: VpaObject) {
    return this.selectors.get(vpa.metadata.name)!;
  }
  async currentUsage(): Promise<UsageSample[]> {
    const t = this.clock.ms * 1000;
    return this.podList.map((p, k) => ({ namespace: 'bench', pod: p.metadata.name, container: 'main', cpuMillicores: cpuMilli(this.tick, k), memoryBytes: memBytes(this.tick, k), time: t }));
  }
  async checkpoints() {
    this.requests.list++;
    return [...this.checkpointStore.values()];
  }
  takeOoms() {
    return [];
  }
  async writeStatus(vpa: VpaObject, status: VpaStatusJSON) {
    this.requests.statusPatch++;
    vpa.status = status as Record<string, unknown>;
  }
  async writeCheckpoint(cp: VerticalPodAutoscalerCheckpointJSON) {
    this.requests.checkpointPatch++;
    this.checkpointStore.set(`${cp.metadata.namespace}/${cp.metadata.name}`, cp);
  }
  async deleteCheckpoint() {}
  event() {
    this.requests.event++;
  }
}

function historyFor(io: BenchIO): PodHistory[] {
  return io.podList.map((p, k) => {
    const cpu: [number, number][] = [];
    const memory: [number, number][] = [];
    for (let h = HISTORY_HOURS; h >= 1; h--) {
      const t = (io.clock.ms - h * 3_600_000) * 1000;
      cpu.push([t, cpuMilli(h, k)]);
      memory.push([t, memBytes(h, k)]);
    }
    return { namespace: 'bench', pod: p.metadata.name, containers: new Map([['main', { cpu, memory }]]) };
  });
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

async function run(): Promise<void> {
  const clock = { ms: START_MS };
  const io = new BenchIO(clock);
  io.history = async () => historyFor(io);
  const loop = new RecommenderLoop(io, {
    settings: { aggregations: new AggregationsConfig(), gates: {}, recommender: new PodResourceRecommender(DEFAULT_RECOMMENDATION_CONFIG), format: DEFAULT_RECOMMENDATION_FORMAT, cpuIntegerPostProcessorEnabled: false },
    filter: { recommenderName: 'default' },
    splitWithEhpa: true,
    checkpointsTimeoutMs: 60_000,
    checkpointsGcIntervalMs: 600_000,
    updateWorkers: 10,
    now: () => clock.ms,
  });
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const ticks: { stats: LoopStats; requests: BenchIO['requests'] }[] = [];
  for (let t = 0; t < TICKS; t++) {
    io.tick = t;
    io.requests = { statusPatch: 0, checkpointPatch: 0, event: 0, list: 0 };
    const stats = await loop.runOnce();
    ticks.push({ stats, requests: io.requests });
    clock.ms += MINUTE_MS;
  }
  gc();
  const heapPerContainer = (process.memoryUsage().heapUsed - heap0) / (WORKLOADS * PODS_PER_WORKLOAD);
  const first = ticks[0]!;
  const steady = ticks.slice(1);
  const m = (f: (x: (typeof ticks)[number]) => number) => median(steady.map(f));
  console.log(`workload: ${WORKLOADS} VPAs x ${PODS_PER_WORKLOAD} pods x 1 container = ${first.stats.trackedContainers} tracked containers, ${first.stats.historySamples} history samples at start, ${WORKLOADS / 4} VPAs split with an EHPA; ${TICKS} ticks of 1 min`);
  console.log('');
  console.log('| loop | total ms | model ms | status writes | checkpoint writes | events | samples accepted |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  console.log(`| first (restore + history) | ${first.stats.totalMs.toFixed(0)} | ${first.stats.modelMs.toFixed(0)} | ${first.requests.statusPatch} | ${first.requests.checkpointPatch} | ${first.requests.event} | ${first.stats.samplesAccepted} |`);
  console.log(`| steady (median of ${steady.length}) | ${m((x) => x.stats.totalMs).toFixed(0)} | ${m((x) => x.stats.modelMs).toFixed(0)} | ${m((x) => x.requests.statusPatch)} | ${m((x) => x.requests.checkpointPatch)} | ${m((x) => x.requests.event)} | ${m((x) => x.stats.samplesAccepted)} |`);
  console.log('');
  const reqs = m((x) => x.requests.statusPatch + x.requests.checkpointPatch + x.requests.event + x.requests.list);
  console.log(`API requests per steady loop (writers): ${reqs} (= status PATCH per VPA whose status changed + one checkpoint PATCH per VPA container name; reads come from the informer caches)`);
  console.log(`heap after ${TICKS} loops: ${(heapPerContainer / 1024).toFixed(1)} KiB per tracked container`);
}

await run();
