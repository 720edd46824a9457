// `npm run bench -- forecast-offload`: the metrics adapter's p99 latency while 50 TimeSeriesPredictions
// refit a 15-day, 60 s series in the same process (bench/forecast-offload/server.ts), with the fits
// (a) in the event loop's thread (CoreForecaster, the path before the worker pool) and (b) in the worker
// pool (`serve`'s default), plus (c) no fits as the floor, all in one run against one server process.
// Load: autocannon (HTTP/1.1; bench/adapter now drives vegeta) over loopback HTTPS with a front-proxy client certificate, Pods
// metric requests round-robin over the 1,000 EHPAs. Modes rotate each round; medians are reported.
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { issueCertificate } from '../../src/adapter/cert-factory.ts';
import { makeFixture, EHPAS } from '../adapter/fixture.ts';
// A Prometheus answering `query_range` with a 15-day trace for every TSP (see stub-prometheus.ts).
import { startStubPrometheus } from './stub-prometheus.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const MODES = ['idle', 'in-thread', 'pool'] as const;
type Mode = (typeof MODES)[number];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'bench-forecast-offload-'));
  const nb = new Date(Date.now() - 3_600_000);
  const na = new Date(Date.now() + 86_400_000);
  const servingCa = issueCertificate({ commonName: 'bench-ca', usage: 'ca', notBefore: nb, notAfter: na });
  const serving = issueCertificate({ commonName: 'localhost', usage: 'server', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], notBefore: nb, notAfter: na }, servingCa);
  const fpCa = issueCertificate({ commonName: 'front-proxy-ca', usage: 'ca', notBefore: nb, notAfter: na });
  const fpClient = issueCertificate({ commonName: 'front-proxy-client', usage: 'client', notBefore: nb, notAfter: na }, fpCa);
  await writeFile(join(dir, 'tls.crt'), serving.certPem + servingCa.certPem);
  await writeFile(join(dir, 'tls.key'), serving.keyPem);
  await writeFile(join(dir, 'front-proxy-ca.crt'), fpCa.certPem);
  const fx = makeFixture(Date.now());
  await writeFile(join(dir, 'fixture.json'), JSON.stringify(fx));

  const prometheus = await startStubPrometheus();
  const server = spawn(process.execPath, ['--import', 'tsx', join(here, 'server.ts'), join(dir, 'fixture.json'), dir, prometheus.url], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  process.on('exit', () => server.kill('SIGTERM'));
  const port = await new Promise<number>((resolve, reject) => {
    server.stdout!.once('data', (b: Buffer) => resolve(Number(b.toString().trim())));
    server.once('exit', (c) => reject(new Error(`the server exited with ${c}`)));
  });
  const ask = <T>(msg: object) =>
    new Promise<T>((resolve) => {
      server.once('message', (m) => resolve(m as T));
      server.send(msg);
    });

  const headers = { 'X-Remote-User': 'system:serviceaccount:kube-system:horizontal-pod-autoscaler', 'X-Remote-Group': 'system:masters' };
  const tlsOptions = { ca: servingCa.certPem, cert: fpClient.certPem, key: fpClient.keyPem };
  const podPath = (i: number) => {
    const e = fx.ehpas[i % EHPAS]!;
    return `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${e.namespace}/pods/%2A/crane_pod_cpu_usage?labelSelector=app%3D${e.name}&metricLabelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3D${e.uid}`;
  };
  const load = (seconds: number) => {
    let i = 0;
    return autocannon({
      url: `https://localhost:${port}`, connections: CONNECTIONS, duration: seconds, headers, tlsOptions,
      requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: podPath(i++) }) }],
    });
  };

  // Warm-up (JIT, TLS sessions) and the pool's workers (thread start, module load) before timing anything.
  await ask({ start: 'pool' });
  await load(2);
  await ask({ stop: true });

  const results = new Map<Mode, { rps: number[]; p50: number[]; p99: number[]; fits: number[]; loop: number[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    const order = MODES.map((_, k) => MODES[(k + round) % MODES.length]!);
    for (const mode of order) {
      await ask({ start: mode });
      const r = await load(DURATION);
      const rep = await ask<{ fits: number; loopP99Ms: number; seconds: number }>({ stop: true });
      // Errors answered quickly would look fast: such a round invalidates the comparison.
      if (r.non2xx || r.errors) throw new Error(`${mode}: ${r.non2xx} non-2xx, ${r.errors} errors under load`);
      const acc = results.get(mode) ?? { rps: [], p50: [], p99: [], fits: [], loop: [] };
      acc.rps.push(r.requests.average);
      acc.p50.push(r.latency.p50);
      acc.p99.push(r.latency.p99);
      acc.fits.push(rep.fits);
      acc.loop.push(rep.loopP99Ms);
      results.set(mode, acc);
      console.log(`  ${mode} | round ${round + 1}: ${r.requests.average.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.timeouts} timeouts, ${rep.fits} fits in ${rep.seconds.toFixed(1)} s, event-loop p99 ${rep.loopP99Ms.toFixed(0)} ms`);
    }
  }
  const m = (mode: Mode, k: 'rps' | 'p50' | 'p99' | 'fits' | 'loop') => median(results.get(mode)![k]);
  console.log(`\nforecast-offload benchmark: adapter under ${CONNECTIONS} keep-alive connections for ${DURATION} s per mode x ${ROUNDS} rounds (medians) while 50 TSPs refit a 15-day 60 s series (tsp-workers 10); pool of ${Math.max(1, availableParallelism() - 1)} worker(s); ${cpus().length} CPUs (load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end), Node ${process.version}`);
  console.log('| fits run | req/s | p50 ms | p99 ms | fits finished | event-loop delay p99 ms |');
  console.log('|---|---|---|---|---|---|');
  for (const mode of MODES) console.log(`| ${mode} | ${m(mode, 'rps').toFixed(0)} | ${m(mode, 'p50')} | ${m(mode, 'p99')} | ${m(mode, 'fits')} | ${m(mode, 'loop').toFixed(0)} |`);
  console.log(`adapter p99, in-thread / pool: ${(m('in-thread', 'p99') / m('pool', 'p99')).toFixed(1)}x`);
  server.kill('SIGTERM');
  prometheus.close();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
