// `npm run bench -- e2e-harness`: how long the end-to-end harness takes to start and stop, per component,
// with the nodes every pod-running suite uses (kube-scheduler, kwok, the real metrics-server: `kwok` column).
// Each run is a fresh startCluster() in this process (the first one also runs
// scripts/build-control-plane.sh, which returns at once when the binaries are cached). Cold CI also pays
// the one-time Go build of the binaries; see BENCHMARKS.md for that figure. There is no upstream
// counterpart to compare with (envtest starts only etcd and kube-apiserver).
import { fileURLToPath } from 'node:url';
import { startCluster, type StartTimings } from '../../test/e2e/harness/index.ts';

const runs = Number(process.env.RUNS ?? 5);
const trace = fileURLToPath(new URL('../../test/fixtures/traces/crane/input1.csv', import.meta.url));
const rows: (StartTimings & { stopMs: number; withTrace: boolean })[] = [];

for (let i = 0; i < runs; i++) {
  // Alternate: without history (control plane critical path) and with a 16-day Crane trace backfilled.
  const withTrace = i % 2 === 1;
  const c = await startCluster(withTrace ? { traces: [{ file: trace, namespace: 'bench', pod: 'web-0', container: 'app', cpuScale: 0.01, memBaseBytes: 1e8 }] } : {});
  const t = Date.now();
  await c.stop();
  rows.push({ ...c.timings, stopMs: Date.now() - t, withTrace });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
console.log('run  trace  total  binaries  pki  etcd  apiserver  kcm  kwok  prometheus  stop   (ms)');
rows.forEach((r, i) => console.log([i + 1, r.withTrace ? 'yes' : 'no', r.totalMs, r.binariesMs, r.pkiMs, r.etcdMs, r.apiserverMs, r.controllerManagerMs, r.kwokMs, r.prometheusMs, r.stopMs].join('  ')));
for (const withTrace of [false, true]) {
  const sel = rows.filter((r) => r.withTrace === withTrace);
  if (sel.length) {
    console.log(`median total ${withTrace ? 'with' : 'without'} 16-day trace backfill: ${median(sel.map((r) => r.totalMs))} ms over ${sel.length} runs`
      + ` (kwok nodes + metrics-server ${median(sel.map((r) => r.kwokMs))} ms, stop ${median(sel.map((r) => r.stopMs))} ms)`);
  }
}
console.log(`first start (includes locating binaries): ${rows[0]!.totalMs} ms`);
