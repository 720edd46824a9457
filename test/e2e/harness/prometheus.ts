// Prometheus for the tests: history backfilled with promtool from a real trace; current usage scraped every
// second. The pods' live usage is the real path: job "kubelet" scrapes each kwok node's
// kubelet `/metrics/resource` (HTTPS, as metrics-server reads it), whose container_cpu_usage_seconds_total
// and container_memory_working_set_bytes carry the pod's own namespace, pod and container labels. A small
// cAdvisor-shaped exporter on loopback stays for what no real component can do: continuing backfilled series
// of pods that do not exist (`continueLive`) and other gauges (`setGauge`); it plays no running pod.
// Backfilled and exporter series carry the same labels (job="kubelet", instance="e2e-node"),
// so a query sees one continuous series.
import { createServer, type Server } from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startProcess, waitFor, type ManagedProcess } from './processes.ts';
import { toOpenMetrics, type BackfillCounter, type BackfillGauge, type BackfillSeries } from './openmetrics.ts';

const run = promisify(execFile);

export const SCRAPE_LABELS = { job: 'kubelet', instance: 'e2e-node' } as const;

export interface Usage {
  cpuCores?: number;
  memBytes?: number;
}

interface LiveSeries {
  cpuCores: number;
  memBytes: number;
  cpuSeconds: number;
  at: number;
}

export interface UsageExporter {
  readonly port: number;
  set(namespace: string, pod: string, container: string, usage: Usage, counterStart?: number): void;
  remove(namespace: string, pod: string, container?: string): void;
  /** Any other gauge series (e.g. kube-state-metrics' `kube_pod_labels`); `undefined` removes it. */
  setGauge(name: string, labels: Record<string, string>, value: number | undefined): void;
  /**
   * Any other counter series (node-exporter's `node_cpu_seconds_total`): from `start` it grows by
   * `perSecond` of wall time, read at each scrape; a later call changes the rate and keeps the total.
   */
  setCounter(name: string, labels: Record<string, string>, perSecond: number, start?: number): void;
  close(): Promise<void>;
}

export async function startUsageExporter(now: () => number = Date.now): Promise<UsageExporter> {
  const series = new Map<string, LiveSeries & { labels: [string, string, string] }>();
  const gauges = new Map<string, { name: string; labels: string; value: number }>();
  const counters = new Map<string, { name: string; labels: string; perSecond: number; total: number; at: number }>();
  const labelText = (labels: Record<string, string>) => Object.keys(labels).sort().map((k) => `${k}="${labels[k]!.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',');
  const advance = (s: LiveSeries) => {
    const t = now();
    s.cpuSeconds += (s.cpuCores * (t - s.at)) / 1000;
    s.at = t;
  };
  const server: Server = createServer((req, res) => {
    if (req.url !== '/metrics/cadvisor' && req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    const cpu: string[] = ['# TYPE container_cpu_usage_seconds_total counter'];
    const mem: string[] = ['# TYPE container_memory_working_set_bytes gauge'];
    for (const s of series.values()) {
      advance(s);
      const [ns, pod, c] = s.labels;
      const l = `container="${c}",namespace="${ns}",pod="${pod}"`;
      cpu.push(`container_cpu_usage_seconds_total{${l}} ${s.cpuSeconds.toFixed(6)}`);
      mem.push(`container_memory_working_set_bytes{${l}} ${Math.round(s.memBytes)}`);
    }
    const other = [...gauges.values()].map((g) => `${g.name}{${g.labels}} ${g.value}`);
    const t = now();
    for (const c of counters.values()) {
      c.total += (c.perSecond * (t - c.at)) / 1000;
      c.at = t;
      other.push(`${c.name}{${c.labels}} ${c.total.toFixed(6)}`);
    }
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(`${cpu.join('\n')}\n${mem.join('\n')}\n${other.map((l) => `${l}\n`).join('')}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('exporter: no port');
  return {
    port: addr.port,
    set(namespace, pod, container, usage, counterStart = 0) {
      const key = `${namespace}/${pod}/${container}`;
      const s = series.get(key);
      if (s) {
        advance(s);
        if (usage.cpuCores !== undefined) s.cpuCores = usage.cpuCores;
        if (usage.memBytes !== undefined) s.memBytes = usage.memBytes;
        return;
      }
      series.set(key, {
        labels: [namespace, pod, container],
        cpuCores: usage.cpuCores ?? 0,
        memBytes: usage.memBytes ?? 0,
        cpuSeconds: counterStart,
        at: now(),
      });
    },
    setGauge(name, labels, value) {
      const text = labelText(labels);
      const key = `${name}{${text}}`;
      if (value === undefined) gauges.delete(key);
      else gauges.set(key, { name, labels: text, value });
    },
    setCounter(name, labels, perSecond, start = 0) {
      const text = labelText(labels);
      const key = `${name}{${text}}`;
      const c = counters.get(key);
      const t = now();
      if (c) {
        c.total += (c.perSecond * (t - c.at)) / 1000;
        c.at = t;
        c.perSecond = perSecond;
      } else {
        counters.set(key, { name, labels: text, perSecond, total: start, at: t });
      }
    },
    remove(namespace, pod, container) {
      for (const key of [...series.keys()]) {
        if (key.startsWith(`${namespace}/${pod}/`) && (container === undefined || key === `${namespace}/${pod}/${container}`)) series.delete(key);
      }
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export async function backfill(opts: {
  promtool: string; dataDir: string; workDir: string; series: BackfillSeries[]; gauges?: BackfillGauge[]; counters?: BackfillCounter[];
}): Promise<void> {
  await mkdir(opts.dataDir, { recursive: true });
  const withScrapeLabels = opts.series.map((s) => ({ ...s, labels: { ...SCRAPE_LABELS, ...s.labels } }));
  const gauges = (opts.gauges ?? []).map((g) => ({ ...g, labels: { ...SCRAPE_LABELS, ...g.labels } }));
  const counters = (opts.counters ?? []).map((c) => ({ ...c, labels: { ...SCRAPE_LABELS, ...c.labels } }));
  const file = join(opts.workDir, 'backfill.om');
  await writeFile(file, toOpenMetrics(withScrapeLabels, gauges, counters));
  try {
    await run(opts.promtool, ['tsdb', 'create-blocks-from', 'openmetrics', file, opts.dataDir], { maxBuffer: 16 << 20, timeout: 10 * 60_000 });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`promtool create-blocks-from openmetrics failed: ${e.stderr ?? ''}${e.stdout ?? ''}${e.message}`);
  }
}

export interface PrometheusConfig {
  binary: string;
  dataDir: string;
  port: number;
  exporterPort: number;
  scrapeIntervalSeconds: number;
  configDir: string;
  logDir: string;
  /** Optional file_sd file for targets added after start-up (job "extra"); written as [] when missing. */
  extraTargetsFile?: string;
  /**
   * kwok clusters: scrape the nodes' kubelet `/metrics/resource` as job "kubelet" (HTTPS, verified against
   * `caFile`); their targets come from `targetsFile` (file_sd, `kubeletTargetsJson`; written as [] when
   * missing), and the exporter's job is then "history-exporter", relabeled to job="kubelet".
   */
  kubelet?: { targetsFile: string; caFile: string };
}

/** One extra target Prometheus scrapes, e.g. ehpa-adapter's operations port (`127.0.0.1:<port>`). */
export interface ScrapeTarget {
  target: string;
  /** Default /metrics. */
  metricsPath?: string;
  labels?: Record<string, string>;
}

/** The file_sd JSON for `targets` (Prometheus watches the file and picks changes up within a scrape or two). */
export function fileSdJson(targets: readonly ScrapeTarget[]): string {
  return JSON.stringify(targets.map((t) => ({
    targets: [t.target],
    labels: { ...(t.labels ?? {}), ...(t.metricsPath ? { __metrics_path__: t.metricsPath } : {}) },
  })));
}

/** The path of a kubelet's resource metrics (kwok serves each node's there, see harness/kwok.ts). */
export const KUBELET_RESOURCE_METRICS_PATH = '/metrics/resource';

/** The file_sd JSON for the kubelet job: one target per node, labeled with its node name. */
export function kubeletTargetsJson(endpoints: readonly { node: string; address: string }[]): string {
  return fileSdJson(endpoints.map((e) => ({ target: e.address, labels: { node: e.node } })));
}

export function prometheusYaml(cfg: Pick<PrometheusConfig, 'exporterPort' | 'scrapeIntervalSeconds' | 'extraTargetsFile' | 'kubelet'>): string {
  const extra = cfg.extraTargetsFile
    ? ['  - job_name: extra', '    file_sd_configs:', `      - files: ['${cfg.extraTargetsFile}']`, '        refresh_interval: 1s']
    : [];
  // The kubelets (kwok): the scrape interval is the global one, as the exporter's, so rate()/irate() have two
  // samples a second after a pod appears. kwok's series have no `job`/`instance` of their own; honor_labels
  // keeps their namespace/pod/container over any target label, as kube-prometheus scrapes the kubelet.
  const kubelet = cfg.kubelet
    ? [
      `  - job_name: ${SCRAPE_LABELS.job}`,
      '    scheme: https',
      `    metrics_path: ${KUBELET_RESOURCE_METRICS_PATH}`,
      '    honor_labels: true',
      '    tls_config:',
      `      ca_file: '${cfg.kubelet.caFile}'`,
      '    file_sd_configs:',
      `      - files: ['${cfg.kubelet.targetsFile}']`,
      '        refresh_interval: 1s',
    ]
    : [];
  // The exporter: a job of its own name on kwok clusters (job names are unique), relabeled to the backfill's job.
  const exporterJob = cfg.kubelet ? ['  - job_name: history-exporter'] : [`  - job_name: ${SCRAPE_LABELS.job}`];
  const exporterJobLabel = cfg.kubelet ? ['      - target_label: job', `        replacement: ${SCRAPE_LABELS.job}`] : [];
  return [
    'global:',
    `  scrape_interval: ${cfg.scrapeIntervalSeconds}s`,
    `  evaluation_interval: ${cfg.scrapeIntervalSeconds}s`,
    'scrape_configs:',
    ...kubelet,
    ...exporterJob,
    '    metrics_path: /metrics/cadvisor',
    '    honor_labels: true',
    '    static_configs:',
    `      - targets: ['127.0.0.1:${cfg.exporterPort}']`,
    '    relabel_configs:',
    ...exporterJobLabel,
    '      - target_label: instance',
    `        replacement: ${SCRAPE_LABELS.instance}`,
    ...extra,
    '',
  ].join('\n');
}

export async function startPrometheusServer(cfg: PrometheusConfig): Promise<ManagedProcess> {
  await mkdir(cfg.configDir, { recursive: true });
  const configPath = join(cfg.configDir, 'prometheus.yml');
  await writeFile(configPath, prometheusYaml(cfg));
  for (const f of [cfg.extraTargetsFile, cfg.kubelet?.targetsFile]) {
    if (f) await writeFile(f, '[]', { flag: 'wx' }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
  }
  const proc = startProcess({
    name: 'prometheus',
    command: cfg.binary,
    logDir: cfg.logDir,
    args: [
      `--config.file=${configPath}`, `--storage.tsdb.path=${cfg.dataDir}`,
      `--web.listen-address=127.0.0.1:${cfg.port}`, '--storage.tsdb.retention.time=60d',
      '--log.level=warn',
    ],
  });
  await waitFor('prometheus /-/ready', async () => (await fetch(`http://127.0.0.1:${cfg.port}/-/ready`)).ok, { process: proc, timeoutMs: 120_000 });
  return proc;
}

/** Wait until Prometheus scrapes `count` targets of `scrapePool` (a job name) successfully. */
export async function waitScrapeTargetsUp(promUrl: string, scrapePool: string, count: number, timeoutMs = 60_000): Promise<void> {
  let last = 'no answer';
  await waitFor(`Prometheus scraping ${count} ${scrapePool} target(s)`, async () => {
    const r = await fetch(new URL('/api/v1/targets?state=active', promUrl));
    const body = (await r.json()) as { data?: { activeTargets?: { scrapePool: string; scrapeUrl: string; health: string; lastError: string }[] } };
    const ts = (body.data?.activeTargets ?? []).filter((t) => t.scrapePool === scrapePool);
    last = ts.map((t) => `${t.scrapeUrl} ${t.health}${t.lastError ? ` (${t.lastError})` : ''}`).join('; ') || 'none';
    return ts.length === count && ts.every((t) => t.health === 'up');
  }, { timeoutMs, intervalMs: 250 }).catch((e: Error) => {
    throw new Error(`${e.message}; targets: ${last}`);
  });
}

export interface RangeResult {
  metric: Record<string, string>;
  values: [number, string][];
}

export async function queryRange(promUrl: string, query: string, start: number, end: number, step: number): Promise<RangeResult[]> {
  const u = new URL('/api/v1/query_range', promUrl);
  u.search = new URLSearchParams({ query, start: String(start), end: String(end), step: String(step) }).toString();
  const r = await fetch(u);
  const body = (await r.json()) as { status: string; error?: string; data?: { result: RangeResult[] } };
  if (body.status !== 'success') throw new Error(`query_range ${query}: ${body.error ?? r.status}`);
  return body.data!.result;
}

export async function queryInstant(promUrl: string, query: string, time?: number): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const u = new URL('/api/v1/query', promUrl);
  u.search = new URLSearchParams({ query, ...(time !== undefined ? { time: String(time) } : {}) }).toString();
  const r = await fetch(u);
  const body = (await r.json()) as { status: string; error?: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  if (body.status !== 'success') throw new Error(`query ${query}: ${body.error ?? r.status}`);
  return body.data!.result;
}
