// `npm run bench -- vpa-loop`: the recommender loop (src/vpa/routines/recommender-loop.ts) at 10,000
// tracked containers, in-process and fed from memory: every tick brings one CPU and one memory sample
// per container, and the writers are counters standing in for the API server (they apply status writes
// to the in-memory VPAs so "write only on change" is exercised for real). Reports the loop time (total
// and model-only, medians over the ticks after the first), the first loop (checkpoint restore + one day
// of history), and the API requests per loop the writers would make.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { DEFAULT_RECOMMENDATION_CONFIG, DEFAULT_RECOMMENDATION_FORMAT, PodResourceRecommender } from '../../src/vpa/logic/index.ts';
import { AggregationsConfig } from '../../src/vpa/model/aggregations-config.ts';
import type { VerticalPodAutoscalerCheckpointJSON } from '../../src/vpa/model/checkpoint-json.ts';
import type { PodHistory, PodObject, TargetSelection, UsageSample, VpaObject } from '../../src/vpa/input/cluster-feeder.ts';
import { RecommenderLoop, type LoopStats, type RecommenderIO } from '../../src/vpa/routines/recommender-loop.ts';
import type { EhpaForSplit } from '../../src/vpa/routines/resource-split.ts';
import type { VpaStatusJSON } from '../../src/vpa/routines/vpa-status.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const WORKLOADS = Number(process.env.VPA_LOOP_WORKLOADS ?? 1000);
const PODS_PER_WORKLOAD = Number(process.env.VPA_LOOP_PODS ?? 10);
const TICKS = Number(process.env.VPA_LOOP_TICKS ?? 6);
const ROUNDS = Number(process.env.VPA_LOOP_ROUNDS ?? 2);
/** Every Nth workload also has an EHPA on CPU (0 = none, the default: upstream has no such split). */
const EHPA_EVERY = Number(process.env.VPA_LOOP_EHPA_EVERY ?? 0);
const HISTORY_HOURS = Number(process.env.VPA_LOOP_HISTORY_HOURS ?? 24);
/** VPAs per namespace (0 = all in one, the default, as the upstream side builds them). A pod is matched
 *  against the VPAs of its own namespace, so one namespace of 10,000 VPAs costs 10,000 selector checks per
 *  pod; spread 10 a namespace it is the scale bench's layout. Ours only: the upstream side needs 0. */
const PER_NAMESPACE = Number(process.env.VPA_LOOP_PER_NAMESPACE ?? 0);
const nsOf = (w: number) => (PER_NAMESPACE > 0 ? `bench-${Math.floor(w / PER_NAMESPACE)}` : 'bench');
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
      this.vpaList.push({ apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler', metadata: { name: app, namespace: nsOf(w), generation: 1 }, spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: app } } });
      this.selectors.set(app, { selector: (l) => l['app'] === app, selectorKey: `app=${app}`, equalityLabels: { app } });
      for (let p = 0; p < PODS_PER_WORKLOAD; p++) {
        this.podList.push({
          metadata: { name: `${app}-7d9c8b6f5d-${String(p).padStart(5, '0')}`, namespace: nsOf(w), labels: { app, 'pod-template-hash': '7d9c8b6f5d' }, resourceVersion: '1' },
          spec: { containers: [{ name: 'main', resources: { requests: { cpu: '250m', memory: '512Mi' } } }] },
          status: { phase: 'Running' },
        });
      }
    }
    for (let w = 0; EHPA_EVERY > 0 && w < WORKLOADS; w += EHPA_EVERY) {
      this.ehpaList.push({ metadata: { name: `app-${w}`, namespace: nsOf(w) }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `app-${w}` }, metrics: [{ type: 'Resource', resource: { name: 'cpu' } }] } });
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
    return this.podList.map((p, k) => ({ namespace: p.metadata.namespace as string, pod: p.metadata.name, container: 'main', cpuMillicores: cpuMilli(this.tick, k), memoryBytes: memBytes(this.tick, k), time: t }));
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
    // The request body is serialised, as the API client and upstream's patch builders do.
    JSON.stringify([{ op: 'add', path: '/status', value: status }]);
    vpa.status = status as Record<string, unknown>;
  }
  async writeCheckpoint(cp: VerticalPodAutoscalerCheckpointJSON) {
    this.requests.checkpointPatch++;
    JSON.stringify([{ op: 'add', path: '/status', value: cp.status }]);
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
    return { namespace: p.metadata.namespace as string, pod: p.metadata.name, containers: new Map([['main', { cpu, memory }]]) };
  });
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

type Phases = { feed: number; update: number; checkpoints: number; gc: number };

interface RoundFigures {
  firstMs: number;
  steadyMs: number[];
  steadyPhases: Phases[];
  statusWrites: number;
  checkpointWrites: number;
  containers: number;
  historySamples: number;
}

async function runOurs(): Promise<RoundFigures & { modelMs: number[]; events: number; heapPerContainer: number }> {
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
  const steady = ticks.slice(1);
  return {
    firstMs: ticks[0]!.stats.totalMs,
    steadyMs: steady.map((x) => x.stats.totalMs),
    steadyPhases: steady.map((x) => x.stats.phaseMs),
    modelMs: steady.map((x) => x.stats.modelMs),
    statusWrites: median(steady.map((x) => x.requests.statusPatch)),
    checkpointWrites: median(steady.map((x) => x.requests.checkpointPatch)),
    events: ticks.reduce((n, x) => n + x.requests.event, 0),
    containers: ticks[0]!.stats.trackedContainers,
    historySamples: ticks[0]!.stats.historySamples ?? 0,
    heapPerContainer: (process.memoryUsage().heapUsed - heap0) / (WORKLOADS * PODS_PER_WORKLOAD),
  };
}

/** The upstream side, built once per source hash under ~/.cache/ehpa-adapter/. */
function buildUpstream(): string {
  const dir = fileURLToPath(new URL('upstream/', import.meta.url));
  const hash = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(dir, f)));
  const out = join(homedir(), '.cache', 'ehpa-adapter', `vpa-loop-upstream-v1.8.1-${hash.digest('hex').slice(0, 12)}`);
  const bin = join(out, 'vpa-loop-upstream');
  if (existsSync(bin)) return bin;
  mkdirSync(out, { recursive: true });
  const tmp = `${bin}.tmp-${process.pid}`;
  execFileSync('go', ['build', '-o', tmp, '.'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, GOFLAGS: '-mod=mod' } });
  renameSync(tmp, bin);
  return bin;
}

function runUpstream(bin: string): RoundFigures {
  const input = JSON.stringify({ workloads: WORKLOADS, pods: PODS_PER_WORKLOAD, ticks: TICKS, historyHours: HISTORY_HOURS, startMs: START_MS });
  const r = JSON.parse(execFileSync(bin, [], { input, maxBuffer: 1 << 24 }).toString()) as { loopMs: number[]; phaseMs: Phases[]; statusPatches: number[]; checkpointPatches: number[]; trackedContainers: number; historySamples: number };
  return {
    firstMs: r.loopMs[0]!,
    steadyMs: r.loopMs.slice(1),
    steadyPhases: r.phaseMs.slice(1),
    statusWrites: median(r.statusPatches.slice(1)),
    checkpointWrites: median(r.checkpointPatches.slice(1)),
    containers: r.trackedContainers,
    historySamples: r.historySamples,
  };
}

if (PER_NAMESPACE > 0 && !process.env.VPA_LOOP_SKIP_UPSTREAM) throw new Error('VPA_LOOP_PER_NAMESPACE needs VPA_LOOP_SKIP_UPSTREAM=1: the upstream side builds one namespace');
const upstreamBin = process.env.VPA_LOOP_SKIP_UPSTREAM ? undefined : buildUpstream();
const ours: Awaited<ReturnType<typeof runOurs>>[] = [];
const theirs: RoundFigures[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // Alternate, so load from other jobs on the shared machine hits both sides alike.
  ours.push(await runOurs());
  if (upstreamBin) theirs.push(runUpstream(upstreamBin));
}
const o = ours[ours.length - 1]!;
console.log(`workload: ${WORKLOADS} VPAs x ${PODS_PER_WORKLOAD} pods x 1 container = ${o.containers} tracked containers, ${o.historySamples} history samples at start, ${EHPA_EVERY ? Math.ceil(WORKLOADS / EHPA_EVERY) : 0} VPAs split with an EHPA; ${PER_NAMESPACE > 0 ? `${PER_NAMESPACE} VPAs per namespace` : "one namespace"}; ${TICKS} ticks of 1 min x ${ROUNDS} rounds (alternating)`);
console.log('');
console.log('| side | first loop ms (restore + history) | steady loop ms | feed | update VPAs | checkpoints | GC | status writes / loop | checkpoint writes / loop |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
const row = (name: string, xs: RoundFigures[]) => {
  const ph = (k: keyof Phases) => median(xs.flatMap((x) => x.steadyPhases.map((p) => p[k]))).toFixed(0);
  console.log(
    `| ${name} | ${median(xs.map((x) => x.firstMs)).toFixed(0)} | ${median(xs.flatMap((x) => x.steadyMs)).toFixed(0)} | ${ph('feed')} | ${ph('update')} | ${ph('checkpoints')} | ${ph('gc')} | ${median(xs.map((x) => x.statusWrites))} | ${median(xs.map((x) => x.checkpointWrites))} |`,
  );
};
row('ehpa-adapter (TypeScript)', ours);
if (theirs.length) {
  row('upstream VPA recommender v1.8.1 RunOnce (Go)', theirs);
  const ratio = (f: (x: RoundFigures) => number[]) => (median(theirs.flatMap(f)) / median(ours.flatMap(f))).toFixed(1);
  console.log('');
  console.log(`upstream / ours (steady medians): loop ${ratio((x) => x.steadyMs)}x, feed ${ratio((x) => x.steadyPhases.map((p) => p.feed))}x, update VPAs ${ratio((x) => x.steadyPhases.map((p) => p.update))}x, checkpoints ${ratio((x) => x.steadyPhases.map((p) => p.checkpoints))}x`);
}
console.log('');
console.log(`ours: model-only ${median(ours.flatMap((x) => x.modelMs)).toFixed(0)} ms of the steady loop (the rest is awaiting the stub writers); ${o.events} events; heap ${(o.heapPerContainer / 1024).toFixed(1)} KiB per tracked container`);
console.log(`API requests per steady loop (writers): ${o.statusWrites + o.checkpointWrites} = one status PATCH per VPA whose status changed (the bounds move with every sample) + one checkpoint PATCH per VPA container name; reads come from the informer caches`);
