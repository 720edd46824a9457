// `npm run bench -- vpa`: the VPA model through our core and through the upstream Go model (the oracle
// binary built by test/oracles/vpa, bench mode) on the same synthetic workload, in the same run.
// Reports samples added per second, recommendations per second and memory per tracked container.
// Go and TypeScript rounds alternate (the machine is shared, so noise hits both sides alike); the
// table shows medians. The two sides' recommendations must agree (checksum) or the run fails.
import { execFileSync } from 'node:child_process';
import v8 from 'node:v8';
import vm from 'node:vm';
import { buildVpaOracle } from '../../test/oracles/vpa/build-oracle.ts';
import { PodResourceRecommender } from '../../src/vpa/logic/index.ts';
import { T0, addVpas, buildCluster, feed, recommendAll } from './workload.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const ROUNDS = Number(process.env.VPA_BENCH_ROUNDS ?? 5);
const params = {
  containers: Number(process.env.VPA_BENCH_CONTAINERS ?? 2000),
  samplesPerContainer: Number(process.env.VPA_BENCH_SAMPLES ?? 720),
  recommendRounds: 10,
  repeats: 1,
  memoryContainers: Number(process.env.VPA_BENCH_MEMORY_CONTAINERS ?? 50000),
  memorySamples: 60,
};

interface Figures {
  addSamplesPerSec: number;
  recommendationsPerSec: number;
  checksum: number;
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

const recommender = new PodResourceRecommender();

function tsThroughput(): Figures {
  const { cluster, pods } = buildCluster(params.containers);
  let start = process.hrtime.bigint();
  const n = feed(cluster, pods, params.samplesPerContainer);
  const addSamplesPerSec = n / (Number(process.hrtime.bigint() - start) / 1e9);
  const vpas = addVpas(cluster, pods);
  const now = T0 + params.samplesPerContainer * 60_000_000;
  let checksum = 0;
  start = process.hrtime.bigint();
  for (let round = 0; round < params.recommendRounds; round++) checksum += recommendAll(cluster, vpas, recommender, now);
  const recommendationsPerSec = (params.recommendRounds * vpas.length) / (Number(process.hrtime.bigint() - start) / 1e9);
  return { addSamplesPerSec, recommendationsPerSec, checksum };
}

function tsMemory(): { bytesPerContainer: number; heapBytes: number; rss: number } {
  gc();
  const mem = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const before = mem();
  const { cluster, pods } = buildCluster(params.memoryContainers);
  feed(cluster, pods, params.memorySamples);
  gc();
  const after = mem();
  if (cluster.pods.size !== params.memoryContainers) throw new Error('lost containers');
  return { bytesPerContainer: (after - before) / params.memoryContainers, heapBytes: after - before, rss: process.memoryUsage().rss };
}

const bin = buildVpaOracle();
const runGo = (p: object) => JSON.parse(execFileSync(bin, ['bench'], { input: JSON.stringify(p), maxBuffer: 1 << 26 }).toString());

const goRuns: (Figures & { goVersion: string })[] = [];
const tsRuns: Figures[] = [];
for (let r = 0; r < ROUNDS; r++) {
  goRuns.push(runGo({ ...params, memoryContainers: 0 }));
  tsRuns.push(tsThroughput());
}
const checksumsAgree = goRuns.every((g, i) => g.checksum === tsRuns[i]!.checksum);
if (!checksumsAgree) {
  console.error('checksum mismatch: the two sides computed different recommendations');
  process.exit(1);
}
const goMem = runGo({ ...params, containers: 0 }) as { bytesPerContainer: number; heapBytes: number };
const tsMem = tsMemory();

const go = { add: median(goRuns.map((g) => g.addSamplesPerSec)), rec: median(goRuns.map((g) => g.recommendationsPerSec)) };
const ts = { add: median(tsRuns.map((t) => t.addSamplesPerSec)), rec: median(tsRuns.map((t) => t.recommendationsPerSec)) };
const fmt = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 0 });
console.log(
  `workload: ${params.containers} containers x ${params.samplesPerContainer} minutes (CPU+memory samples), ${params.recommendRounds} recommendation rounds; ` +
    `median of ${ROUNDS} alternating rounds; memory: ${params.memoryContainers} containers x ${params.memorySamples} minutes`,
);
console.log(`upstream: k8s.io/autoscaler/vertical-pod-autoscaler (oracle go.mod pin), ${goRuns[0]!.goVersion}; ours: Node ${process.version}`);
console.log('| metric | ehpa-adapter | upstream Go | ratio (ours/Go) |');
console.log('|---|---:|---:|---:|');
console.log(`| samples added / s | ${fmt(ts.add)} | ${fmt(go.add)} | ${(ts.add / go.add).toFixed(2)}x |`);
console.log(`| recommendations / s | ${fmt(ts.rec)} | ${fmt(go.rec)} | ${(ts.rec / go.rec).toFixed(2)}x |`);
console.log(`| memory / tracked container (bytes, lower is better) | ${fmt(tsMem.bytesPerContainer)} | ${fmt(goMem.bytesPerContainer)} | ${(tsMem.bytesPerContainer / goMem.bytesPerContainer).toFixed(2)}x |`);
console.log(
  `${params.memoryContainers} tracked containers: ours ${(tsMem.heapBytes / 2 ** 20).toFixed(0)} MiB heap+external (process RSS ${(tsMem.rss / 2 ** 20).toFixed(0)} MiB), ` +
    `Go ${(goMem.heapBytes / 2 ** 20).toFixed(0)} MiB heap`,
);
