// crds/ as a user applies it (`kubectl apply --server-side -k crds/`): the objects its kustomization lists,
// through the raw client so the `x-kubernetes-*` schema keys survive (client-node's typed serializer drops
// them), then wait until each CRD is Established and its versions are served.
// (The harness's installCrds also reads crds/kustomization.yaml as an object and fails on it.)
import { join } from 'node:path';
import { loadKustomization, REPO_ROOT, waitFor, type Cluster } from '../../test/e2e/harness/index.ts';

interface Crd {
  metadata: { name: string };
  spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] };
}

export async function applyCrds(c: Cluster, dir = join(REPO_ROOT, 'crds')): Promise<string[]> {
  const crds = (await loadKustomization(dir)).filter((o) => o.kind === 'CustomResourceDefinition') as unknown as Crd[];
  for (const crd of crds) {
    const r = await c.admin.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}?fieldManager=ehpa-demo&force=true`, {
      body: JSON.stringify(crd), contentType: 'application/apply-patch+yaml',
    });
    if (r.status !== 200 && r.status !== 201) throw new Error(`apply CRD ${crd.metadata.name}: ${r.status} ${r.body.slice(0, 300)}`);
  }
  for (const crd of crds) {
    await waitFor(`CRD ${crd.metadata.name} Established`, async () => {
      const got = await c.admin.getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
      return got.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True') ?? false;
    }, { timeoutMs: 60_000 });
    for (const v of crd.spec.versions.filter((x) => x.served)) {
      await waitFor(`${crd.spec.names.plural}.${crd.spec.group}/${v.name} served`, async () => (await c.admin.get(`/apis/${crd.spec.group}/${v.name}/${crd.spec.names.plural}?limit=1`)).status === 200, { timeoutMs: 60_000 });
    }
  }
  return crds.map((x) => x.metadata.name);
}
