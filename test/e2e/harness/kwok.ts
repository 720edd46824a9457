// Real nodes' part, played by real projects (issue 15): kube-scheduler binds pods to fake Nodes, kwok moves
// them through their lifecycle (its pod-ready/pod-delete stages) and serves each node's kubelet
// `/metrics/resource` from simulated usage, and metrics-server scrapes those endpoints and serves
// `metrics.k8s.io` behind the aggregator. All on loopback, from scripts/build-kwok-stack.sh.
//
// One kwok process per node: metrics-server asks `https://<InternalIP>:<kubelet port>/metrics/resource` (no
// node name in the path; sigs.k8s.io/metrics-server v0.9.0 pkg/scraper/client/resource/client.go), and kwok
// serves a Metric whose path has no `{nodeName}` for the node named like the Metric (sigs.k8s.io/kwok v0.8.0
// pkg/kwok/server/metrics.go), so each node gets its own port and its own Metric from a config file.
// Usage per pod comes from kwok's usage-from-annotation ClusterResourceUsage: the harness writes
// `kwok.x-k8s.io/usage-cpu` on pods (kustomize/metrics/usage in the kwok module).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildScriptOutput } from './binaries.ts';
import { insecureGet } from './control-plane.ts';
import { freePorts } from './ports.ts';
import { startProcess, waitFor, type ManagedProcess } from './processes.ts';
import { registerResourceMetricsApi, waitResourceMetricsAvailable } from './resource-metrics.ts';
import { restClient, type RestClient } from './rest.ts';
import type { KeyPair } from './certificates.ts';

export interface KwokBinaries {
  kwok: string;
  metricsServer: string;
  kubeScheduler: string;
  /** Stage, Metric and ClusterResourceUsage YAML from the kwok module (copied by the build script). */
  configDir: string;
}

/** kwok, metrics-server and kube-scheduler from scripts/build-kwok-stack.sh (cache keyed by version, else a Go build). */
export async function kwokBinaries(): Promise<KwokBinaries> {
  const dir = await buildScriptOutput('scripts/build-kwok-stack.sh');
  return { kwok: join(dir, 'kwok'), metricsServer: join(dir, 'metrics-server'), kubeScheduler: join(dir, 'kube-scheduler'), configDir: join(dir, 'kwok-config') };
}

export interface KwokStackConfig {
  admin: RestClient;
  /** system:masters kubeconfig: the three components act as cluster admins (as kwokctl runs them). */
  kubeconfigPath: string;
  /** The admin's client pair (the identity in kubeconfigPath), to read metrics-server's own /metrics. */
  adminCert: KeyPair;
  dir: string;
  logDir: string;
  tls: { certPath: string; keyPath: string };
  nodes: number;
  /** metrics-server --metric-resolution (its minimum, 10 s, by default). */
  metricResolution?: string;
}

export interface KwokStack {
  nodeNames: string[];
  metricsServerPort: number;
  /** Set (milli > 0) or clear (undefined) a pod's simulated CPU usage; kwok reports it from the next scrape on. */
  setPodCpu(namespace: string, pod: string, milli: number | undefined): Promise<void>;
  /** PodMetrics LIST requests metrics-server answered so far (its own apiserver_request_total). */
  podMetricsRequests(): Promise<number>;
  processes(): ManagedProcess[];
  stop(): Promise<void>;
}

export const USAGE_CPU_ANNOTATION = 'kwok.x-k8s.io/usage-cpu';

const STAGE_FILES = ['node-initialize.yaml', 'node-heartbeat.yaml', 'pod-ready.yaml', 'pod-complete.yaml', 'pod-delete.yaml', 'usage-from-annotation.yaml'];

/** The kwok config file for one node: its options, the lifecycle stages, usage, and its own Metric. */
async function kwokConfig(configDir: string, nodeName: string): Promise<string> {
  const docs = await Promise.all(STAGE_FILES.map((f) => readFile(join(configDir, f), 'utf8')));
  const metric = (await readFile(join(configDir, 'metrics-resource.yaml'), 'utf8'))
    .replace(/^ {2}name: metrics-resource$/m, `  name: ${nodeName}`)
    .replace(/^ {2}path: .*$/m, '  path: "/metrics/resource"');
  if (!metric.includes(`name: ${nodeName}`) || !metric.includes('path: "/metrics/resource"')) throw new Error('kwok metrics-resource.yaml changed shape');
  // No CRDs: everything comes from this file; no node leases (no node-lifecycle controller runs here).
  // The parallelism options are not defaulted for a config given in --config; kwok's own kustomize config uses 4.
  const options = [
    'apiVersion: config.kwok.x-k8s.io/v1alpha1', 'kind: KwokConfiguration', 'options:', '  enableCRDs: []', '  nodeLeaseDurationSeconds: 0',
    '  podPlayStageParallelism: 4', '  nodePlayStageParallelism: 4', '  nodeLeaseParallelism: 4', '  podsOnNodeSyncParallelism: 4',
  ].join('\n');
  return [options, ...docs, metric].map((d) => d.trim()).join('\n---\n') + '\n';
}

function nodeObject(name: string) {
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { type: 'kwok', 'kubernetes.io/hostname': name }, annotations: { 'kwok.x-k8s.io/node': 'fake' } },
    spec: {},
  };
}

export async function startKwokStack(cfg: KwokStackConfig, bins: KwokBinaries): Promise<KwokStack> {
  const procs: ManagedProcess[] = [];
  const stop = async () => {
    for (const p of [...procs].reverse()) await p.stop(5000);
  };
  try {
    const ports = await freePorts(2 + cfg.nodes);
    const [schedulerPort, metricsServerPort] = ports as [number, number];
    const nodeNames = Array.from({ length: cfg.nodes }, (_, i) => `kwok-node-${i}`);

    const scheduler = startProcess({
      name: 'kube-scheduler', command: bins.kubeScheduler, logDir: cfg.logDir,
      args: [
        `--kubeconfig=${cfg.kubeconfigPath}`, `--authentication-kubeconfig=${cfg.kubeconfigPath}`, `--authorization-kubeconfig=${cfg.kubeconfigPath}`,
        '--leader-elect=false', '--bind-address=127.0.0.1', `--secure-port=${schedulerPort}`,
        `--cert-dir=${join(cfg.dir, 'kube-scheduler-serving')}`, '--v=1',
      ],
    });
    procs.push(scheduler);

    for (const [i, name] of nodeNames.entries()) {
      const r = await cfg.admin.request('POST', '/api/v1/nodes', { body: nodeObject(name) });
      if (r.status !== 201 && r.status !== 409) throw new Error(`create Node ${name}: ${r.status} ${r.body.slice(0, 300)}`);
      const port = ports[2 + i]!;
      const configPath = join(cfg.dir, `kwok-${name}.yaml`);
      await writeFile(configPath, await kwokConfig(bins.configDir, name));
      procs.push(startProcess({
        name: `kwok-${name}`, command: bins.kwok, logDir: cfg.logDir,
        args: [
          `--config=${configPath}`, `--kubeconfig=${cfg.kubeconfigPath}`,
          `--manage-single-node=${name}`, '--node-ip=127.0.0.1', `--node-port=${port}`, `--server-address=127.0.0.1:${port}`,
          `--tls-cert-file=${cfg.tls.certPath}`, `--tls-private-key-file=${cfg.tls.keyPath}`,
          // Pod IPs per node, apart from the Service range (10.0.0.0/24).
          `--cidr=10.244.${i}.0/24`,
        ],
      }));
    }

    const metricsServer = startProcess({
      name: 'metrics-server', command: bins.metricsServer, logDir: cfg.logDir,
      args: [
        `--kubeconfig=${cfg.kubeconfigPath}`, `--authentication-kubeconfig=${cfg.kubeconfigPath}`, `--authorization-kubeconfig=${cfg.kubeconfigPath}`,
        '--bind-address=127.0.0.1', `--secure-port=${metricsServerPort}`, `--cert-dir=${join(cfg.dir, 'metrics-server-serving')}`,
        // kwok's kubelet endpoint: the node's InternalIP (127.0.0.1) and status port, a certificate not issued for it.
        '--kubelet-insecure-tls', '--kubelet-preferred-address-types=InternalIP', '--kubelet-use-node-status-port',
        `--metric-resolution=${cfg.metricResolution ?? '10s'}`, '--kubelet-request-timeout=5s', '--v=1',
      ],
    });
    procs.push(metricsServer);

    await waitFor('kube-scheduler /healthz', async () => (await insecureGet(`https://127.0.0.1:${schedulerPort}/healthz`)) === 200, { process: scheduler, timeoutMs: 120_000, intervalMs: 500 });
    await waitFor(`kwok nodes Ready (${nodeNames.join(', ')})`, async () => {
      for (const name of nodeNames) {
        const n = await cfg.admin.getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(`/api/v1/nodes/${name}`);
        if (!n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return false;
      }
      return true;
    }, { timeoutMs: 120_000 });
    await registerResourceMetricsApi(cfg.admin, metricsServerPort);
    await waitResourceMetricsAvailable(cfg.admin, 120_000);

    return {
      nodeNames, metricsServerPort,
      async setPodCpu(namespace, pod, milli) {
        const value = milli === undefined ? null : `${Math.max(0, Math.round(milli))}m`;
        const r = await cfg.admin.request('PATCH', `/api/v1/namespaces/${namespace}/pods/${pod}`, {
          body: { metadata: { annotations: { [USAGE_CPU_ANNOTATION]: value } } }, contentType: 'application/merge-patch+json',
        });
        if (r.status !== 200 && r.status !== 404) throw new Error(`annotate pod ${namespace}/${pod}: ${r.status} ${r.body.slice(0, 300)}`);
      },
      async podMetricsRequests() {
        // metrics-server authenticates the admin client certificate (system:masters) like kube-apiserver does.
        const r = await restClient(`https://127.0.0.1:${metricsServerPort}`, null, cfg.adminCert).get('/metrics');
        if (r.status !== 200) throw new Error(`metrics-server /metrics: ${r.status} ${r.body.slice(0, 300)}`);
        const text = r.body;
        let n = 0;
        for (const line of text.split('\n')) {
          if (line.startsWith('apiserver_request_total{') && line.includes('group="metrics.k8s.io"') && line.includes('resource="pods"')) {
            n += Number(line.slice(line.lastIndexOf(' ') + 1));
          }
        }
        return n;
      },
      processes: () => [...procs],
      stop,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
