// startCluster(): the whole local stack on loopback for the end-to-end tests, the demo and benchmarks:
// etcd, kube-apiserver (aggregation layer on), kube-controller-manager (the real HPA), nodes played by
// kube-scheduler, kwok and the real metrics-server (harness/kwok.ts), Prometheus with backfilled history and
// live usage (kwok's kubelet endpoints; a usage exporter for history pods that no longer exist), and
// helpers to run the adapter as its own process behind the aggregator. Everything
// binds 127.0.0.1; everything is torn down by stop().
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { locateBinaries, type Binaries } from './binaries.ts';
import { makeClusterPki, type ClusterPki, type KeyPair } from './certificates.ts';
import {
  etcdUrl, grantControllerManager, NODE_CONTROLLER_ROLES, NODE_CONTROLLERS, startApiserver, startControllerManager, startEtcd, type ApiserverConfig, type ControllerManagerConfig,
} from './control-plane.ts';
import { loadKubeConfig, writeKubeconfig } from './kubeconfig.ts';
import { finalCpuSeconds, parseTraceCsv, shiftTrace, type BackfillCounter, type BackfillGauge, type BackfillSeries } from './openmetrics.ts';
import { freePort, freePorts } from './ports.ts';
import { tailLog, type ManagedProcess } from './processes.ts';
import {
  backfill, fileSdJson, kubeletTargetsJson, startPrometheusServer, startUsageExporter, waitScrapeTargetsUp, SCRAPE_LABELS,
  type PrometheusConfig, type ScrapeTarget, type Usage, type UsageExporter,
} from './prometheus.ts';
import { restClient, type RestClient } from './rest.ts';
import { registerAdapterRoute, unregisterAdapterRoute, waitAdapterAvailable, type AdapterRoute } from './aggregation.ts';
import { startAdapterProcess, type AdapterProcess } from './adapter-process.ts';
import { kwokBinaries, startKwokStack, type KwokStack } from './kwok.ts';
import { liveNodeSeries, nodeCpuCounters, nodeMemoryGauges, nodeUsageFromTrace, type NodeExporterBackfill, type NodeUsage } from './node-exporter.ts';

/** A trace backfilled into Prometheus as one container's cAdvisor series. */
export interface TraceBackfill {
  /** CSV `ts,value` (unix seconds), e.g. test/fixtures/traces/crane/input1.csv. */
  file: string;
  namespace: string;
  pod: string;
  container: string;
  /** Multiplier from trace units to CPU cores (default 1). */
  cpuScale?: number;
  /** Working set = memBaseBytes + memBytesPerCore * cores; omit memBaseBytes for no memory series. */
  memBaseBytes?: number;
  memBytesPerCore?: number;
  /** The shifted trace's last point lies this far before start-up (default 120 s; the head block takes over). */
  endsAgoSeconds?: number;
  /** Keep only the last N points (e.g. to fit a query window). */
  lastPoints?: number;
  /** Keep exporting the series live (same labels) from the trace's last value on (default true). */
  continueLive?: boolean;
}

/** A trace backfilled into Prometheus as a gauge of its own name and labels (e.g. an app's `http_requests`). */
export interface GaugeTraceBackfill {
  /** CSV `ts,value` (unix seconds). */
  file: string;
  name: string;
  labels: Record<string, string>;
  /** Multiplier from trace units to the gauge's unit (default 1). */
  scale?: number;
  endsAgoSeconds?: number;
  lastPoints?: number;
  /** Keep exporting the gauge live at the trace's last value (default true; change it with setGauge). */
  continueLive?: boolean;
}

export interface ClusterOptions {
  /** Start kube-controller-manager (default true). */
  controllerManager?: boolean;
  /**
   * Run nodes (default true): kube-scheduler binds pods to `kwokNodes` fake Nodes, kwok runs their lifecycle
   * and kubelet metrics, the real metrics-server serves metrics.k8s.io (harness/kwok.ts). `false`: no nodes
   * (pods stay Pending), for suites that run no pods; needs kube-controller-manager otherwise (its
   * node-lifecycle controller lifts the not-ready taint).
   */
  kubelet?: boolean;
  /** Number of fake Nodes (default 1), one kwok process each. */
  kwokNodes?: number;
  /** Their names (default `kwok-node-<i>`), e.g. the Node a manifest names. */
  kwokNodeNames?: readonly string[];
  /** Start Prometheus and the usage exporter (default true). */
  prometheus?: boolean;
  traces?: TraceBackfill[];
  gaugeTraces?: GaugeTraceBackfill[];
  /** node-exporter-shaped history (and live series) for Nodes, from machine-level traces (harness/node-exporter.ts). */
  nodeExporter?: NodeExporterBackfill[];
  scrapeIntervalSeconds?: number;
  hpaSyncPeriod?: string;
  hpaDownscaleStabilization?: string;
  /** kube-controller-manager --use-service-account-credentials (default false: all controllers act as system:kube-controller-manager). */
  useServiceAccountCredentials?: boolean;
  apiserverArgs?: string[];
  controllerManagerArgs?: string[];
  /** Keep the temp dir (certs, data, logs) after stop(); also EHPA_E2E_KEEP=1. */
  keep?: boolean;
}

export interface StartTimings {
  binariesMs: number;
  pkiMs: number;
  etcdMs: number;
  apiserverMs: number;
  controllerManagerMs: number;
  /** kube-scheduler, kwok nodes Ready and metrics-server Available (0 without kwok). */
  kwokMs: number;
  prometheusMs: number;
  totalMs: number;
}

export interface UserIdentity {
  kubeconfigPath: string;
  kc: KubeConfig;
  rest: RestClient;
  cert: KeyPair;
}

export interface Cluster {
  dir: string;
  logDir: string;
  binaries: Binaries;
  pki: ClusterPki;
  apiserverUrl: string;
  /** system:masters admin. */
  kubeconfigPath: string;
  kc: KubeConfig;
  admin: RestClient;
  /** kube-apiserver's front-proxy client cert and the CA adapters must trust for X-Remote-* headers. */
  frontProxy: { caPath: string; certPath: string; keyPath: string };
  clusterCaPath: string;
  /** The adapter's identity as in-cluster: user system:serviceaccount:ehpa-system:ehpa-adapter. */
  adapterIdentity: UserIdentity;
  /** A free loopback port reserved for the adapter's HTTPS server; the APIServices point here. */
  adapterPort: number;
  promUrl: string;
  /** What was backfilled: per trace, the shifted first/last sample times (unix s), step and count. */
  backfilled: { namespace: string; pod: string; container: string; firstTs: number; lastTs: number; step: number; points: number }[];
  /** Per `nodeExporter` entry, the usage it fed: busy cores and used bytes at each backfilled sample. */
  nodeUsage: NodeUsage[];
  /** kube-scheduler, kwok and metrics-server (undefined with `kubelet: false`). */
  kwok: KwokStack | undefined;
  timings: StartTimings;
  /**
   * Set live usage of a container (CPU cores, working-set bytes) in the exporter; Prometheus scrapes it within
   * ~1 s. Only for pods that do not exist (a history's pod): a pod kwok runs reports its
   * own usage (`kwok.setPodUsage`, `followWorkloadUsage`), so an exporter series for it would count twice; such
   * a call is ignored and reported on stderr (checked once per pod, before its first series).
   */
  setUsage(namespace: string, pod: string, container: string, usage: Usage): void;
  removeUsage(namespace: string, pod: string, container?: string): void;
  /** Targets Prometheus scrapes besides the usage exporter (job "extra"), e.g. ehpa-adapter's /metrics; replaces the previous list. */
  setExtraScrapeTargets(targets: readonly ScrapeTarget[]): Promise<void>;
  /** Export any other gauge for Prometheus to scrape (value undefined: stop exporting it). */
  setGauge(name: string, labels: Record<string, string>, value: number | undefined): void;
  /** A client identity signed by the cluster CA (CN = user, O = groups). */
  identity(user: string, groups?: string[]): Promise<UserIdentity>;
  /** Stop (SIGTERM, SIGKILL after 3 s; `hard`: SIGKILL at once) and start kube-apiserver, same port and etcd. */
  restartApiserver(opts?: { hard?: boolean }): Promise<void>;
  stopPrometheus(): Promise<void>;
  startPrometheus(): Promise<void>;
  stopControllerManager(): Promise<void>;
  startControllerManager(): Promise<void>;
  /** ExternalName Service + the three metrics APIServices pointing at `port` (default adapterPort). */
  routeMetricsApisToAdapter(opts?: { port?: number; namespace?: string; serviceName?: string; groups?: readonly string[] }): Promise<AdapterRoute>;
  unrouteMetricsApis(): Promise<void>;
  /** `groups` narrows the wait to those API groups (default all three). */
  waitMetricsApisAvailable(timeoutMs?: number, groups?: readonly string[]): Promise<void>;
  /** `node bin/ehpa-adapter.js serve` with KUBECONFIG = the adapter identity (or `kubeconfigPath`). */
  startAdapterProcess(opts?: { args?: string[]; env?: NodeJS.ProcessEnv; kubeconfigPath?: string; name?: string; waitPath?: string | null }): Promise<AdapterProcess>;
  /** Log tails of every component, for failure reports. */
  logs(lines?: number): Promise<string>;
  stop(opts?: { keep?: boolean }): Promise<void>;
}

function seriesFromTrace(t: TraceBackfill, text: string, nowSec: number): BackfillSeries {
  let points = parseTraceCsv(text);
  if (t.lastPoints) points = points.slice(-t.lastPoints);
  const step = points.length > 1 ? points[1]!.ts - points[0]!.ts : 60;
  const end = nowSec - (t.endsAgoSeconds ?? 120);
  const cpu = shiftTrace(points, end - (end % step), t.cpuScale ?? 1);
  const memory = t.memBaseBytes === undefined ? undefined : cpu.map((p) => ({ ts: p.ts, value: t.memBaseBytes! + (t.memBytesPerCore ?? 0) * p.value }));
  return { labels: { namespace: t.namespace, pod: t.pod, container: t.container }, cpu, ...(memory ? { memory } : {}) };
}

function gaugeFromTrace(g: GaugeTraceBackfill, text: string, nowSec: number): BackfillGauge {
  let points = parseTraceCsv(text);
  if (g.lastPoints) points = points.slice(-g.lastPoints);
  const step = points.length > 1 ? points[1]!.ts - points[0]!.ts : 60;
  const end = nowSec - (g.endsAgoSeconds ?? 120);
  return { name: g.name, labels: g.labels, points: shiftTrace(points, end - (end % step), g.scale ?? 1) };
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const nodes = opts.kubelet ?? true;
  if (nodes && opts.controllerManager === false) {
    throw new Error('startCluster: nodes need kube-controller-manager (its node-lifecycle controller lifts the not-ready taint); pass kubelet: false too');
  }
  const t0 = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'ehpa-e2e-'));
  const logDir = join(dir, 'logs');
  await mkdir(logDir, { recursive: true });
  const procs: { etcd?: ManagedProcess; apiserver?: ManagedProcess; kcm?: ManagedProcess; prometheus?: ManagedProcess } = {};
  const adapters: AdapterProcess[] = [];
  let exporter: UsageExporter | undefined;
  let kwok: KwokStack | undefined;

  const stopAll = async () => {
    await kwok?.stop();
    for (const a of adapters) await a.stop(5000);
    await procs.kcm?.stop(5000);
    await procs.prometheus?.stop(10_000);
    await procs.apiserver?.stop(3000);
    await procs.etcd?.stop(10_000);
    await exporter?.close();
  };

  try {
    const binaries = await locateBinaries();
    const tBin = Date.now();
    const pki = await makeClusterPki(await mkdir(join(dir, 'pki'), { recursive: true }).then(() => join(dir, 'pki')));
    const tPki = Date.now();
    const [etcdClient, etcdPeer, apiPort, kcmPort, promPort, adapterPort] = await freePorts(6) as [number, number, number, number, number, number];
    const apiserverUrl = `https://127.0.0.1:${apiPort}`;
    const admin = restClient(apiserverUrl, pki.ca.certPath, pki.admin);

    // Prometheus (backfill + start) runs alongside the control plane's start-up.
    const promEnabled = opts.prometheus ?? true;
    const promCfg: PrometheusConfig | undefined = promEnabled
      ? {
        binary: binaries.prometheus, dataDir: join(dir, 'prometheus-data'), port: promPort, exporterPort: 0, scrapeIntervalSeconds: opts.scrapeIntervalSeconds ?? 1,
        configDir: join(dir, 'prometheus'), logDir, extraTargetsFile: join(dir, 'prometheus', 'extra-targets.json'),
        // kwok's kubelet endpoints serve the apiserver's certificate (harness/kwok.ts): verify it against the cluster CA.
        ...(nodes ? { kubelet: { targetsFile: join(dir, 'prometheus', 'kubelet-targets.json'), caFile: pki.ca.certPath } } : {}),
      }
      : undefined;
    let prometheusMs = 0;
    const backfilled: Cluster['backfilled'] = [];
    const nodeUsage: NodeUsage[] = [];
    const promReady = (async () => {
      if (!promCfg) return;
      const tp = Date.now();
      exporter = await startUsageExporter();
      promCfg.exporterPort = exporter.port;
      const nowSec = Math.floor(Date.now() / 1000);
      const series: BackfillSeries[] = [];
      for (const t of opts.traces ?? []) series.push(seriesFromTrace(t, await readFile(t.file, 'utf8'), nowSec));
      for (const s of series) {
        backfilled.push({
          ...s.labels, firstTs: s.cpu[0]!.ts, lastTs: s.cpu[s.cpu.length - 1]!.ts,
          step: s.cpu.length > 1 ? s.cpu[1]!.ts - s.cpu[0]!.ts : 0, points: s.cpu.length,
        });
      }
      const gauges = await Promise.all((opts.gaugeTraces ?? []).map(async (g) => gaugeFromTrace(g, await readFile(g.file, 'utf8'), nowSec)));
      const counters: BackfillCounter[] = [];
      for (const n of opts.nodeExporter ?? []) {
        const u = nodeUsageFromTrace(n, await readFile(n.file, 'utf8'), nowSec - (n.endsAgoSeconds ?? 120));
        nodeUsage.push(u);
        counters.push(...nodeCpuCounters(u));
        gauges.push(...nodeMemoryGauges(u));
      }
      if (series.length || gauges.length || counters.length) await backfill({ promtool: binaries.promtool, dataDir: promCfg.dataDir, workDir: dir, series, gauges, counters });
      (opts.nodeExporter ?? []).forEach((n, i) => {
        if (n.continueLive === false) return;
        const live = liveNodeSeries(nodeUsage[i]!, Date.now() / 1000);
        for (const c of live.counters) exporter!.setCounter('node_cpu_seconds_total', c.labels, c.perSecond, c.start);
        for (const g of live.gauges) exporter!.setGauge(g.name, g.labels, g.value);
      });
      (opts.gaugeTraces ?? []).forEach((g, i) => {
        const points = gauges[i]!.points;
        if (g.continueLive !== false) exporter!.setGauge(g.name, g.labels, points[points.length - 1]!.value);
      });
      (opts.traces ?? []).forEach((t, i) => {
        const s = series[i]!;
        if (t.continueLive === false) return;
        const last = s.cpu[s.cpu.length - 1]!;
        exporter!.set(t.namespace, t.pod, t.container, { cpuCores: last.value, memBytes: s.memory?.[s.memory.length - 1]?.value ?? 0 }, finalCpuSeconds(s));
      });
      procs.prometheus = await startPrometheusServer(promCfg);
      prometheusMs = Date.now() - tp;
    })();
    promReady.catch(() => undefined);

    const tE = Date.now();
    const etcdCfg = { binary: binaries.etcd, dataDir: join(dir, 'etcd'), clientPort: etcdClient, peerPort: etcdPeer, logDir };
    procs.etcd = await startEtcd(etcdCfg);
    const tA = Date.now();
    const apiCfg: ApiserverConfig = {
      binary: binaries.kubeApiserver, port: apiPort, etcdUrl: etcdUrl(etcdCfg), pki, certDir: join(dir, 'apiserver'), logDir,
      ...(opts.apiserverArgs ? { extraArgs: opts.apiserverArgs } : {}),
    };
    procs.apiserver = await startApiserver(apiCfg, admin);
    const tK = Date.now();

    const kubeconfigPath = await writeKubeconfig(join(dir, 'admin.kubeconfig'), { server: apiserverUrl, caPath: pki.ca.certPath, client: pki.admin, user: 'admin' });
    const kcmKubeconfig = await writeKubeconfig(join(dir, 'kcm.kubeconfig'), { server: apiserverUrl, caPath: pki.ca.certPath, client: pki.controllerManager, user: 'kcm' });
    const kcmCfg: ControllerManagerConfig = {
      binary: binaries.kubeControllerManager, kubeconfigPath: kcmKubeconfig, port: kcmPort, pki, logDir,
      hpaSyncPeriod: opts.hpaSyncPeriod ?? '2s', hpaDownscaleStabilization: opts.hpaDownscaleStabilization ?? '5s',
      useServiceAccountCredentials: opts.useServiceAccountCredentials ?? false,
      ...(nodes ? { extraControllers: NODE_CONTROLLERS } : {}),
      ...(opts.controllerManagerArgs ? { extraArgs: opts.controllerManagerArgs } : {}),
    };
    if (opts.controllerManager ?? true) {
      await grantControllerManager(admin, nodes ? NODE_CONTROLLER_ROLES : []);
      procs.kcm = await startControllerManager(kcmCfg);
    }
    const tKDone = Date.now();

    if (nodes) {
      kwok = await startKwokStack({
        admin, kubeconfigPath, adminCert: pki.admin, dir, logDir, nodes: opts.kwokNodes ?? opts.kwokNodeNames?.length ?? 1,
        ...(opts.kwokNodeNames ? { nodeNames: opts.kwokNodeNames } : {}),
        tls: { certPath: pki.apiserver.certPath, keyPath: pki.apiserver.keyPath },
      }, await kwokBinaries());
    }
    const tKwok = Date.now();
    await promReady;
    if (kwok && promCfg?.kubelet) {
      // Prometheus' live pod usage: the kwok nodes' kubelet endpoints, scraped before any test asks.
      await writeFile(promCfg.kubelet.targetsFile, kubeletTargetsJson(kwok.kubeletEndpoints));
      await waitScrapeTargetsUp(`http://127.0.0.1:${promPort}`, SCRAPE_LABELS.job, kwok.kubeletEndpoints.length);
    }

    // The exporter is for pods that do not exist (a history's pod); a pod kwok runs is scraped from its node
    // already (and on a cluster without nodes a pod object is not running). Checked once per pod, before its first series; calls stay in order.
    const exporterPods = new Map<string, Promise<boolean>>();
    const exporterMay = (ns: string, pod: string): Promise<boolean> => {
      const key = `${ns}/${pod}`;
      let may = exporterPods.get(key);
      if (!may) {
        may = admin.get(`/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(pod)}`).then((r) => {
          if (r.status !== 200) return true;
          console.error(`e2e harness: setUsage(${key}) ignored: the pod exists, kwok runs it and reports its usage to Prometheus and metrics-server; use cluster.kwok.setPodUsage or followWorkloadUsage`);
          return false;
        }, () => {
          exporterPods.delete(key); // kube-apiserver unreachable (a restart): export, and ask again next time
          return true;
        });
        exporterPods.set(key, may);
      }
      return may;
    };

    const identity = async (user: string, groups: string[] = []): Promise<UserIdentity> => {
      const safe = user.replace(/[^a-zA-Z0-9_.-]/g, '_');
      const cert = await pki.clientCert(`user-${safe}`, user, groups);
      const path = await writeKubeconfig(join(dir, `user-${safe}.kubeconfig`), { server: apiserverUrl, caPath: pki.ca.certPath, client: cert, user: safe });
      return { kubeconfigPath: path, kc: loadKubeConfig(path), rest: restClient(apiserverUrl, pki.ca.certPath, cert), cert };
    };
    const adapterIdentity = await identity('system:serviceaccount:ehpa-system:ehpa-adapter', ['system:serviceaccounts', 'system:serviceaccounts:ehpa-system']);
    const tEnd = Date.now();

    const cluster: Cluster = {
      dir, logDir, binaries, pki, apiserverUrl, kubeconfigPath, kc: loadKubeConfig(kubeconfigPath), admin,
      frontProxy: { caPath: pki.frontProxyCa.certPath, certPath: pki.frontProxyClient.certPath, keyPath: pki.frontProxyClient.keyPath },
      clusterCaPath: pki.ca.certPath,
      adapterIdentity, adapterPort,
      promUrl: `http://127.0.0.1:${promPort}`,
      backfilled,
      nodeUsage,
      kwok,
      timings: {
        binariesMs: tBin - t0, pkiMs: tPki - tBin, etcdMs: tA - tE, apiserverMs: tK - tA, controllerManagerMs: tKDone - tK,
        kwokMs: tKwok - tKDone,
        prometheusMs, totalMs: tEnd - t0,
      },
      setUsage(ns, pod, container, usage) {
        if (!exporter) throw new Error('Prometheus is disabled in this cluster');
        const e = exporter;
        void exporterMay(ns, pod).then((may) => {
          if (may) e.set(ns, pod, container, usage);
        });
      },
      removeUsage(ns, pod, container) {
        void exporterMay(ns, pod).then(() => exporter?.remove(ns, pod, container));
      },
      async setExtraScrapeTargets(targets) {
        if (!promCfg?.extraTargetsFile) throw new Error('Prometheus is disabled in this cluster');
        await writeFile(promCfg.extraTargetsFile, fileSdJson(targets));
      },
      setGauge(name, labels, value) {
        if (!exporter) throw new Error('Prometheus is disabled in this cluster');
        exporter.setGauge(name, labels, value);
      },
      identity,
      async restartApiserver(o = {}) {
        // kube-apiserver finishes its graceful shutdown in well under a second here but then lingers for
        // ~10 s before exiting; SIGKILL after 3 s (etcd holds the state, so nothing is lost either way).
        if (o.hard) await procs.apiserver?.kill();
        else await procs.apiserver?.stop(3000);
        procs.apiserver = await startApiserver(apiCfg, admin);
      },
      async stopPrometheus() {
        await procs.prometheus?.stop(10_000);
      },
      async startPrometheus() {
        if (!promCfg) throw new Error('Prometheus is disabled in this cluster');
        if (procs.prometheus?.running) return;
        procs.prometheus = await startPrometheusServer(promCfg);
      },
      async stopControllerManager() {
        await procs.kcm?.stop(5000);
      },
      async startControllerManager() {
        if (procs.kcm?.running) return;
        procs.kcm = await startControllerManager(kcmCfg);
      },
      async routeMetricsApisToAdapter(o = {}) {
        const route = {
          namespace: o.namespace ?? 'ehpa-system', serviceName: o.serviceName ?? 'ehpa-adapter-loopback', port: o.port ?? adapterPort,
          ...(o.groups ? { groups: o.groups } : {}),
        };
        await registerAdapterRoute(admin, route);
        return route;
      },
      unrouteMetricsApis: () => unregisterAdapterRoute(admin),
      waitMetricsApisAvailable: (timeoutMs, groups) => waitAdapterAvailable(admin, timeoutMs, groups),
      async startAdapterProcess(o = {}) {
        const a = await startAdapterProcess({
          kubeconfigPath: o.kubeconfigPath ?? adapterIdentity.kubeconfigPath, logDir,
          ...(o.args ? { args: o.args } : {}), ...(o.env ? { env: o.env } : {}),
          name: o.name ?? `ehpa-adapter-${adapters.length + 1}`,
          ...(o.waitPath !== undefined ? { waitPath: o.waitPath } : {}),
        });
        adapters.push(a);
        return a;
      },
      async logs(lines = 40) {
        const names = ['etcd', 'kube-apiserver', 'kube-controller-manager', ...(kwok?.processes().map((p) => p.name) ?? []), 'prometheus', ...adapters.map((a) => a.name)];
        return names.map((n) => `==== ${n} (${join(logDir, `${n}.log`)}) ====\n${tailLog(join(logDir, `${n}.log`), lines)}`).join('\n');
      },
      async stop(o = {}) {
        await stopAll();
        if (!(o.keep ?? opts.keep ?? process.env.EHPA_E2E_KEEP === '1')) await rm(dir, { recursive: true, force: true });
      },
    };
    return cluster;
  } catch (err) {
    // Start-up failed: leave nothing running, keep the logs and say where they are.
    await stopAll().catch(() => undefined);
    const e = err instanceof Error ? err : new Error(String(err));
    e.message = `${e.message}\n(harness logs kept in ${logDir})`;
    throw e;
  }
}

export { freePort };
