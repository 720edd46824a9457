// manifests/ against a real kube-apiserver: every object passes server-side dry run (as
// `kubectl apply --server-side --dry-run=server -k manifests/` would), the Deployment meets the
// "restricted" Pod Security Standard, and the RBAC, applied for real, grants exactly what it should.
import { expect } from 'chai';
import { join } from 'node:path';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { KubernetesObject } from '@kubernetes/client-node';
import { applyComponent, applyObjects, installCrds, installManifestRbac, loadKustomization, MANIFESTS_DIR } from './harness/index.ts';
import { useCluster } from './helpers.ts';

const NS = 'ehpa-system';
const SA_USER = `system:serviceaccount:${NS}:ehpa-adapter`;
const SA_GROUPS = ['system:serviceaccounts', `system:serviceaccounts:${NS}`, 'system:authenticated'];

interface Attrs {
  verb: string;
  group?: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

const byKind = (objs: KubernetesObject[], kind: string) => objs.filter((o) => o.kind === kind);

describe('e2e: manifests/ on a real kube-apiserver', function () {
  this.timeout(180_000);
  const env = useCluster({ controllerManager: false, prometheus: false, kubelet: false });
  let objects: KubernetesObject[] = [];

  before(async () => {
    objects = await loadKustomization();
  });

  async function allowed(user: string, groups: string[], a: Attrs): Promise<boolean> {
    const r = await env.cluster.admin.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups, resourceAttributes: a } },
    });
    expect(r.status, r.body).to.equal(201);
    return (r.json as { status: { allowed: boolean } }).status.allowed;
  }

  it('ships the install objects: namespace, service account, APIServices, PDB, NetworkPolicy, Deployment, Service, RBAC bindings', () => {
    const names = (kind: string) => byKind(objects, kind).map((o) => o.metadata?.name);
    expect(names('Namespace')).to.deep.equal([NS]);
    expect(names('ServiceAccount')).to.deep.equal(['ehpa-adapter']);
    expect(names('APIService')).to.have.members(['v1beta1.custom.metrics.k8s.io', 'v1beta2.custom.metrics.k8s.io', 'v1beta1.external.metrics.k8s.io']);
    expect(names('PodDisruptionBudget')).to.deep.equal(['ehpa-adapter']);
    expect(names('NetworkPolicy')).to.deep.equal(['ehpa-adapter']);
    const dep = byKind(objects, 'Deployment')[0] as unknown as { spec: { replicas: number; template: { spec: { containers: { ports: { containerPort: number }[] }[] } } } };
    expect(dep.spec.replicas).to.equal(2);
    expect(dep.spec.template.spec.containers[0]!.ports.map((p) => p.containerPort)).to.deep.equal([6443, 8080]);
    const svc = byKind(objects, 'Service')[0] as unknown as { spec: { ports: { port: number; targetPort: string }[] } };
    expect(svc.spec.ports[0]).to.include({ port: 443, targetPort: 'https' });
    const crb = byKind(objects, 'ClusterRoleBinding').map((o) => (o as unknown as { roleRef: { name: string } }).roleRef.name);
    expect(crb).to.include('system:auth-delegator');
    const rb = byKind(objects, 'RoleBinding').find((o) => o.metadata?.namespace === 'kube-system') as unknown as { roleRef: { name: string } };
    expect(rb.roleRef.name).to.equal('extension-apiserver-authentication-reader');
  });

  it('every object passes server-side dry run, and nothing is persisted', async () => {
    const c = env.cluster;
    // Namespaced objects need their namespace to exist even in a dry run: create it for real first.
    const [ns] = await applyObjects(c.kc, byKind(objects, 'Namespace'));
    expect(ns!.ok, ns!.error).to.equal(true);
    const results = await applyObjects(c.kc, objects, { dryRun: true });
    const failed = results.filter((r) => !r.ok).map((r) => `${r.object.kind}/${r.object.metadata?.name}: ${r.error}`);
    expect(failed).to.deep.equal([]);
    expect(results).to.have.length(objects.length);
    expect((await c.admin.get(`/apis/apps/v1/namespaces/${NS}/deployments/ehpa-adapter`)).status).to.equal(404);
    expect((await c.admin.get('/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.external.metrics.k8s.io')).status).to.equal(404);
  });

  it('the Deployment meets the restricted Pod Security Standard its namespace enforces (no admission warning)', async () => {
    const c = env.cluster;
    const dep = byKind(objects, 'Deployment')[0]!;
    const r = await c.admin.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments?dryRun=All`, { body: dep });
    expect(r.status, r.body).to.equal(201);
    expect(r.headers.warning ?? '').to.equal('');
    // The check is live: a root container in the same namespace does draw the warning.
    const bad = structuredClone(dep) as unknown as { spec: { template: { spec: { securityContext: Record<string, unknown> } } } };
    bad.spec.template.spec.securityContext = { runAsNonRoot: false };
    const r2 = await c.admin.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments?dryRun=All`, { body: bad });
    expect(String(r2.headers.warning ?? '')).to.match(/would violate PodSecurity \\?"restricted/);
  });

  it('the remote-adapter component patches the Deployment and passes dry run', async () => {
    const c = env.cluster;
    const patched = await applyComponent(objects, join(MANIFESTS_DIR, 'components', 'remote-adapter'));
    const dep = patched.find((o) => o.kind === 'Deployment') as unknown as { spec: { template: { spec: { containers: { args: string[] }[] } } } };
    expect(dep.spec.template.spec.containers[0]!.args).to.include('--remote-adapter=https://prometheus-adapter.monitoring.svc:443');
    expect(patched.map((o) => o.kind)).to.include('ClusterRoleBinding');
    const results = await applyObjects(c.kc, patched, { dryRun: true });
    expect(results.filter((r) => !r.ok).map((r) => r.error)).to.deep.equal([]);
  });

  it('the RBAC, applied for real, grants the adapter and the HPA what they need and no more', async () => {
    const c = env.cluster;
    await installManifestRbac(c);

    const sa = (a: Attrs) => allowed(SA_USER, SA_GROUPS, a);
    // Aggregated API server duties.
    expect(await sa({ verb: 'create', group: 'authentication.k8s.io', resource: 'tokenreviews' })).to.equal(true);
    expect(await sa({ verb: 'create', group: 'authorization.k8s.io', resource: 'subjectaccessreviews' })).to.equal(true);
    expect(await sa({ verb: 'get', resource: 'configmaps', namespace: 'kube-system', name: 'extension-apiserver-authentication' })).to.equal(true);
    expect(await sa({ verb: 'get', resource: 'configmaps', namespace: 'kube-system', name: 'kubeadm-config' })).to.equal(false);
    // Control loops.
    expect(await sa({ verb: 'patch', group: 'autoscaling.crane.io', resource: 'effectivehorizontalpodautoscalers', subresource: 'status', namespace: 'default' })).to.equal(true);
    expect(await sa({ verb: 'create', group: 'autoscaling', resource: 'horizontalpodautoscalers', namespace: 'default' })).to.equal(true);
    expect(await sa({ verb: 'create', group: 'prediction.crane.io', resource: 'timeseriespredictions', namespace: 'default' })).to.equal(true);
    expect(await sa({ verb: 'patch', group: 'autoscaling.k8s.io', resource: 'verticalpodautoscalers', subresource: 'status', namespace: 'default' })).to.equal(true);
    expect(await sa({ verb: 'delete', group: 'autoscaling.k8s.io', resource: 'verticalpodautoscalercheckpoints', namespace: 'default' })).to.equal(true);
    expect(await sa({ verb: 'patch', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'default' })).to.equal(true);
    expect(await sa({ verb: 'patch', group: 'example.com', resource: 'widgets', subresource: 'scale', namespace: 'default' })).to.equal(true);
    expect(await sa({ verb: 'create', resource: 'events', namespace: 'default' })).to.equal(true);
    // The VPA recommender's eviction watch (memory-pressure evictions count as OOMs).
    expect(await sa({ verb: 'watch', resource: 'events' })).to.equal(true);
    expect(await sa({ verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: NS })).to.equal(true);
    // The metrics APIServices, read (by name only) to tell who holds them; never written.
    for (const name of ['v1beta1.custom.metrics.k8s.io', 'v1beta2.custom.metrics.k8s.io', 'v1beta1.external.metrics.k8s.io']) {
      expect(await sa({ verb: 'get', group: 'apiregistration.k8s.io', resource: 'apiservices', name }), name).to.equal(true);
      expect(await sa({ verb: 'update', group: 'apiregistration.k8s.io', resource: 'apiservices', name }), name).to.equal(false);
    }
    expect(await sa({ verb: 'get', group: 'apiregistration.k8s.io', resource: 'apiservices', name: 'v1beta1.metrics.k8s.io' })).to.equal(false);
    expect(await sa({ verb: 'list', group: 'apiregistration.k8s.io', resource: 'apiservices' })).to.equal(false);
    // Least privilege: no writes to workloads themselves, no secrets, no leases elsewhere, no pod deletes.
    expect(await sa({ verb: 'update', group: 'apps', resource: 'deployments', namespace: 'default' })).to.equal(false);
    expect(await sa({ verb: 'delete', resource: 'pods', namespace: 'default' })).to.equal(false);
    expect(await sa({ verb: 'get', resource: 'secrets', namespace: NS })).to.equal(false);
    expect(await sa({ verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system' })).to.equal(false);
    expect(await sa({ verb: 'delete', group: 'autoscaling.k8s.io', resource: 'verticalpodautoscalers', namespace: 'default' })).to.equal(false);
    // Trimmed to the verbs the code uses (test/unit/packaging/rbac.test.ts): EHPAs are only read (their
    // status patched), owned objects are never deleted (GC does it), /scale is patched, not replaced.
    expect(await sa({ verb: 'update', group: 'autoscaling.crane.io', resource: 'effectivehorizontalpodautoscalers', namespace: 'default' })).to.equal(false);
    expect(await sa({ verb: 'delete', group: 'autoscaling', resource: 'horizontalpodautoscalers', namespace: 'default' })).to.equal(false);
    expect(await sa({ verb: 'delete', group: 'prediction.crane.io', resource: 'timeseriespredictions', namespace: 'default' })).to.equal(false);
    expect(await sa({ verb: 'update', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'default' })).to.equal(false);
    expect(await sa({ verb: 'list', group: 'coordination.k8s.io', resource: 'leases', namespace: NS })).to.equal(false);

    // The HPA may read both metrics APIs under either identity; an ordinary user may not.
    const metrics = (group: string): Attrs => ({ verb: 'get', group, resource: 'crane_autoscaling_cron', namespace: 'default' });
    for (const group of ['custom.metrics.k8s.io', 'external.metrics.k8s.io']) {
      expect(await allowed('system:kube-controller-manager', ['system:authenticated'], metrics(group)), group).to.equal(true);
      expect(await allowed('system:serviceaccount:kube-system:horizontal-pod-autoscaler', ['system:serviceaccounts', 'system:authenticated'], metrics(group)), group).to.equal(true);
      expect(await allowed('e2e-user', ['system:authenticated'], metrics(group)), group).to.equal(false);
    }

    // And as a real client: the adapter's identity reads the front-proxy settings.
    const cm = await c.adapterIdentity.rest.get('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
    expect(cm.status).to.equal(200);
  });

  it('installCrds applies a directory of CRDs and waits until they are served', async () => {
    const c = env.cluster;
    const dir = await mkdtemp(join(tmpdir(), 'ehpa-crds-'));
    try {
      await writeFile(join(dir, 'widgets.yaml'), [
        'apiVersion: apiextensions.k8s.io/v1', 'kind: CustomResourceDefinition', 'metadata:', '  name: widgets.example.com', 'spec:',
        '  group: example.com', '  scope: Namespaced', '  names: {plural: widgets, singular: widget, kind: Widget}', '  versions:',
        '    - name: v1', '      served: true', '      storage: true',
        '      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}', '',
      ].join('\n'));
      expect(await installCrds(c, dir)).to.deep.equal(['widgets.example.com']);
      expect((await c.admin.get('/apis/example.com/v1/namespaces/default/widgets')).status).to.equal(200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
