// A metrics-server stand-in for the scenario suites: serves metrics.k8s.io/v1beta1 PodMetrics behind the
// real aggregator from values the test sets (metrics-server reads kubelets, not Prometheus, so this path
// stays up when Prometheus is down). It lets the real HPA use an EHPA's original `Resource` CPU metric.
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import { waitFor, type Cluster } from './harness/index.ts';
import { freePort } from './harness/ports.ts';

const GROUP = 'metrics.k8s.io';
const VERSION = 'v1beta1';

export interface ResourceMetricsStandin {
  port: number;
  /** CPU usage (millicores) each pod of `namespace` matching the request reports; undefined = no metrics. */
  setCpu(namespace: string, milliFor: (podName: string, podCount: number) => number | undefined): void;
  requests: number;
  close(): Promise<void>;
}

interface PodList {
  items: { metadata: { name: string; namespace: string; labels?: Record<string, string>; deletionTimestamp?: string }; spec: { containers: { name: string }[] } }[];
}

export async function startResourceMetricsStandin(c: Cluster): Promise<ResourceMetricsStandin> {
  const port = await freePort();
  const usage = new Map<string, (pod: string, count: number) => number | undefined>();
  const state = { requests: 0 };
  const json = (res: import('node:http').ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer({ cert: readFileSync(c.pki.apiserver.certPath), key: readFileSync(c.pki.apiserver.keyPath) }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://x');
    if (url.pathname === `/apis/${GROUP}/${VERSION}` || url.pathname === `/apis/${GROUP}/${VERSION}/`) {
      json(res, 200, {
        kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${GROUP}/${VERSION}`,
        resources: [{ name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] }],
      });
      return;
    }
    const m = /^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/([^/]+)\/pods$/.exec(url.pathname);
    if (!m) {
      json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'stand-in' });
      return;
    }
    state.requests++;
    const ns = m[1]!;
    const sel = url.searchParams.get('labelSelector') ?? '';
    void c.admin.getJson<PodList>(`/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(sel)}`).then((pods) => {
      const live = pods.items.filter((p) => !p.metadata.deletionTimestamp);
      const f = usage.get(ns);
      const now = new Date().toISOString();
      const items = [];
      for (const p of live) {
        const milli = f?.(p.metadata.name, live.length);
        if (milli === undefined) continue;
        items.push({
          metadata: { name: p.metadata.name, namespace: ns, labels: p.metadata.labels ?? {} },
          timestamp: now, window: '1s',
          containers: p.spec.containers.map((k, i) => ({ name: k.name, usage: { cpu: i === 0 ? `${Math.round(milli)}m` : '0', memory: '1Mi' } })),
        });
      }
      json(res, 200, { kind: 'PodMetricsList', apiVersion: `${GROUP}/${VERSION}`, metadata: {}, items });
    }, (err: Error) => json(res, 500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, message: err.message }));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  const apply = async (collection: string, name: string, body: unknown) => {
    const r = await c.admin.request('PATCH', `${collection}/${name}?fieldManager=ehpa-e2e&force=true`, { body, contentType: 'application/apply-patch+yaml' });
    if (r.status !== 200 && r.status !== 201) throw new Error(`apply ${name}: ${r.status} ${r.body}`);
  };
  await apply('/api/v1/namespaces', 'ehpa-system', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ehpa-system' } });
  await apply('/api/v1/namespaces/ehpa-system/services', 'metrics-server-standin', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'metrics-server-standin', namespace: 'ehpa-system' },
    spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port, protocol: 'TCP' }] },
  });
  await apply('/apis/apiregistration.k8s.io/v1/apiservices', `${VERSION}.${GROUP}`, {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `${VERSION}.${GROUP}` },
    spec: {
      group: GROUP, version: VERSION, groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true,
      service: { namespace: 'ehpa-system', name: 'metrics-server-standin', port },
    },
  });
  await waitFor(`APIService ${VERSION}.${GROUP} Available`, async () => {
    const a = await c.admin.getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(`/apis/apiregistration.k8s.io/v1/apiservices/${VERSION}.${GROUP}`);
    return a.status?.conditions?.some((x) => x.type === 'Available' && x.status === 'True') ?? false;
  }, { timeoutMs: 120_000 });

  return {
    port,
    setCpu(namespace, f) {
      usage.set(namespace, f);
    },
    get requests() {
      return state.requests;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
