// Routes the metrics API groups through kube-apiserver's aggregator to an adapter on loopback: an
// ExternalName Service (externalName: localhost) makes the aggregator dial https://localhost:<port>, with
// <port> taken from APIService.spec.service.port. Endpoints cannot point at 127.0.0.0/8, so this is the route.
import type { RestClient } from './rest.ts';
import { waitFor } from './processes.ts';

export const METRICS_API_SERVICES = [
  { group: 'custom.metrics.k8s.io', version: 'v1beta1', versionPriority: 100 },
  { group: 'custom.metrics.k8s.io', version: 'v1beta2', versionPriority: 200 },
  { group: 'external.metrics.k8s.io', version: 'v1beta1', versionPriority: 100 },
] as const;

export interface AdapterRoute {
  namespace: string;
  serviceName: string;
  port: number;
  /** Only these API groups (default: all three APIServices), e.g. ['external.metrics.k8s.io']. */
  groups?: readonly string[];
}

const servicesOf = (groups: readonly string[] | undefined) => METRICS_API_SERVICES.filter((s) => !groups || groups.includes(s.group));

async function upsert(api: RestClient, collection: string, name: string, body: unknown): Promise<void> {
  const r = await api.request('PATCH', `${collection}/${name}?fieldManager=ehpa-e2e&force=true`, {
    body, contentType: 'application/apply-patch+yaml',
  });
  if (r.status !== 200 && r.status !== 201) throw new Error(`apply ${collection}/${name}: ${r.status} ${r.body.slice(0, 500)}`);
}

export async function ensureNamespace(api: RestClient, name: string): Promise<void> {
  await upsert(api, '/api/v1/namespaces', name, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

export async function registerAdapterRoute(api: RestClient, route: AdapterRoute): Promise<void> {
  await ensureNamespace(api, route.namespace);
  await upsert(api, `/api/v1/namespaces/${route.namespace}/services`, route.serviceName, {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name: route.serviceName, namespace: route.namespace },
    spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port: route.port, protocol: 'TCP' }] },
  });
  for (const s of servicesOf(route.groups)) {
    const name = `${s.version}.${s.group}`;
    await upsert(api, '/apis/apiregistration.k8s.io/v1/apiservices', name, {
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService',
      metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'ehpa-e2e' } },
      spec: {
        group: s.group, version: s.version, groupPriorityMinimum: 100, versionPriority: s.versionPriority,
        // The adapter's serving cert does not name <service>.<namespace>.svc; tests skip verification.
        insecureSkipTLSVerify: true,
        service: { namespace: route.namespace, name: route.serviceName, port: route.port },
      },
    });
  }
}

export async function unregisterAdapterRoute(api: RestClient): Promise<void> {
  for (const s of METRICS_API_SERVICES) {
    const r = await api.request('DELETE', `/apis/apiregistration.k8s.io/v1/apiservices/${s.version}.${s.group}`);
    if (r.status !== 200 && r.status !== 404) throw new Error(`delete APIService ${s.version}.${s.group}: ${r.status}`);
  }
}

interface ApiServiceStatus {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/** Wait until the aggregator reports every metrics APIService Available (it probes the adapter itself). */
export async function waitAdapterAvailable(api: RestClient, timeoutMs = 60_000, groups?: readonly string[]): Promise<void> {
  for (const s of servicesOf(groups)) {
    const name = `${s.version}.${s.group}`;
    let last = '';
    await waitFor(`APIService ${name} Available`, async () => {
      const a = await api.getJson<ApiServiceStatus>(`/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
      const c = a.status?.conditions?.find((x) => x.type === 'Available');
      last = `${c?.reason ?? ''}: ${c?.message ?? ''}`;
      return c?.status === 'True';
    }, { timeoutMs }).catch((err: Error) => {
      throw new Error(`${err.message}; last condition ${last}`);
    });
  }
}
