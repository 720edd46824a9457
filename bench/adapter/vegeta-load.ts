// Load from vegeta (github.com/tsenart/vegeta, Go), the adapter benchmark's default client. Why vegeta: it is
// native, so the load costs the 2 CPUs far less than a Node client in the bench process would (and what it
// costs is measured: its CPU seconds are reported beside the server's); it presents the front-proxy client
// certificate, which both servers authenticate requests by (h2load cannot); and it speaks HTTP/2 over TLS
// and HTTP/1.1, so both protocols are measured by one client the same way for every server.
// Closed loop: `inFlight` workers, each sending its next request when its last one is answered. HTTP/2 is one
// connection carrying them all (as kube-apiserver's proxy sends them); HTTP/1.1 is `inFlight` keep-alive
// connections.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const VEGETA_VERSION = 'v12.13.0';

/** The vegeta binary, built once from the Go module proxy into a cache keyed by version; undefined without Go. */
export function buildVegeta(): string | undefined {
  const gobin = join(homedir(), '.cache', 'ehpa-adapter', `vegeta-${VEGETA_VERSION}`);
  const bin = join(gobin, 'vegeta');
  if (existsSync(bin)) return bin;
  if (spawnSync('go', ['version']).status !== 0) return undefined;
  mkdirSync(gobin, { recursive: true });
  console.log(`building vegeta ${VEGETA_VERSION} into ${gobin} …`);
  const r = spawnSync('nice', ['go', 'install', `github.com/tsenart/vegeta/v12@${VEGETA_VERSION}`], { env: { ...process.env, GOBIN: gobin }, stdio: 'inherit' });
  return r.status === 0 && existsSync(bin) ? bin : undefined;
}

/** CPU seconds from /proc/<pid>/stat: the process's own (utime + stime) and that of its children it has
 *  reaped (cutime + cstime), which grows by a child's whole CPU time when the child exits. */
export function procCpuSeconds(pid: number | 'self'): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after "(comm) ", numbered from 3 (state); utime, stime, cutime, cstime are fields 14 to 17.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  const tick = 100; // USER_HZ: 100 on Linux whatever the kernel's HZ
  return { own: (f[11]! + f[12]!) / tick, children: (f[13]! + f[14]!) / tick };
}

export interface VegetaLoadOptions {
  bin: string;
  /** Where the targets and results files go. */
  dir: string;
  port: number;
  protocol: 'h2' | 'http/1.1';
  inFlight: number;
  durationS: number;
  /** Requested in turn, round-robin. */
  paths: string[];
  headers: Record<string, string>;
  /** PEM files: the serving CA and the front-proxy client certificate and key. */
  tls: { caFile: string; certFile: string; keyFile: string };
}

export interface VegetaLoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Answers that were not 2xx, and transport errors (status 0). */
  bad: number;
  errors: string[];
  clientCpuS: number;
}

interface VegetaReport {
  throughput: number;
  latencies: { '50th': number; '99th': number };
  status_codes: Record<string, number>;
  errors: string[] | null;
}

function run(bin: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (b: Buffer) => (out += b.toString()));
    p.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
    p.once('error', reject);
    p.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`vegeta ${args[0]} exited with ${code}: ${err}`))));
  });
}

export async function vegetaLoad(o: VegetaLoadOptions): Promise<VegetaLoadResult> {
  const targets = join(o.dir, 'vegeta-targets.txt');
  const results = join(o.dir, 'vegeta-results.bin');
  const headerLines = Object.entries(o.headers).map(([k, v]) => `${k}: ${v}\n`).join('');
  await writeFile(targets, o.paths.map((p) => `GET https://localhost:${o.port}${p}\n${headerLines}`).join('\n'));
  const connections = o.protocol === 'h2' ? ['-max-connections=1'] : ['-http2=false', `-connections=${o.inFlight}`, `-max-connections=${o.inFlight}`];
  const before = procCpuSeconds('self').children;
  await run(o.bin, [
    'attack', `-targets=${targets}`, `-output=${results}`, '-rate=0', `-workers=${o.inFlight}`, `-max-workers=${o.inFlight}`,
    `-duration=${o.durationS}s`, `-root-certs=${o.tls.caFile}`, `-cert=${o.tls.certFile}`, `-key=${o.tls.keyFile}`,
    '-max-body=0', // bodies are read in full but not kept in the results file
    ...connections,
  ]);
  // Read before `vegeta report` runs, so the figure is the attack's alone.
  const clientCpuS = procCpuSeconds('self').children - before;
  const r = JSON.parse(await run(o.bin, ['report', '-type=json', results])) as VegetaReport;
  const bad = Object.entries(r.status_codes).reduce((n, [code, count]) => (code.startsWith('2') ? n : n + count), 0);
  const ms = (ns: number) => Math.round(ns / 1e5) / 10;
  return { rps: r.throughput, p50: ms(r.latencies['50th']), p99: ms(r.latencies['99th']), bad, errors: r.errors ?? [], clientCpuS };
}
