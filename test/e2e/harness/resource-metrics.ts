// A stand-in for metrics-server (the harness plays the nodes' part, and metrics-server reads kubelets):
// `metrics.k8s.io/v1beta1` PodMetrics from usage the caller supplies. A real cluster has metrics-server;
// the EHPA keeps the original Resource cpu metric in its HPA (Crane's fallback), and without this API the
// real HPA would mark that metric invalid and refuse every scale-down. It does not read Prometheus, so it
// stays up when Prometheus is down (the faults scenario). Reached through kube-apiserver's aggregator like
// the adapter (ExternalName Service -> https://localhost:<port>); only the aggregator's front-proxy client
// certificate is accepted. Used by the demo and the scenario suites.
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import type { Cluster } from './cluster.ts';
import type { RestClient } from './rest.ts';
import { freePort } from './ports.ts';
import { waitFor } from './processes.ts';

/** One container's usage as metrics-server writes it: quantity strings. */
export interface ContainerUsageText {
  cpu: string;
  memory: string;
}

/**
 * Usage of one container of a live pod; `podCount` is the number of live pods in the answer being built
 * (so a workload total can be split). Undefined: not measured yet, and the pod is left out.
 */
export type UsageSource = (namespace: string, pod: string, container: string, containerIndex: number, podCount: number) => ContainerUsageText | undefined;

export interface ResourceMetricsServer {
  port: number;
  /** PodMetrics list requests answered so far. */
  readonly requests: number;
  close(): Promise<void>;
}

const GROUP_VERSION = 'metrics.k8s.io/v1beta1';

interface PodList {
  items: { metadata: { name: string; namespace: string; labels?: Record<string, string>; deletionTimestamp?: string }; spec: { containers: { name: string }[] } }[];
}

/** Start the server, register `v1beta1.metrics.k8s.io` and wait until the aggregator marks it Available. */
export async function startResourceMetrics(c: Cluster, usage: UsageSource): Promise<ResourceMetricsServer> {
  const port = await freePort();
  let requests = 0;
  const server: Server = createServer(
    {
      cert: readFileSync(c.pki.apiserver.certPath), key: readFileSync(c.pki.apiserver.keyPath),
      ca: readFileSync(c.frontProxy.caPath), requestCert: true, rejectUnauthorized: true,
    },
    (req, res) => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const url = new URL(req.url ?? '/', 'https://localhost');
      if (url.pathname === `/apis/${GROUP_VERSION}` || url.pathname === `/apis/${GROUP_VERSION}/`) {
        send(200, {
          kind: 'APIResourceList', apiVersion: 'v1', groupVersion: GROUP_VERSION,
          resources: [{ name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] }],
        });
        return;
      }
      // Pods of one namespace (the HPA) or of all (the VPA recommender's current usage).
      const m = /^\/apis\/metrics\.k8s\.io\/v1beta1\/(?:namespaces\/([^/]+)\/)?pods\/?$/.exec(url.pathname);
      if (!m || req.method !== 'GET') {
        send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the demo serves pod metrics only' });
        return;
      }
      requests++;
      const ns = m[1] === undefined ? undefined : decodeURIComponent(m[1]);
      const selector = url.searchParams.get('labelSelector') ?? '';
      void c.admin
        .getJson<PodList>(`/api/v1/${ns === undefined ? '' : `namespaces/${ns}/`}pods${selector ? `?labelSelector=${encodeURIComponent(selector)}` : ''}`)
        .then((pods) => {
          const now = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
          const live = pods.items.filter((p) => !p.metadata.deletionTimestamp);
          const items = live.flatMap((p) => {
            const containers = p.spec.containers.map((k, i) => ({ name: k.name, u: usage(p.metadata.namespace, p.metadata.name, k.name, i, live.length) }));
            // Like metrics-server: a pod with a container not measured yet is left out.
            if (containers.some((k) => !k.u)) return [];
            return [{
              metadata: { name: p.metadata.name, namespace: p.metadata.namespace, labels: p.metadata.labels ?? {} },
              timestamp: now, window: '1s',
              containers: containers.map((k) => ({ name: k.name, usage: k.u! })),
            }];
          });
          send(200, { kind: 'PodMetricsList', apiVersion: GROUP_VERSION, metadata: {}, items });
        })
        .catch((err: Error) => send(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, message: err.message }));
    },
  );
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  await registerResourceMetricsApi(c.admin, port);
  await waitResourceMetricsAvailable(c.admin, 60_000);
  return {
    port,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * `v1beta1.metrics.k8s.io` through the aggregator to https://localhost:<port> (an ExternalName Service in
 * kube-system): the stand-in above or the real metrics-server (harness/kwok.ts).
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
