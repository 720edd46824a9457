// `npm run bench -- adapter`: our metrics adapter vs the Go reference (sigs.k8s.io/custom-metrics-apiserver
// v1.37.0 with an equivalent in-memory provider, bench/adapter/go) on loopback HTTPS, same fixture (1,000
// EHPAs, 10,000 pods), same load (front-proxy client certificate, system:masters so neither side calls out
// for authorization), BENCH_CONNECTIONS requests in flight. Rounds alternate between the servers; medians
// are reported, with the CPU seconds each round cost the server and the client.
// BENCH_PROTOCOL=h2: one HTTP/2 connection carrying them, as kube-apiserver's proxy sends them; otherwise
// (http/1.1) as many keep-alive HTTP/1.1 connections.
// The client (BENCH_CLIENT): vegeta (vegeta-load.ts, the default: a native client, built once with Go), or
// `node` for the Node clients in this process, autocannon (HTTP/1.1) and h2-load.ts (HTTP/2), which take
// CPU from the servers under test.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir, tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { issueCertificate } from '../../src/adapter/cert-factory.ts';
import { makeFixture, EHPAS, NAMESPACES } from './fixture.ts';
import { h2Load } from './h2-load.ts';
import { buildVegeta, procCpuSeconds, vegetaLoad, VEGETA_VERSION } from './vegeta-load.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const GO_REF = 'v1.37.0';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PROTOCOL = process.env.BENCH_PROTOCOL === 'h2' ? 'h2' : 'http/1.1';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function buildGo(): string | undefined {
  const out = join(homedir(), '.cache', 'ehpa-adapter', `bench-reference-adapter-${GO_REF}`, 'server');
  if (existsSync(out)) return out;
  if (spawnSync('go', ['version']).status !== 0) return undefined;
  mkdirSync(join(out, '..'), { recursive: true });
  console.log(`building the Go reference adapter (custom-metrics-apiserver ${GO_REF}) into ${out} …`);
  const r = spawnSync('nice', ['go', 'build', '-o', out, '.'], { cwd: join(here, 'go'), stdio: 'inherit' });
  return r.status === 0 ? out : undefined;
}

async function main() {
  const load0 = loadavg()[0]!;
  const dir = await mkdtemp(join(tmpdir(), 'bench-adapter-'));
  const nb = new Date(Date.now() - 3_600_000);
  const na = new Date(Date.now() + 86_400_000);
  const servingCa = issueCertificate({ commonName: 'bench-ca', usage: 'ca', notBefore: nb, notAfter: na });
  const serving = issueCertificate({ commonName: 'localhost', usage: 'server', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], notBefore: nb, notAfter: na }, servingCa);
  const fpCa = issueCertificate({ commonName: 'front-proxy-ca', usage: 'ca', notBefore: nb, notAfter: na });
  const fpClient = issueCertificate({ commonName: 'front-proxy-client', usage: 'client', notBefore: nb, notAfter: na }, fpCa);
  await writeFile(join(dir, 'tls.crt'), serving.certPem + servingCa.certPem);
  await writeFile(join(dir, 'tls.key'), serving.keyPem);
  await writeFile(join(dir, 'front-proxy-ca.crt'), fpCa.certPem);
  await writeFile(join(dir, 'serving-ca.crt'), servingCa.certPem);
  await writeFile(join(dir, 'front-proxy-client.crt'), fpClient.certPem);
  await writeFile(join(dir, 'front-proxy-client.key'), fpClient.keyPem);
  // Never dialled: the reference builds an informer factory from it but starts no informer.
  await writeFile(join(dir, 'kubeconfig'), 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: x}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n');
  const fx = makeFixture(Date.now());
  await writeFile(join(dir, 'fixture.json'), JSON.stringify(fx));

  const children: ChildProcess[] = [];
  const stop = () => children.forEach((c) => c.kill('SIGTERM'));
  process.on('exit', stop);

  const ts = spawn(process.execPath, [...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), '--import', 'tsx', join(here, 'ts-server.ts'), join(dir, 'fixture.json'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(ts);
  const tsPort = await new Promise<number>((resolve, reject) => {
    ts.stdout!.once('data', (b: Buffer) => resolve(Number(b.toString().trim())));
    ts.once('exit', (c) => reject(new Error(`our adapter exited with ${c}`)));
  });

  // The reference twice: as deployed (GOMAXPROCS = all CPUs) and on one core, like our one event loop.
  const goServers: [string, number, number][] = [];
  const goBin = buildGo();
  if (goBin) {
    for (const procs of [undefined, 1]) {
      const port = await freePort();
      const go = spawn(goBin, [
        `--secure-port=${port}`, '--bind-address=127.0.0.1', `--tls-cert-file=${join(dir, 'tls.crt')}`, `--tls-private-key-file=${join(dir, 'tls.key')}`,
        `--requestheader-client-ca-file=${join(dir, 'front-proxy-ca.crt')}`, '--requestheader-allowed-names=front-proxy-client',
        '--requestheader-username-headers=X-Remote-User', '--requestheader-group-headers=X-Remote-Group', '--requestheader-extra-headers-prefix=X-Remote-Extra-',
        '--authentication-skip-lookup', `--lister-kubeconfig=${join(dir, 'kubeconfig')}`, `--fixture=${join(dir, 'fixture.json')}`,
      ], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...(procs ? { GOMAXPROCS: String(procs) } : {}) } });
      children.push(go);
      let goLog = '';
      go.stderr!.on('data', (b: Buffer) => (goLog = (goLog + b.toString()).slice(-4000)));
      go.once('exit', (c) => c !== null && c !== 0 && console.error(`Go reference exited with ${c}:\n${goLog}`));
      goServers.push([`custom-metrics-apiserver ${GO_REF} (Go${procs ? `, GOMAXPROCS=${procs}` : ''})`, port, go.pid!]);
    }
  } else {
    console.log('Go toolchain not found: running our adapter alone (install Go to compare with the reference).');
  }

  const headers = { 'X-Remote-User': 'system:serviceaccount:kube-system:horizontal-pod-autoscaler', 'X-Remote-Group': 'system:masters' };
  const tlsOptions = { ca: servingCa.certPem, cert: fpClient.certPem, key: fpClient.keyPem };
  const fetchOnce = (port: number, path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: 'localhost', port, path, headers, ...tlsOptions }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  const podPath = (i: number) => {
    const e = fx.ehpas[i % EHPAS]!;
    return `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${e.namespace}/pods/%2A/crane_pod_cpu_usage?labelSelector=app%3D${e.name}&metricLabelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3D${e.uid}`;
  };
  const servers: [string, number, number][] = [['ehpa-adapter (Node)', tsPort, ts.pid!]];
  for (const [name, port, pid] of goServers) {
    for (let i = 0; i < 100; i++) {
      const ok = await fetchOnce(port, '/healthz').then((r) => r.status === 200, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    servers.push([name, port, pid]);
  }
  // Same answer from both before timing anything.
  for (const [name, port] of servers) {
    const r = await fetchOnce(port, podPath(7));
    const doc = JSON.parse(r.body) as { items?: { value: string }[] };
    console.log(`${name}: ${r.status}, ${doc.items?.length ?? 0} items, value ${doc.items?.[0]?.value}`);
    if (r.status !== 200) throw new Error(`${name} answered ${r.status}: ${r.body.slice(0, 300)}`);
  }

  const scenarios: [string, (i: number) => string][] = [
    ['Pods metric crane_pod_cpu_usage (1,000 EHPAs round-robin)', podPath],
    ['discovery /apis/custom.metrics.k8s.io/v1beta2', () => '/apis/custom.metrics.k8s.io/v1beta2'],
  ];
  const vegeta = process.env.BENCH_CLIENT === 'node' ? undefined : buildVegeta();
  if (!vegeta && process.env.BENCH_CLIENT !== 'node') console.log('vegeta could not be built: the load comes from the Node clients (BENCH_CLIENT=node).');
  const client = vegeta ? `vegeta ${VEGETA_VERSION}` : PROTOCOL === 'h2' ? 'Node http2 (h2-load.ts, in the bench process)' : 'autocannon (in the bench process)';
  /** One load run against one server, by the client and protocol chosen. */
  const load = async (port: number, durationS: number, pathFor: (i: number) => string) => {
    if (vegeta) {
      const paths = Array.from({ length: EHPAS }, (_, i) => pathFor(i));
      const tls = { caFile: join(dir, 'serving-ca.crt'), certFile: join(dir, 'front-proxy-client.crt'), keyFile: join(dir, 'front-proxy-client.key') };
      return vegetaLoad({ bin: vegeta, dir, port, protocol: PROTOCOL, inFlight: CONNECTIONS, durationS, paths, headers, tls });
    }
    // The Node clients run in this process: their CPU is this process's.
    const cpu0 = process.cpuUsage();
    const clientCpuS = () => {
      const c = process.cpuUsage(cpu0);
      return (c.user + c.system) / 1e6;
    };
    if (PROTOCOL === 'h2') {
      const r = await h2Load({ port, streams: CONNECTIONS, durationS, pathFor, headers, tls: tlsOptions });
      return { rps: r.rps, p50: r.p50, p99: r.p99, bad: r.non2xx + r.errors, clientCpuS: clientCpuS() };
    }
    let i = 0;
    const r = await autocannon({
      url: `https://localhost:${port}`, connections: CONNECTIONS, duration: durationS, headers, tlsOptions,
      requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: pathFor(i++) }) }],
    });
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors + r.timeouts, clientCpuS: clientCpuS() };
  };
  const rows: string[] = [];
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  for (const [scenario, pathFor] of scenarios) {
    // Warm-up (JIT, TLS sessions, caches) for every server before anything is timed.
    for (const [, port] of servers) await load(port, 2, pathFor);
    const results = new Map<string, { rps: number[]; p50: number[]; p99: number[]; serverCpu: number[]; clientCpu: number[] }>();
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order each round so no server always runs first (or right after another).
      const order = servers.map((_, k) => servers[(k + round) % servers.length]!);
      for (const [name, port, pid] of order) {
        const cpu0 = procCpuSeconds(pid).own;
        const r = await load(port, DURATION, pathFor);
        const serverCpu = procCpuSeconds(pid).own - cpu0;
        // A server that answers errors quickly would look fast: such a round invalidates the comparison.
        if (r.bad) throw new Error(`${name}: ${r.bad} non-2xx answers, errors or timeouts under load ${'errors' in r ? r.errors.join('; ').slice(0, 300) : ''}`);
        const acc = results.get(name) ?? { rps: [], p50: [], p99: [], serverCpu: [], clientCpu: [] };
        acc.rps.push(r.rps);
        acc.p50.push(r.p50);
        acc.p99.push(r.p99);
        acc.serverCpu.push(serverCpu);
        acc.clientCpu.push(r.clientCpuS);
        results.set(name, acc);
        console.log(`  ${scenario} | ${name} | round ${round + 1}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, CPU s: server ${serverCpu.toFixed(1)}, client ${r.clientCpuS.toFixed(1)}`);
      }
    }
    const ours = results.get(servers[0]![0])!;
    for (const [name] of servers) {
      const x = results.get(name)!;
      // Ratios are ours relative to this row's server.
      const ratio = name === servers[0]![0] ? ' | | ' : ` | ${(median(ours.rps) / median(x.rps)).toFixed(2)}x | ${(median(ours.p99) / median(x.p99)).toFixed(2)}x`;
      const cpu = `${median(x.serverCpu).toFixed(1)} | ${median(x.clientCpu).toFixed(1)}`;
      rows.push(`| ${scenario} | ${name} | ${median(x.rps).toFixed(0)} | ${median(x.p50)} | ${median(x.p99)} | ${cpu}${ratio} |`);
    }
  }
  const shape = PROTOCOL === 'h2' ? `one HTTP/2 connection with ${CONNECTIONS} streams in flight` : `${CONNECTIONS} keep-alive HTTP/1.1 connections`;
  console.log(`\nadapter benchmark: ${EHPAS} EHPAs in ${NAMESPACES} namespaces, ${fx.pods.length} pods; ${shape} from ${client}, ${DURATION} s x ${ROUNDS} rounds per server (medians); ${cpus().length} CPUs (1-minute load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end), Node ${process.version}`);
  console.log('| scenario | server | req/s | p50 ms | p99 ms | server CPU s/round | client CPU s/round | ours/this req/s | ours/this p99 |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  stop();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
