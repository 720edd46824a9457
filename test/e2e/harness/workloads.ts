// Conveniences for scenario tests on a started Cluster: install what a user installs (crds/, the RBAC of
// manifests/), make namespaces and Deployments, wait on replica counts and HPA state, feed usage for a
// workload's current pods, and call the adapter directly as (or not as) the aggregator.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Cluster } from './cluster.ts';
import { REPO_ROOT } from './binaries.ts';
import { applyObjects, loadKustomization, readYamlObjects } from './manifests.ts';
import { waitFor } from './processes.ts';
import { restClient, type RestClient } from './rest.ts';
import type { Usage } from './prometheus.ts';
import { usageAnnotations } from './kwok.ts';
import { makeCa, CLIENT_EXT } from './certificates.ts';

async function applyOrThrow(c: Cluster, objects: KubernetesObject[]): Promise<void> {
  const failed = (await applyObjects(c.kc, objects)).filter((r) => !r.ok);
  if (failed.length) throw new Error(failed.map((r) => `${r.object.kind}/${r.object.metadata?.name}: ${r.error}`).join('\n'));
}

/** Server-side apply every YAML file in crds/ and wait until each CRD is Established. */
export async function installCrds(c: Cluster, dir = join(REPO_ROOT, 'crds')): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml') || f.endsWith('.yml')).sort();
  const objects: KubernetesObject[] = [];
  for (const f of files) objects.push(...(await readYamlObjects(join(dir, f))));
  // crds/ also holds its kustomization.yaml, which is not a cluster object.
  const applicable = objects.filter((o) => o.kind !== 'Kustomization');
  const crds = applicable.filter((o) => o.kind === 'CustomResourceDefinition');
  // CRDs go through the raw client: client-node's typed serializer would drop the schemas'
  // `x-kubernetes-*` keys (CEL validations, list types), so the API server would not enforce them.
  for (const crd of crds) {
    const r = await c.admin.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata!.name!}?fieldManager=ehpa-e2e&force=true`, {
      body: JSON.stringify(crd), contentType: 'application/apply-patch+yaml',
    });
    if (r.status !== 200 && r.status !== 201) throw new Error(`apply CRD ${crd.metadata!.name!}: ${r.status} ${r.body.slice(0, 500)}`);
  }
  await applyOrThrow(c, applicable.filter((o) => o.kind !== 'CustomResourceDefinition'));
  for (const crd of crds) {
    const name = crd.metadata!.name!;
    await waitFor(`CRD ${name} Established`, async () => {
      const got = await c.admin.getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
      return got.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True') ?? false;
    }, { timeoutMs: 60_000 });
    // Established comes slightly before the resource handler serves (it answers 429 meanwhile).
    const spec = (crd as unknown as { spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] } }).spec;
    for (const v of spec.versions.filter((x) => x.served)) {
      await waitFor(`${spec.names.plural}.${spec.group}/${v.name} served`, async () => (await c.admin.get(`/apis/${spec.group}/${v.name}/${spec.names.plural}?limit=1`)).status === 200, { timeoutMs: 60_000 });
    }
  }
  return crds.map((x) => x.metadata!.name!);
}

/**
 * Apply manifests/ for real except what needs an image or would hijack the metrics APIs: Namespace,
 * ServiceAccount and all RBAC. Afterwards `cluster.adapterIdentity` has exactly the in-cluster permissions.
 */
export async function installManifestRbac(c: Cluster): Promise<void> {
  const kinds = new Set(['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
  await applyOrThrow(c, (await loadKustomization()).filter((o) => kinds.has(o.kind ?? '')));
}

/** The API Priority and Fairness objects of manifests/ (FlowSchema and PriorityLevelConfiguration for serve's status writes). */
export async function installManifestFlowControl(c: Cluster): Promise<void> {
  const kinds = new Set(['FlowSchema', 'PriorityLevelConfiguration']);
  const objects = (await loadKustomization()).filter((o) => kinds.has(o.kind ?? ''));
  if (objects.length !== 2) throw new Error(`manifests/ should hold one FlowSchema and one PriorityLevelConfiguration, found ${objects.length} objects`);
  await applyOrThrow(c, objects);
}

export async function createNamespace(c: Cluster, name: string): Promise<void> {
  const r = await c.admin.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  if (r.status !== 201 && r.status !== 409) throw new Error(`create namespace ${name}: ${r.status} ${r.body}`);
  // Pods are admitted only once the serviceaccount controller made the default ServiceAccount.
  await waitFor(`default ServiceAccount in ${name}`, async () => (await c.admin.get(`/api/v1/namespaces/${name}/serviceaccounts/default`)).status === 200, { timeoutMs: 60_000 });
}

export interface DeploymentSpec {
  replicas: number;
  cpuRequest?: string;
  memoryRequest?: string;
  memoryLimit?: string;
  container?: string;
  labels?: Record<string, string>;
}

export function deploymentObject(namespace: string, name: string, s: DeploymentSpec): KubernetesObject {
  const labels = { app: name, ...s.labels };
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas: s.replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: {
          containers: [{
            name: s.container ?? 'app', image: 'registry.k8s.io/pause:3.10',
            resources: {
              requests: { cpu: s.cpuRequest ?? '100m', memory: s.memoryRequest ?? '64Mi' },
              ...(s.memoryLimit ? { limits: { memory: s.memoryLimit } } : {}),
            },
          }],
        },
      },
    },
  } as KubernetesObject;
}

export async function createDeployment(c: Cluster, namespace: string, name: string, s: DeploymentSpec): Promise<void> {
  const r = await c.admin.request('POST', `/apis/apps/v1/namespaces/${namespace}/deployments`, { body: deploymentObject(namespace, name, s) });
  if (r.status !== 201) throw new Error(`create deployment ${namespace}/${name}: ${r.status} ${r.body}`);
}

interface DeploymentState {
  spec: { replicas: number };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number };
}

export async function getDeployment(c: Cluster, namespace: string, name: string): Promise<DeploymentState> {
  return c.admin.getJson<DeploymentState>(`/apis/apps/v1/namespaces/${namespace}/deployments/${name}`);
}

/** Wait until spec.replicas equals `replicas` and that many pods are available. */
export async function waitReplicas(c: Cluster, namespace: string, name: string, replicas: number, timeoutMs = 120_000): Promise<void> {
  let last = '';
  await waitFor(`${namespace}/${name} at ${replicas} replicas`, async () => {
    const d = await getDeployment(c, namespace, name);
    last = `spec ${d.spec.replicas}, available ${d.status?.availableReplicas ?? 0}`;
    return d.spec.replicas === replicas && (d.status?.availableReplicas ?? 0) === replicas && (d.status?.replicas ?? 0) === replicas;
  }, { timeoutMs }).catch((e: Error) => {
    throw new Error(`${e.message}; last: ${last}`);
  });
}

export interface PodInfo {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export async function podsOf(c: Cluster, namespace: string, labelSelector: string): Promise<PodInfo[]> {
  const r = await c.admin.getJson<{ items: { metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; deletionTimestamp?: string } }[] }>(
    `/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(labelSelector)}`,
  );
  return r.items.filter((p) => !p.metadata.deletionTimestamp).map((p) => ({ name: p.metadata.name, labels: p.metadata.labels ?? {}, annotations: p.metadata.annotations ?? {} }));
}

/**
 * Keep the live usage of a workload's pods at `perPod` as pods come and go (polls every `intervalMs`):
 * kwok's usage annotations on each pod (`cluster.kwok.setPodUsage`; a patch only
 * when a value changes), so metrics-server and Prometheus read the same number from the pod's node; kwok
 * applies a pod's annotation to each of its containers, so `container` names the only one (createDeployment's).
 * Returns a function that stops following and clears the annotations it wrote (back to kwok's idle 1m / 1Mi).
 */
export function followWorkloadUsage(c: Cluster, namespace: string, labelSelector: string, container: string, perPod: () => Usage, intervalMs = 500): () => void {
  let stopped = false;
  const known = new Set<string>();
  const kwok = c.kwok;
  if (!kwok) throw new Error('followWorkloadUsage: the cluster runs no nodes (started with kubelet: false)');
  const written: Usage = {}; // kwok: the fields written, to clear exactly those
  const tick = async () => {
    while (!stopped) {
      try {
        const pods = await podsOf(c, namespace, labelSelector);
        const now = new Set(pods.map((p) => p.name));
        for (const p of pods) {
          const usage = perPod();
          if (Object.entries(usageAnnotations(usage)).some(([k, v]) => p.annotations[k] !== v)) await kwok.setPodUsage(namespace, p.name, usage);
          Object.assign(written, usage);
        }
        known.clear();
        for (const p of now) known.add(p);
      } catch {
        // kube-apiserver restarts during fault tests: try again next tick.
      }
      if (!stopped) await new Promise((r) => setTimeout(r, intervalMs));
    }
  };
  const loop = tick();
  return () => {
    stopped = true;
    // After the loop's last round, so no write of it lands after the clearing; best effort (the cluster may be stopping).
    void loop.then(async () => {
      const clear = Object.fromEntries(Object.entries(written).filter(([, v]) => v !== undefined).map(([k]) => [k, null]));
      for (const p of known) await kwok.setPodUsage(namespace, p, clear).catch(() => undefined);
    });
  };
}

export interface HpaState {
  spec: { minReplicas?: number; maxReplicas: number; scaleTargetRef: { kind: string; name: string } };
  status?: {
    currentReplicas?: number;
    desiredReplicas?: number;
    currentMetrics?: unknown[];
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
}

export async function waitHpa(c: Cluster, namespace: string, name: string, what: string, pred: (h: HpaState) => boolean, timeoutMs = 120_000): Promise<HpaState> {
  let last: HpaState | undefined;
  await waitFor(`HPA ${namespace}/${name}: ${what}`, async () => {
    const r = await c.admin.get(`/apis/autoscaling/v2/namespaces/${namespace}/horizontalpodautoscalers/${name}`);
    if (r.status !== 200) return false;
    last = r.json as HpaState;
    return pred(last);
  }, { timeoutMs }).catch((e: Error) => {
    throw new Error(`${e.message}; last status: ${JSON.stringify(last?.status ?? null)}`);
  });
  return last!;
}

/**
 * A client straight to the adapter's HTTPS port (bypassing kube-apiserver), presenting:
 * `front-proxy` - kube-apiserver's front-proxy client cert (what the aggregator sends);
 * `untrusted`   - a cert with CN front-proxy-client from a CA nobody trusts;
 * `cluster-ca`  - a cluster-CA client cert (valid for kube-apiserver, not a front proxy);
 * `none`        - no client cert.
 * Add identity with headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': 'g' }.
 * The adapter's serving cert is not verified (self-signed), like `insecureSkipTLSVerify`.
 */
export async function directAdapterClient(c: Cluster, mode: 'front-proxy' | 'untrusted' | 'cluster-ca' | 'none', port = c.adapterPort): Promise<RestClient> {
  const url = `https://127.0.0.1:${port}`;
  if (mode === 'none') return restClient(url, null);
  if (mode === 'front-proxy') return restClient(url, null, { certPath: c.frontProxy.certPath, keyPath: c.frontProxy.keyPath });
  if (mode === 'cluster-ca') return restClient(url, null, await c.pki.clientCert('direct-cluster-ca', 'front-proxy-client', []));
  const rogue = await makeCa(c.pki.dir, 'rogue-ca', 'rogue-ca');
  return restClient(url, null, await c.pki.signWith(rogue, 'rogue-front-proxy', { cn: 'front-proxy-client' }, CLIENT_EXT));
}
