// `npm run bench -- scale`: one `ehpa-adapter serve` replica against a real kube-apiserver holding
// thousands of EHPAs and tens of thousands of pods, the sizes BENCHMARKS.md "scale" publishes. Per size
// (SCALE_EHPAS, default "1000"; e.g. SCALE_EHPAS=1000,5000,10000):
//   - the e2e harness' etcd + kube-apiserver + kube-controller-manager (test/e2e/harness), no kubelet;
//   - 10 EHPAs per namespace (at most 1,000 namespaces), the mix of bench/controllers: CPU utilization on all,
//     prediction (DSP, 15 days of history, SCALE_HISTORY) on 3/4, crons on 1/2, Preview on 1/10; each on its own
//     Deployment, created paused so the Deployment controller makes no pods of its own; 10 pods per
//     Deployment created directly with the Deployment's labels, their status set Running+Ready as a
//     kubelet writes it (runningStatus in pod-status.ts; the harness runs no nodes here);
//   - serve as its own process (harness startAdapterProcess, the adapter's service-account identity and
//     manifests/ RBAC), Prometheus replaced by bench/forecast-offload's stub (input1, as much as each history query asks);
//   - convergence: serve start until every EHPA has its HPA; every TSP Ready (cold start, all fits);
//   - steady state: API requests by verb (serve's ehpa_adapter_kube_api_requests_total) over one
//     --ehpa-resync-period, per EHPA;
//   - the HPA's request mix through the aggregator as the HPA controller (its service account's token, or
//     with SCALE_LOAD_AUTH=cert kube-controller-manager's client certificate): one request per
//     adapter-served metric per HPA every 15 s, then a burst at 4x; latency p50/p99 of each;
//   - serve's RSS and CPU from /proc (CPU of threads other than the main one ≈ the forecast pool);
//   - a kube-apiserver restart (watch resume, not relists) and, with SCALE_CHURN_S, pod churn at
//     SCALE_CHURN_RATE (default 50/s) with serve's RSS sampled every second;
//   - the CPU every process spent over the HPA-rate load and over each rate of the sweep, and with
//     SCALE_PROFILE_DIR kube-apiserver's CPU profile over the HPA-rate load and over each sweep rate through
//     the aggregator, written there (read it with `go tool pprof -top -cum FILE`).
// kube-controller-manager's own HPA runs with a 1 h sync period so the load generator alone sets the rate.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { loadavg } from 'node:os';
import { parseAllDocuments } from 'yaml';
import { join } from 'node:path';
import {
  cpuByCommand, cpuSpentSince, createNamespace, deploymentObject, installCrds, installManifestRbac, startCluster, waitFor, type Cluster,
} from '../../test/e2e/harness/index.ts';
import { runningStatus } from './pod-status.ts';
import { startStubPrometheus } from '../forecast-offload/stub-prometheus.ts';

const SIZES = (process.env['SCALE_EHPAS'] ?? '1000').split(',').map(Number);
const PODS_PER_EHPA = Number(process.env['SCALE_PODS_PER_EHPA'] ?? 10);
const EHPAS_PER_NS = 10;
const RESYNC_S = Number(process.env['SCALE_RESYNC_S'] ?? 60);
const LOAD_S = Number(process.env['SCALE_LOAD_S'] ?? 60);
const BURST_S = Number(process.env['SCALE_BURST_S'] ?? 15);
const TSP_TIMEOUT_S = Number(process.env['SCALE_TSP_TIMEOUT_S'] ?? 1200);
// Pod churn after the other phases: SCALE_CHURN_S seconds of pods replaced at SCALE_CHURN_RATE per second
// (delete one, create its successor Running+Ready, as a rollout does), serve's RSS sampled throughout.
const CHURN_S = Number(process.env['SCALE_CHURN_S'] ?? 0);
const CHURN_RATE = Number(process.env['SCALE_CHURN_RATE'] ?? 50);
// Capacity sweep after the load phases (e.g. SCALE_SWEEP=50,100,200,400): SCALE_SWEEP_S seconds at each rate,
// once through the aggregator and once straight to serve's port (kube-apiserver's front-proxy client cert and
// X-Remote-* headers, as the aggregator sends them): where the latency knee is, and whose it is.
const SWEEP = (process.env['SCALE_SWEEP'] ?? '').split(',').filter(Boolean).map(Number);
const SWEEP_S = Number(process.env['SCALE_SWEEP_S'] ?? 10);
// Which metric requests the load phases send, at the HPA's full rate either way: `ready` (default) only those
// serve answers from a Ready forecast (and the cron metrics), the steady state the latency target is about;
// `all` every HPA's, which during the cold start is mostly the observed-usage fallback: one Prometheus query
// per request, here to the stub Prometheus inside this bench process.
const LOAD_MIX = process.env['SCALE_LOAD_MIX'] ?? 'ready';
const CREATE_CONCURRENCY = 24;
// The TSPs' dsp historyLength (default 15d, Crane's default history). A shorter one (e.g. SCALE_HISTORY=3d) makes each
// fit cheaper, so a run reaches every TSP Ready, and then the phases that need that (steady state, an hour of
// churn), within the time one machine has; its cold-start and fit figures then do not stand for 15 days.
const HISTORY = process.env['SCALE_HISTORY'] ?? '15d';
// How the load generator authenticates through the aggregator: `token` or `cert` (hpaClient).
const LOAD_AUTH = process.env['SCALE_LOAD_AUTH'] ?? 'token';
// With SCALE_PROFILE_DIR=DIR, kube-apiserver's CPU profiles over the HPA-rate load and the sweep's rates are written there.
const PROFILE_DIR = process.env['SCALE_PROFILE_DIR'];

interface Lat { phase: string; rate: number; n: number; errors: number; p50: number; p99: number; max: number }
interface Row {
  ehpas: number; namespaces: number; pods: number; tsps: number; createS: number; load: string;
  convergeS: number; convergeReq: Map<string, number>; tspReadyS: number | undefined; tspsReady: number;
  fitCpuS: number; mainCpuS: number; steady: Map<string, number>; steadyWindowS: number;
  rssConverged: number; rssPeak: number; rssEnd: number;
  lat: Lat[];
  serveCpuUnderLoad: number;
  restartRecoveryS: number; restartReq: Map<string, number>;
  sweep: { rate: number; via: Lat; direct: Lat }[];
  mix: Record<Served, number>;
  churn: { s: number; replaced: number; errors: number; rssStart: number; rssMin: number; rssMax: number; rssEnd: number; req: Map<string, number> } | undefined;
}

// ---------- small helpers ----------
/** The env of serve's container in manifests/deployment.yaml (NODE_OPTIONS, MALLOC_MMAP_THRESHOLD_). */
function manifestEnv(): Record<string, string> {
  const docs = parseAllDocuments(readFileSync(join(import.meta.dirname, '..', '..', 'manifests', 'deployment.yaml'), 'utf8')).map((d) => d.toJS() as { kind?: string; spec?: { template?: { spec?: { containers?: { env?: { name: string; value?: string }[] }[] } } } });
  const env = docs.find((d) => d?.kind === 'Deployment')?.spec?.template?.spec?.containers?.[0]?.env ?? [];
  return Object.fromEntries(env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value as string]));
}
/** With SCALE_HEAP_SNAPSHOT_DIR=DIR (and serve started with E2E_ADAPTER_NODE_ARGS="--heapsnapshot-signal=SIGUSR2
 *  --diagnostic-dir=DIR"), asks serve for a heap snapshot and waits until node has written it: what holds
 *  serve's memory at a given size. */
async function heapSnapshot(pid: number, when: string): Promise<void> {
  const dir = process.env['SCALE_HEAP_SNAPSHOT_DIR'];
  if (!dir) return;
  const t = performance.now();
  const snapshots = () => readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot'));
  const before = new Set(snapshots());
  process.kill(pid, 'SIGUSR2');
  let size = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 2000));
    const file = snapshots().find((f) => !before.has(f));
    if (!file) continue;
    const now = statSync(join(dir, file)).size;
    if (now === size && now > 0) break;
    size = now;
  }
  console.log(`  heap snapshot (${when}): ${mib(size)} written in ${((performance.now() - t) / 1000).toFixed(0)} s`);
}
async function pool<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < items.length) await f(items[i++] as T);
  }));
}
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};
const TICK = 100; // USER_HZ
function threadCpu(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const f = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      out.set(Number(t), (Number(rest[11]) + Number(rest[12])) / TICK);
    } catch {
      // the thread ended between readdir and read
    }
  }
  return out;
}
function processCpu(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / TICK;
}
function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}
/** kube-apiserver's CPU profile over `seconds` (its /debug/pprof/profile, as the admin), written to `file`. */
async function apiserverProfile(c: Cluster, seconds: number, file: string): Promise<string> {
  const url = new URL(`${c.apiserverUrl}/debug/pprof/profile?seconds=${seconds}`);
  const body = await new Promise<{ status: number; data: Buffer }>((done, fail) => {
    const req = request(url, { ca: readFileSync(c.clusterCaPath), cert: readFileSync(c.pki.admin.certPath), key: readFileSync(c.pki.admin.keyPath) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => done({ status: res.statusCode ?? 0, data: Buffer.concat(chunks) }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
  if (body.status !== 200) return `not taken: ${body.status} ${body.data.toString('utf8', 0, 200)}`;
  writeFileSync(file, body.data);
  return file;
}
/**
 * How the load generator authenticates to kube-apiserver, as the HPA controller would. `token` (default): a
 * bound token of kube-system's horizontal-pod-autoscaler service account, which kube-controller-manager's HPA
 * controller uses under --use-service-account-credentials (kubeadm's setting); the bootstrap RBAC already
 * lets it read the metrics APIs, and kube-apiserver caches a verified token (10 s). `cert`
 * (SCALE_LOAD_AUTH=cert): kube-controller-manager's own client certificate, what every controller sends
 * without that flag; kube-apiserver then verifies the certificate chain (an RSA signature) on every request.
 */
async function hpaClient(c: Cluster): Promise<{ agent: Agent; headers: Record<string, string>; user: string; groups: string[] }> {
  const ca = readFileSync(c.clusterCaPath);
  if (LOAD_AUTH === 'cert') {
    const kcm = await c.identity('system:kube-controller-manager');
    return { agent: new Agent({ keepAlive: true, maxSockets: 64, ca, cert: readFileSync(kcm.cert.certPath), key: readFileSync(kcm.cert.keyPath) }), headers: {}, user: 'system:kube-controller-manager', groups: ['system:authenticated'] };
  }
  const sa = '/api/v1/namespaces/kube-system/serviceaccounts';
  const created = await c.admin.request('POST', sa, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'horizontal-pod-autoscaler' } } });
  if (created.status !== 201 && created.status !== 409) throw new Error(`service account: ${created.status} ${created.body}`);
  const tr = await c.admin.request('POST', `${sa}/horizontal-pod-autoscaler/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 86_400 } } });
  if (tr.status !== 201) throw new Error(`token request: ${tr.status} ${tr.body}`);
  const token = (JSON.parse(tr.body) as { status: { token: string } }).status.token;
  return { agent: new Agent({ keepAlive: true, maxSockets: 64, ca }), headers: { authorization: `Bearer ${token}` }, user: 'system:serviceaccount:kube-system:horizontal-pod-autoscaler', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] };
}
/** serve's API requests so far, by verb, or by verb and resource (`PATCH timeseriespredictions.prediction.crane.io/status`). */
async function apiRequests(metricsUrl: string, byResource = false): Promise<Map<string, number>> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const out = new Map<string, number>();
  const series = /^ehpa_adapter_kube_api_requests_total\{method="(\w+)",resource="([^"]*)",subresource="([^"]*)"\} (\S+)$/gm;
  for (const [, method, resource, sub, n] of text.matchAll(series)) {
    const key = byResource ? `${method} ${resource}${sub ? `/${sub}` : ''}` : method!;
    out.set(key, (out.get(key) ?? 0) + Number(n));
  }
  return out;
}
/** serve's informer syncs so far, by mode (watch-list or list), summed over the kinds. */
async function informerSyncs(metricsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const out = new Map<string, number>();
  for (const [, mode, n] of text.matchAll(/^ehpa_adapter_informer_syncs_total\{resource="[^"]*",mode="([^"]*)"\} (\S+)$/gm)) out.set(mode!, (out.get(mode!) ?? 0) + Number(n));
  return out;
}
const diff = (a: Map<string, number>, b: Map<string, number>) => new Map([...a].map(([k, v]) => [k, v - (b.get(k) ?? 0)] as [string, number]).filter(([, v]) => v > 0));
/** Requests by verb from requests by "VERB resource". */
const byVerb = (byResource: Map<string, number>) => {
  const out = new Map<string, number>();
  for (const [k, n] of byResource) {
    const verb = k.split(' ')[0]!;
    out.set(verb, (out.get(verb) ?? 0) + n);
  }
  return out;
};
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const fmtReq = (m: Map<string, number>, per: number) => [...m].sort().map(([k, v]) => `${k} ${(v / per).toFixed(2)}`).join(', ') || '0';
const mib = (b: number) => `${Math.round(b / 2 ** 20)} MiB`;

/** Items of a cluster-wide list, paginated (limit 500). */
async function listAll<T>(c: Cluster, path: string): Promise<T[]> {
  const items: T[] = [];
  let cont = '';
  do {
    const r = await c.admin.getJson<{ items: T[]; metadata: { continue?: string } }>(`${path}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    items.push(...r.items);
    cont = r.metadata.continue ?? '';
  } while (cont);
  return items;
}
/** Object count of a cluster-wide list without transferring it (limit=1 + remainingItemCount). */
async function count(c: Cluster, path: string): Promise<number> {
  const r = await c.admin.getJson<{ items: unknown[]; metadata: { remainingItemCount?: number } }>(`${path}?limit=1`);
  return r.items.length + (r.metadata.remainingItemCount ?? 0);
}

// ---------- the workload ----------
function ehpaSpec(i: number, target: string): Record<string, unknown> {
  return {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
    minReplicas: 1,
    maxReplicas: 20 + (i % 10),
    scaleStrategy: i % 10 === 0 ? 'Preview' : 'Auto',
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 + (i % 30) } } }],
    ...(i % 2 === 0 ? { crons: [{ name: 'peak', timezone: 'Asia/Shanghai', start: '0 9 ? * mon-fri', end: '0 18 ? * mon-fri', targetReplicas: 5 }] } : {}),
    ...(i % 4 !== 3 ? { prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: HISTORY } } } } : {}),
  };
}

type Created = { metadata: { name: string; namespace: string; uid: string; resourceVersion: string }; spec: { containers: { name: string; image?: string }[] } };
async function post(c: Cluster, path: string, body: unknown): Promise<Created> {
  const r = await c.admin.request('POST', path, { body });
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.body.slice(0, 300)}`);
  return r.json as Created;
}
const appDeployment = (ns: string, name: string) =>
  deploymentObject(ns, name, { replicas: PODS_PER_EHPA, cpuRequest: '500m' }) as { spec: Record<string, unknown> & { template: { metadata: Record<string, unknown>; spec: unknown } } };
const podName = (app: string, p: number) => `${app}-5d8f7c9b4-${String(p).padStart(5, 'x')}`;

/** One pod of app `i`'s Deployment, created directly and marked Running+Ready as its kubelet would. */
async function createPod(c: Cluster, i: number, name: string): Promise<void> {
  const ns = `scale-${Math.floor(i / EHPAS_PER_NS)}`;
  const dep = appDeployment(ns, `app-${i}`);
  const pod = await post(c, `/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: dep.spec.template.metadata['labels'] }, spec: dep.spec.template.spec,
  });
  const r = await c.admin.request('PATCH', `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/status`, {
    body: { status: runningStatus(pod, new Date(Date.now() - 60_000)) }, contentType: 'application/merge-patch+json',
  });
  if (r.status !== 200) throw new Error(`pod status: ${r.status} ${r.body.slice(0, 200)}`);
}

async function populate(c: Cluster, n: number): Promise<{ namespaces: string[]; pods: number }> {
  const nsCount = Math.ceil(n / EHPAS_PER_NS);
  const namespaces = Array.from({ length: nsCount }, (_, k) => `scale-${k}`);
  await pool(namespaces, 8, (ns) => createNamespace(c, ns));
  const idx = Array.from({ length: n }, (_, i) => i);
  let pods = 0;
  await pool(idx, CREATE_CONCURRENCY, async (i) => {
    const ns = `scale-${Math.floor(i / EHPAS_PER_NS)}`;
    const name = `app-${i}`;
    const dep = appDeployment(ns, name);
    dep.spec['paused'] = true; // no ReplicaSet, no controller-made pods: the bench makes them
    await post(c, `/apis/apps/v1/namespaces/${ns}/deployments`, dep);
    for (let p = 0; p < PODS_PER_EHPA; p++) {
      await createPod(c, i, podName(name, p));
      pods++;
    }
    await post(c, `/apis/autoscaling.crane.io/v1alpha1/namespaces/${ns}/effectivehorizontalpodautoscalers`, {
      apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler', metadata: { name, namespace: ns }, spec: ehpaSpec(i, name),
    });
  });
  return { namespaces, pods };
}

/**
 * Pod churn: `rate` replacements a second for `seconds` (open loop, at most 64 in flight), walking the apps
 * round-robin so every Deployment loses and regains pods; each replacement deletes one pod (grace 0) and
 * creates its successor under a new name, Running+Ready. Returns how many were replaced and failed.
 */
async function churn(c: Cluster, n: number, rate: number, seconds: number): Promise<{ replaced: number; errors: number }> {
  const current = Array.from({ length: n }, (_, i) => Array.from({ length: PODS_PER_EHPA }, (_, p) => podName(`app-${i}`, p)));
  let replaced = 0;
  let errors = 0;
  let k = 0;
  let inflight = 0;
  const one = async (seq: number) => {
    const i = seq % n;
    const slot = Math.floor(seq / n) % PODS_PER_EHPA;
    const ns = `scale-${Math.floor(i / EHPAS_PER_NS)}`;
    const old = current[i]![slot]!;
    const next = `app-${i}-r${seq.toString(36)}`;
    current[i]![slot] = next;
    try {
      const d = await c.admin.request('DELETE', `/api/v1/namespaces/${ns}/pods/${old}`, { body: { gracePeriodSeconds: 0 } });
      if (d.status !== 200 && d.status !== 404) throw new Error(`DELETE pod: ${d.status}`);
      await createPod(c, i, next);
      replaced++;
    } catch (e) {
      if (errors++ === 0) console.log(`  (first churn error: ${(e as Error).message})`);
    }
  };
  const pending = new Set<Promise<void>>();
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    while (k < due && inflight < 64) {
      inflight++;
      const p: Promise<void> = one(k++).finally(() => {
        inflight--;
        pending.delete(p);
      });
      pending.add(p);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(pending);
  return { replaced, errors };
}

// ---------- the HPA's request mix ----------
interface Hpa {
  metadata: { namespace: string; name: string; ownerReferences?: { name: string }[] };
  spec: { scaleTargetRef: { name: string }; metrics?: { type: string; pods?: { metric: { name: string; selector?: { matchLabels?: Record<string, string> } } }; external?: { metric: { name: string; selector?: { matchLabels?: Record<string, string> } } } }[] };
}
const sel = (m: Record<string, string> | undefined) => encodeURIComponent(Object.entries(m ?? {}).map(([k, v]) => `${k}=${v}`).join(','));

/** How serve answers a metric request: from a Ready forecast, by the observed-usage fallback (the EHPA's TSP
 *  is not Ready yet), or the cron metric (no Prometheus either way). */
type Served = 'forecast' | 'fallback' | 'cron';
interface HpaRequest { path: string; served: Served }

/** The adapter-served metric requests the HPA controller makes for these HPAs (Resource metrics go to
 *  metrics.k8s.io); `readyTsps` holds "namespace/name" of the TSPs whose Ready condition is True. */
function hpaRequests(hpas: Hpa[], readyTsps: ReadonlySet<string>): HpaRequest[] {
  const out: HpaRequest[] = [];
  for (const h of hpas) {
    const ns = h.metadata.namespace;
    for (const m of h.spec.metrics ?? []) {
      if (m.type === 'Pods' && m.pods) {
        // The HPA lists the target's pods by the /scale selector: the Deployment's app=<name> (a Preview
        // HPA's Substitute copies it); each EHPA here scales the Deployment of its own name, and its TSP is
        // named like its HPA (ehpa-<EHPA name>).
        const app = h.metadata.ownerReferences?.[0]?.name ?? h.spec.scaleTargetRef.name;
        out.push({
          path: `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${ns}/pods/%2A/${m.pods.metric.name}?labelSelector=${sel({ app })}&metricLabelSelector=${sel(m.pods.metric.selector?.matchLabels)}`,
          served: readyTsps.has(`${ns}/ehpa-${app}`) ? 'forecast' : 'fallback',
        });
      } else if (m.type === 'External' && m.external) {
        out.push({ path: `/apis/external.metrics.k8s.io/v1beta1/namespaces/${ns}/${m.external.metric.name}?labelSelector=${sel(m.external.metric.selector?.matchLabels)}`, served: 'cron' });
      }
    }
  }
  return out;
}

/** Where the load goes: kube-apiserver (the aggregator), or serve itself with the headers the aggregator adds. */
interface Target { host: string; port: string | number; headers?: Record<string, string | string[]> }

/** Open-loop load: `rate` req/s for `seconds`, round-robin over `paths`; latency of each answer. */
async function load(target: Target, agent: Agent, paths: readonly string[], rate: number, seconds: number, phase: string): Promise<Lat> {
  const lat: number[] = [];
  let errors = 0;
  let i = 0;
  let inflight = 0;
  const one = () => new Promise<void>((resolve) => {
    const t0 = performance.now();
    inflight++;
    const path = paths[i++ % paths.length]!;
    const req = request({ host: target.host, port: target.port, path, method: 'GET', agent, headers: { accept: 'application/json', ...target.headers }, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => {
        inflight--;
        if (res.statusCode === 200) lat.push(performance.now() - t0);
        else if (errors++ === 0) console.log(`  (first error in ${phase}: ${res.statusCode} ${path})`);
        resolve();
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => {
      inflight--;
      errors++;
      resolve();
    });
    req.end();
  });
  const pending: Promise<void>[] = [];
  const start = performance.now();
  let sent = 0;
  while (performance.now() - start < seconds * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    for (; sent < due; sent++) pending.push(one());
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(pending);
  void inflight;
  return { phase, rate: Math.round(rate), n: lat.length, errors, p50: pct(lat, 50), p99: pct(lat, 99), max: pct(lat, 100) };
}

// ---------- one size ----------
async function runSize(n: number): Promise<Row> {
  const cluster = await startCluster({ kubelet: false, prometheus: false, hpaSyncPeriod: '1h' });
  const prom = await startStubPrometheus({ observedPods: true });
  try {
    await installCrds(cluster);
    await installManifestRbac(cluster);
    await cluster.routeMetricsApisToAdapter();
    const tc = performance.now();
    const { namespaces, pods } = await populate(cluster, n);
    const createS = (performance.now() - tc) / 1000;
    console.log(`  ${n} EHPAs, ${pods} pods in ${namespaces.length} namespaces created in ${createS.toFixed(0)} s`);
    const tsps = Array.from({ length: n }, (_, i) => i).filter((i) => i % 4 !== 3).length;

    const t0 = performance.now();
    const serve = await cluster.startAdapterProcess({
      name: 'serve',
      args: [
        `--secure-port=${cluster.adapterPort}`, '--bind-address=127.0.0.1', `--cert-dir=${join(cluster.dir, 'adapter-certs')}`,
        `--prometheus-url=${prom.url}`, '--leader-election-namespace=ehpa-system', '--log-level=warn',
        `--ehpa-resync-period=${RESYNC_S}s`,
        ...(process.env['SCALE_SERVE_ARGS'] ? process.env['SCALE_SERVE_ARGS'].split(' ') : []),
      ],
      // The container env of manifests/deployment.yaml (the heap cap, glibc's mmap threshold), so RSS is what
      // the pod would show. To
      // profile serve, set E2E_ADAPTER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" (the harness passes it to
      // node; node refuses --cpu-prof in NODE_OPTIONS).
      env: manifestEnv(),
    });
    // bin/ehpa-adapter.js runs dist/ when it exists (what the image ships), else the sources through tsx,
    // whose loader threads and transpiled-source cache add memory the image does not have.
    const compiled = existsSync(join(import.meta.dirname, '..', '..', 'dist', 'main.js'));
    console.log(`  serve runs ${compiled ? 'the compiled dist/ (as the image does)' : 'the TypeScript sources through tsx (npm run build first to measure the image\'s code)'}`);
    const pid = serve.pid;
    const cpuStart = threadCpu(pid);
    let rssPeak = 0;
    let rssLast = 0;
    const sampler = setInterval(() => {
      try {
        rssLast = rssBytes(pid);
        rssPeak = Math.max(rssPeak, rssLast);
      } catch {
        // serve exited; the waits below report it
      }
    }, 1000);
    try {
      let hpas = 0;
      await waitFor('every EHPA has its HPA', async () => (hpas = await count(cluster, '/apis/autoscaling/v2/horizontalpodautoscalers')) >= n,
        { timeoutMs: 3_600_000, intervalMs: 2000, process: serve as never }).catch((e: Error) => {
        throw new Error(`${e.message} (${hpas}/${n})`);
      });
      const convergeS = (performance.now() - t0) / 1000;
      const convergeReq = await apiRequests(serve.metricsUrl);
      const rssConverged = rssLast;
      console.log(`  converged in ${convergeS.toFixed(1)} s; API requests ${fmtReq(convergeReq, 1)}; RSS ${mib(rssConverged)}`);
      await heapSnapshot(pid, 'converged');

      // Every TSP Ready: the forecasting cold start.
      let ready = 0;
      let readyTsps = new Set<string>();
      let tspReadyS: number | undefined;
      const tspDeadline = performance.now() + TSP_TIMEOUT_S * 1000;
      while (performance.now() < tspDeadline) {
        const items = await listAll<{ metadata: { namespace: string; name: string }; status?: { conditions?: { type: string; status: string }[] } }>(cluster, '/apis/prediction.crane.io/v1alpha1/timeseriespredictions');
        readyTsps = new Set(items.filter((t) => t.status?.conditions?.some((k) => k.type === 'Ready' && k.status === 'True')).map((t) => `${t.metadata.namespace}/${t.metadata.name}`));
        ready = readyTsps.size;
        if (ready >= tsps) {
          tspReadyS = (performance.now() - t0) / 1000;
          break;
        }
        // Each poll lists every TSP with its status (~9 KB each once Ready: ~70 MB at 7,500), work for
        // kube-apiserver on the CPUs the fits need; so the poll thins out with the count (30 s at 7,500).
        await new Promise((r) => setTimeout(r, Math.max(5000, tsps * 4)));
      }
      const cpuFit = threadCpu(pid);
      let mainCpuS = 0;
      let fitCpuS = 0;
      for (const [tid, s] of cpuFit) {
        const d = s - (cpuStart.get(tid) ?? 0);
        if (tid === pid) mainCpuS += d;
        else fitCpuS += d;
      }
      console.log(`  TSPs Ready ${ready}/${tsps}${tspReadyS ? ` at ${tspReadyS.toFixed(0)} s` : ' (timed out)'}; CPU main thread ${mainCpuS.toFixed(1)} s, other threads ${fitCpuS.toFixed(1)} s`);
      await heapSnapshot(pid, 'TSPs Ready');

      // Steady state: one resync period with nothing to change.
      const s0 = await apiRequests(serve.metricsUrl, true);
      const ts = performance.now();
      await new Promise((r) => setTimeout(r, RESYNC_S * 1000));
      const steadyByResource = diff(await apiRequests(serve.metricsUrl, true), s0);
      const steady = byVerb(steadyByResource);
      const steadyWindowS = (performance.now() - ts) / 1000;
      console.log(`  steady state over ${steadyWindowS.toFixed(0)} s: ${fmtReq(steady, 1)} (${fmtReq(steadyByResource, 1)})`);

      // The HPA's request mix through the aggregator, as kube-controller-manager.
      const hpaList = await listAll<Hpa>(cluster, '/apis/autoscaling/v2/horizontalpodautoscalers');
      const requests = hpaRequests(hpaList, readyTsps);
      const served = (k: Served) => requests.filter((r) => r.served === k).length;
      const mix = { forecast: served('forecast'), fallback: served('fallback'), cron: served('cron') };
      const paths = requests.filter((r) => LOAD_MIX === 'all' || r.served !== 'fallback').map((r) => r.path);
      console.log(`  metric requests: ${mix.forecast} from a Ready forecast, ${mix.fallback} by the observed-usage fallback, ${mix.cron} cron; the load sends ${LOAD_MIX === 'all' ? 'all of them' : 'the forecast and cron ones'} at the rate of all ${requests.length}`);
      const { agent, headers: loadHeaders, user: loadUser, groups: loadGroups } = await hpaClient(cluster);
      console.log(`  the load authenticates as ${loadUser} (${LOAD_AUTH === 'cert' ? 'client certificate' : 'bound token'})`);
      const rate = requests.length / 15;
      const apiserver = new URL(cluster.apiserverUrl);
      const viaAggregator: Target = { host: apiserver.hostname, port: apiserver.port, headers: loadHeaders };
      await load(viaAggregator, agent, paths, Math.min(rate, 50), 5, 'warm-up');
      const cpuL0 = processCpu(pid);
      const named = new Map([[pid, 'serve'], [process.pid, 'bench (load generator)']]);
      const cpuByProcess0 = cpuByCommand(named);
      const tl = performance.now();
      // Where the HPA rate's latency goes: with SCALE_PROFILE_DIR, kube-apiserver's own CPU profile over
      // the load (its /debug/pprof, as the admin), beside the CPU every process spent.
      const profile = PROFILE_DIR ? apiserverProfile(cluster, Math.min(LOAD_S, 30), join(PROFILE_DIR, `kube-apiserver-${n}-hpa-rate.pprof`)) : undefined;
      const hpaRate = await load(viaAggregator, agent, paths, rate, LOAD_S, `HPA rate (${requests.length} metrics / 15 s)`);
      const cpuDuringHpaRate = cpuSpentSince(cpuByProcess0, named);
      const lat = [hpaRate, await load(viaAggregator, agent, paths, rate * 4, BURST_S, 'burst 4x')];
      const serveCpuUnderLoad = (processCpu(pid) - cpuL0) / ((performance.now() - tl) / 1000);
      const showLat = (l: Lat) => console.log(`  ${l.phase}: ${l.rate} req/s, ${l.n} ok, ${l.errors} errors, p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, max ${l.max.toFixed(0)} ms`);
      lat.forEach(showLat);
      console.log(`  CPU by process over the ${LOAD_S} s at the HPA rate: ${cpuDuringHpaRate}`);
      if (profile) console.log(`  kube-apiserver CPU profile over the HPA rate: ${await profile} (go tool pprof -top -cum)`);
      const sweep: Row['sweep'] = [];
      if (SWEEP.length > 0) {
        const fp = cluster.frontProxy;
        const direct = new Agent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false, cert: readFileSync(fp.certPath), key: readFileSync(fp.keyPath) });
        const toServe: Target = { host: '127.0.0.1', port: cluster.adapterPort, headers: { 'X-Remote-User': loadUser, 'X-Remote-Group': loadGroups } };
        await load(toServe, direct, paths, 20, 2, 'warm-up (direct)');
        for (const r of SWEEP) {
          // Whose CPU each rate costs, and with SCALE_PROFILE_DIR kube-apiserver's profile at that rate: where
          // the aggregator path's knee comes from.
          const viaCpu0 = cpuByCommand(named);
          const viaProfile = PROFILE_DIR ? apiserverProfile(cluster, SWEEP_S, join(PROFILE_DIR, `kube-apiserver-${n}-sweep-${r}.pprof`)) : undefined;
          const via = await load(viaAggregator, agent, paths, r, SWEEP_S, `sweep ${r}/s via the aggregator`);
          const viaCpu = cpuSpentSince(viaCpu0, named);
          const dirCpu0 = cpuByCommand(named);
          const dir = await load(toServe, direct, paths, r, SWEEP_S, `sweep ${r}/s straight to serve`);
          const dirCpu = cpuSpentSince(dirCpu0, named);
          showLat(via);
          console.log(`    CPU by process: ${viaCpu}${viaProfile ? `; kube-apiserver profile: ${await viaProfile}` : ''}`);
          showLat(dir);
          console.log(`    CPU by process: ${dirCpu}`);
          sweep.push({ rate: r, via, direct: dir });
        }
        direct.destroy();
      }
      agent.destroy();

      // A kube-apiserver restart: serve's informers should resume their watches, not list every kind again.
      // Recovered = an edit made after the restart reaches serve (one EHPA's maxReplicas shows in its HPA).
      const r0 = await apiRequests(serve.metricsUrl, true);
      const sy0 = await informerSyncs(serve.metricsUrl);
      const tr = performance.now();
      await cluster.restartApiserver();
      const probe = '/apis/autoscaling.crane.io/v1alpha1/namespaces/scale-0/effectivehorizontalpodautoscalers/app-0';
      const maxReplicas = 17;
      const pr = await cluster.admin.request('PATCH', probe, { body: { spec: { maxReplicas } }, contentType: 'application/merge-patch+json' });
      if (pr.status !== 200) throw new Error(`EHPA patch after the restart: ${pr.status} ${pr.body.slice(0, 200)}`);
      await waitFor('the HPA follows an EHPA edit made after the restart', async () =>
        ((await cluster.admin.getJson<{ spec: { maxReplicas: number } }>('/apis/autoscaling/v2/namespaces/scale-0/horizontalpodautoscalers/ehpa-app-0')).spec.maxReplicas === maxReplicas),
        { timeoutMs: 600_000, intervalMs: 500, process: serve as never });
      const restartRecoveryS = (performance.now() - tr) / 1000;
      await new Promise((r) => setTimeout(r, 10_000));
      const restartByResource = diff(await apiRequests(serve.metricsUrl, true), r0);
      const restartReq = new Map<string, number>();
      for (const [k, n] of restartByResource) restartReq.set(k.split(' ')[0]!, (restartReq.get(k.split(' ')[0]!) ?? 0) + n);
      const restartSyncs = diff(await informerSyncs(serve.metricsUrl), sy0);
      console.log(`  kube-apiserver restart: serve followed an edit ${restartRecoveryS.toFixed(1)} s after the restart began; its API requests until 10 s later: ${fmtReq(restartReq, 1)} (${fmtReq(restartByResource, 1)}); informer syncs: ${fmtReq(restartSyncs, 1)}`);

      // Pod churn: RSS must stay flat while pods come and go (the published target: stable over an hour of pods replaced at 50/s).
      let churnRow: Row['churn'];
      if (CHURN_S > 0) {
        const c0 = await apiRequests(serve.metricsUrl, true);
        const rssStart = rssLast;
        let rssMin = rssLast;
        let rssMax = rssLast;
        const minute = setInterval(() => {
          rssMin = Math.min(rssMin, rssLast);
          rssMax = Math.max(rssMax, rssLast);
          console.log(`  churn: RSS ${mib(rssLast)}`);
        }, 60_000);
        const track = setInterval(() => {
          rssMin = Math.min(rssMin, rssLast);
          rssMax = Math.max(rssMax, rssLast);
        }, 1000);
        const tc0 = performance.now();
        const { replaced, errors } = await churn(cluster, n, CHURN_RATE, CHURN_S).finally(() => {
          clearInterval(minute);
          clearInterval(track);
        });
        const s = (performance.now() - tc0) / 1000;
        const churnByResource = diff(await apiRequests(serve.metricsUrl, true), c0);
        churnRow = { s, replaced, errors, rssStart, rssMin, rssMax, rssEnd: rssLast, req: byVerb(churnByResource) };
        console.log(`  churn: ${replaced} pods replaced in ${s.toFixed(0)} s (${(replaced / s).toFixed(1)}/s, ${errors} errors); RSS start ${mib(rssStart)}, min ${mib(rssMin)}, max ${mib(rssMax)}, end ${mib(rssLast)}; serve's API requests ${fmtReq(churnRow.req, 1)} (${fmtReq(churnByResource, 1)})`);
      }
      return {
        restartRecoveryS, restartReq, churn: churnRow, sweep, mix,
        ehpas: n, namespaces: namespaces.length, pods, tsps, createS, load: loadavg().map((x) => x.toFixed(2)).join(' '),
        convergeS, convergeReq, tspReadyS, tspsReady: ready, fitCpuS, mainCpuS, steady, steadyWindowS,
        rssConverged, rssPeak, rssEnd: rssLast, lat, serveCpuUnderLoad,
      };
    } finally {
      clearInterval(sampler);
      await serve.stop(10_000);
    }
  } catch (e) {
    console.error(await cluster.logs(30));
    throw e;
  } finally {
    prom.close();
    await cluster.stop();
  }
}

const rows: Row[] = [];
for (const n of SIZES) {
  console.log(`\n-- scale: ${n} EHPAs, TSP history ${HISTORY} (load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')})`);
  rows.push(await runSize(n));
}
const cell = (f: (r: Row) => string) => rows.map(f).join(' | ');
console.log(`\nscale benchmark: one serve replica, real kube-apiserver/etcd/kube-controller-manager (v1.34.4), Node ${process.version}; resync ${RESYNC_S} s; load ${LOAD_S} s + burst ${BURST_S} s`);
console.log(`| | ${cell((r) => `${r.ehpas.toLocaleString('en-US')} EHPAs`)} |`);
console.log(`|---|${rows.map(() => '---').join('|')}|`);
const lines: [string, (r: Row) => string][] = [
  ['pods / namespaces / TSPs', (r) => `${r.pods.toLocaleString('en-US')} / ${r.namespaces} / ${r.tsps.toLocaleString('en-US')}`],
  ['load average at the end (1/5/15 min)', (r) => r.load],
  ['first convergence (serve start → every EHPA has its HPA)', (r) => `${r.convergeS.toFixed(1)} s (${Math.round(r.ehpas / r.convergeS)} EHPAs/s)`],
  ['API requests per EHPA, first convergence', (r) => `${(sum(r.convergeReq) / r.ehpas).toFixed(2)} (${fmtReq(r.convergeReq, r.ehpas)})`],
  ['steady state: API requests per EHPA per resync pass', (r) => `${(sum(r.steady) / r.ehpas / (r.steadyWindowS / RESYNC_S)).toFixed(2)} (${fmtReq(r.steady, r.ehpas * (r.steadyWindowS / RESYNC_S))})`],
  ['TSP cold start → all Ready', (r) => (r.tspReadyS ? `${r.tspReadyS.toFixed(0)} s` : `${r.tspsReady}/${r.tsps} Ready after ${TSP_TIMEOUT_S} s (all ≈ ${r.tspsReady ? Math.round((r.tsps / r.tspsReady) * TSP_TIMEOUT_S) : '?'} s at that rate)`)],
  ['CPU per TSP fit (threads off the main one / TSPs Ready)', (r) => (r.tspsReady ? `${((r.fitCpuS / r.tspsReady) * 1000).toFixed(0)} ms (${r.fitCpuS.toFixed(0)} s total; main thread ${r.mainCpuS.toFixed(0)} s)` : 'n/a')],
  ['RSS after convergence / peak / end', (r) => `${mib(r.rssConverged)} / ${mib(r.rssPeak)} / ${mib(r.rssEnd)}`],
  [`metric requests: from a Ready forecast / observed-usage fallback / cron (the load sends ${LOAD_MIX === 'all' ? 'all' : 'forecast + cron'})`, (r) => `${r.mix.forecast} / ${r.mix.fallback} / ${r.mix.cron}`],
  ...[0, 1].map((k): [string, (r: Row) => string] => [
    `metrics APIs through the aggregator, ${k === 0 ? 'HPA rate' : 'burst 4×'}: req/s, p50 / p99`,
    (r) => { const l = r.lat[k]!; return `${l.rate}/s: ${l.p50.toFixed(1)} / ${l.p99.toFixed(1)} ms (${l.errors} errors of ${l.n + l.errors})`; },
  ]),
  ['serve CPU under the load (cores)', (r) => r.serveCpuUnderLoad.toFixed(2)],
  ...SWEEP.map((rate): [string, (r: Row) => string] => [
    `sweep ${rate} req/s (${SWEEP_S} s each): p50 / p99 via the aggregator; straight to serve`,
    (r) => {
      const w = r.sweep.find((x) => x.rate === rate);
      const f = (l: Lat) => `${l.p50.toFixed(1)} / ${l.p99.toFixed(1)} ms${l.errors ? ` (${l.errors} errors)` : ''}`;
      return w ? `${f(w.via)}; ${f(w.direct)}` : 'n/a';
    },
  ]),
  ['kube-apiserver restart: edit seen after / serve API requests (GET = lists)', (r) => `${r.restartRecoveryS.toFixed(1)} s / ${fmtReq(r.restartReq, 1)}`],
  ['pod churn: replaced (rate) over; RSS start / min / max / end; serve API requests', (r) => (r.churn
    ? `${r.churn.replaced.toLocaleString('en-US')} (${(r.churn.replaced / r.churn.s).toFixed(1)}/s, ${r.churn.errors} errors) over ${(r.churn.s / 60).toFixed(0)} min; ${mib(r.churn.rssStart)} / ${mib(r.churn.rssMin)} / ${mib(r.churn.rssMax)} / ${mib(r.churn.rssEnd)}; ${fmtReq(r.churn.req, 1)}`
    : 'not run (SCALE_CHURN_S=0)')],
];
for (const [k, f] of lines) console.log(`| ${k} | ${cell(f)} |`);
process.exit(0);
