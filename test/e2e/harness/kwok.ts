// Real nodes' part, played by real projects rather than fakes of our own: kube-scheduler binds pods to fake Nodes, kwok moves
// them through their lifecycle (its pod-ready/pod-delete stages) and serves each node's kubelet
// `/metrics/resource` from simulated usage, and metrics-server scrapes those endpoints and serves
// `metrics.k8s.io` behind the aggregator. All on loopback, from scripts/build-kwok-stack.sh.
//
// One kwok process per node: metrics-server asks `https://<InternalIP>:<kubelet port>/metrics/resource` (no
// node name in the path; sigs.k8s.io/metrics-server v0.9.0 pkg/scraper/client/resource/client.go), and kwok
// serves a Metric whose path has no `{nodeName}` for the node named like the Metric (sigs.k8s.io/kwok v0.8.0
// pkg/kwok/server/metrics.go), so each node gets its own port and its own Metric from a config file.
// Usage per pod comes from kwok's usage-from-annotation ClusterResourceUsage: the harness writes
// `kwok.x-k8s.io/usage-cpu` / `usage-memory` on pods (kustomize/metrics/usage in the kwok module). The same
// endpoints are Prometheus' live usage (its `kubelet` job, harness/prometheus.ts), so metrics-server and
// Prometheus read one number.
// One Stage is ours (OOM_KILL_STAGE): an OOM-killed, restarted container on demand, as a kubelet reports it.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildScriptOutput } from './binaries.ts';
import { insecureGet } from './control-plane.ts';
import { freePorts } from './ports.ts';
import { startProcess, waitFor, type ManagedProcess } from './processes.ts';
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
  /** The Nodes' names (default `kwok-node-<i>`); `nodes` of them. A test that applies a manifest naming a
   *  Node as written (Crane's TSP tutorial names `192.168.56.166`) gives that name here. */
  nodeNames?: readonly string[];
  /** metrics-server --metric-resolution (its minimum, 10 s, by default). */
  metricResolution?: string;
}

export interface KwokStack {
  nodeNames: string[];
  /** Each node's kubelet endpoint (`127.0.0.1:<port>`, HTTPS, `/metrics/resource`), as metrics-server and Prometheus reach it. */
  kubeletEndpoints: { node: string; address: string }[];
  metricsServerPort: number;
  /** Set (milli > 0) or clear (undefined) a pod's simulated CPU usage; kwok reports it from the next scrape on. */
  setPodCpu(namespace: string, pod: string, milli: number | undefined): Promise<void>;
  /** Set or clear a pod's simulated working set (bytes; kwok's default is 1Mi), as setPodCpu. */
  setPodMemory(namespace: string, pod: string, bytes: number | undefined): Promise<void>;
  /**
   * Both in one patch (`usageAnnotations`): a field left out is untouched, `null` clears it. kwok applies the
   * pod's annotation to each of its containers (usage-from-annotation has no per-container form).
   */
  setPodUsage(namespace: string, pod: string, usage: KwokPodUsage): Promise<void>;
  /**
   * What a kubelet reports after the kernel OOM-killed `container` and it restarted: kwok's `e2e-oom-kill`
   * Stage (OOM_KILL_STAGE) fires once on the annotation this writes. Resolves with the container's status
   * once it shows lastState.terminated OOMKilled (exit 137), restartCount + 1 and running again.
   */
  oomKill(namespace: string, pod: string, container: string, opts?: { timeoutMs?: number }): Promise<KwokContainerStatus>;
  /** PodMetrics LIST requests metrics-server answered so far (its own apiserver_request_total). */
  podMetricsRequests(): Promise<number>;
  processes(): ManagedProcess[];
  stop(): Promise<void>;
}

export const USAGE_CPU_ANNOTATION = 'kwok.x-k8s.io/usage-cpu';
export const USAGE_MEMORY_ANNOTATION = 'kwok.x-k8s.io/usage-memory';
/** Trigger of OOM_KILL_STAGE: the name of the container to OOM-kill; the Stage removes it when it fires. */
export const OOM_KILL_ANNOTATION = 'e2e.ehpa-adapter.io/oom-kill';

/** A pod's simulated usage: CPU cores (written in millicores) and working-set bytes; null = kwok's default. */
export interface KwokPodUsage {
  cpuCores?: number | null;
  memBytes?: number | null;
}

/** The `kwok.x-k8s.io/usage-cpu` value for `milli` millicores (whole millicores, at least 0). */
export function cpuMilliAnnotation(milli: number): string {
  return `${Math.max(0, Math.round(milli))}m`;
}

/** The usage annotations for `usage` (a field left out is absent; null maps to null, i.e. removed by a merge patch). */
export function usageAnnotations(usage: KwokPodUsage): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  if (usage.cpuCores !== undefined) out[USAGE_CPU_ANNOTATION] = usage.cpuCores === null ? null : cpuMilliAnnotation(usage.cpuCores * 1000);
  if (usage.memBytes !== undefined) out[USAGE_MEMORY_ANNOTATION] = usage.memBytes === null ? null : `${Math.max(0, Math.round(usage.memBytes))}`;
  return out;
}

export interface KwokContainerStatus {
  name: string;
  restartCount: number;
  state?: { running?: { startedAt?: string }; terminated?: Record<string, unknown> };
  lastState?: { terminated?: { reason?: string; exitCode?: number; startedAt?: string; finishedAt?: string } };
}

/**
 * Our Stage (sigs.k8s.io/kwok v0.8.0 pkg/apis/v1alpha1/stage_types.go): a kubelet's view of a container the
 * kernel OOM-killed and the kubelet restarted. It matches only a pod that carries OOM_KILL_ANNOTATION, is
 * not being deleted, not a Job's (kwok's pod-complete matches those: among several matching Stages kwok
 * picks one at random, pkg/utils/lifecycle/lifecycle.go Match) and whose named container is running; so
 * kwok's own stages and every pod without the annotation are untouched. Steps run in order from the pod
 * as matched (pkg/utils/lifecycle/next.go doStageSteps):
 *  1. a merge patch on the pod removing the annotation, first, so no later event of this pod matches again;
 *  2. a JSON patch on `status` of that one container: `test` that restartCount is still the matched value (a
 *     second job queued from an older event then fails with 422 and kwok does not retry it,
 *     pkg/kwok/controllers/utils.go shouldRetry, instead of counting a second restart), lastState.terminated
 *     OOMKilled / exit 137 from the run's start to now, restartCount + 1 (sprig `add1`; kwok's renderer
 *     decodes numbers as json.Number, which sprig's cast reads), running again since now (kwok's `Now`,
 *     `Quote`: pkg/utils/gotpl/funcs.go).
 */
export const OOM_KILL_STAGE = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: e2e-oom-kill
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - jq:
        key: '.metadata.annotations["${OOM_KILL_ANNOTATION}"]'
        operator: Exists
    - jq:
        key: '.metadata.deletionTimestamp'
        operator: DoesNotExist
    - jq:
        key: '.status.phase'
        operator: In
        values: [Running]
    - jq:
        key: '.metadata.ownerReferences[].kind'
        operator: NotIn
        values: [Job]
    - jq:
        key: '.metadata.annotations["${OOM_KILL_ANNOTATION}"] as $c | .status.containerStatuses[] | select(.name == $c) | .state.running.startedAt'
        operator: Exists
  steps:
  - patch:
      type: merge
      template: |
        metadata:
          annotations:
            "${OOM_KILL_ANNOTATION}": null
  - patch:
      type: json
      subresource: status
      template: |
        {{ $c := index .metadata.annotations "${OOM_KILL_ANNOTATION}" }}
        {{ $now := Now }}
        {{ range $i, $s := .status.containerStatuses }}
        {{ if eq $s.name $c }}
        - op: test
          path: "/status/containerStatuses/{{ $i }}/restartCount"
          value: {{ $s.restartCount }}
        - op: add
          path: "/status/containerStatuses/{{ $i }}/lastState"
          value:
            terminated:
              exitCode: 137
              reason: OOMKilled
              startedAt: {{ $s.state.running.startedAt | Quote }}
              finishedAt: {{ $now | Quote }}
        - op: replace
          path: "/status/containerStatuses/{{ $i }}/restartCount"
          value: {{ add1 $s.restartCount }}
        - op: replace
          path: "/status/containerStatuses/{{ $i }}/state"
          value:
            running:
              startedAt: {{ $now | Quote }}
        {{ end }}
        {{ end }}
`;

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
  return [options, ...docs, OOM_KILL_STAGE, metric].map((d) => d.trim()).join('\n---\n') + '\n';
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
    const nodeNames = Array.from({ length: cfg.nodes }, (_, i) => cfg.nodeNames?.[i] ?? `kwok-node-${i}`);

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

    const annotate = async (namespace: string, pod: string, annotations: Record<string, string | null>) => {
      if (Object.keys(annotations).length === 0) return;
      const r = await cfg.admin.request('PATCH', `/api/v1/namespaces/${namespace}/pods/${pod}`, {
        body: { metadata: { annotations } }, contentType: 'application/merge-patch+json',
      });
      if (r.status !== 200 && r.status !== 404) throw new Error(`annotate pod ${namespace}/${pod}: ${r.status} ${r.body.slice(0, 300)}`);
    };

    return {
      nodeNames, metricsServerPort,
      kubeletEndpoints: nodeNames.map((node, i) => ({ node, address: `127.0.0.1:${ports[2 + i]!}` })),
      setPodCpu: (namespace, pod, milli) => annotate(namespace, pod, { [USAGE_CPU_ANNOTATION]: milli === undefined ? null : cpuMilliAnnotation(milli) }),
      setPodMemory: (namespace, pod, bytes) => annotate(namespace, pod, usageAnnotations({ memBytes: bytes ?? null })),
      setPodUsage: (namespace, pod, usage) => annotate(namespace, pod, usageAnnotations(usage)),
      async oomKill(namespace, pod, container, o = {}) {
        type Pod = {
          metadata: { annotations?: Record<string, string> };
          spec: { containers: { name: string }[] };
          status?: { containerStatuses?: KwokContainerStatus[] };
        };
        const path = `/api/v1/namespaces/${namespace}/pods/${pod}`;
        const before = await cfg.admin.getJson<Pod>(path);
        if (!before.spec.containers.some((c) => c.name === container)) throw new Error(`${namespace}/${pod} has no container ${container}`);
        if (before.metadata.annotations?.[OOM_KILL_ANNOTATION] !== undefined) throw new Error(`${namespace}/${pod}: an OOM kill is already pending`);
        // kwok's pod-ready writes restartCount 0; a pod not Running yet gets OOM-killed once it is.
        const restarts = before.status?.containerStatuses?.find((c) => c.name === container)?.restartCount ?? 0;
        const r = await cfg.admin.request('PATCH', path, {
          body: { metadata: { annotations: { [OOM_KILL_ANNOTATION]: container } } }, contentType: 'application/merge-patch+json',
        });
        if (r.status !== 200) throw new Error(`annotate pod ${namespace}/${pod}: ${r.status} ${r.body.slice(0, 300)}`);
        let status: KwokContainerStatus | undefined;
        await waitFor(`kwok's e2e-oom-kill stage on ${namespace}/${pod} container ${container} (restartCount ${restarts} -> ${restarts + 1}; see the kwok logs)`, async () => {
          const p = await cfg.admin.getJson<Pod>(path);
          status = p.status?.containerStatuses?.find((c) => c.name === container);
          return p.metadata.annotations?.[OOM_KILL_ANNOTATION] === undefined && status?.restartCount === restarts + 1
            && status.lastState?.terminated?.reason === 'OOMKilled' && !!status.state?.running;
        }, { timeoutMs: o.timeoutMs ?? 60_000, intervalMs: 200 });
        return status!;
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

/**
 * `v1beta1.metrics.k8s.io` through the aggregator to https://localhost:<port> (an ExternalName Service in
 * kube-system): the real metrics-server that startKwokStack runs.
 */
export async function registerResourceMetricsApi(admin: RestClient, port: number): Promise<void> {
  const apply = async (path: string, body: unknown) => {
    const r = await admin.request('PATCH', `${path}?fieldManager=ehpa-e2e&force=true`, { body, contentType: 'application/apply-patch+yaml' });
    if (r.status !== 200 && r.status !== 201) throw new Error(`apply ${path}: ${r.status} ${r.body.slice(0, 300)}`);
  };
  await apply('/api/v1/namespaces/kube-system/services/metrics-server-loopback', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'metrics-server-loopback', namespace: 'kube-system' },
    spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port, protocol: 'TCP' }] },
  });
  await apply('/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io', {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.metrics.k8s.io' },
    spec: {
      group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true,
      service: { namespace: 'kube-system', name: 'metrics-server-loopback', port },
    },
  });
}

export async function waitResourceMetricsAvailable(admin: RestClient, timeoutMs: number): Promise<void> {
  await waitFor('APIService v1beta1.metrics.k8s.io Available', async () => {
    const a = await admin.getJson<{ status?: { conditions?: { type: string; status: string }[] } }>('/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io');
    return a.status?.conditions?.some((x) => x.type === 'Available' && x.status === 'True') ?? false;
  }, { timeoutMs });
}
