// charts/ehpa-adapter on a real kube-apiserver:
// 1. schema validation: every object of every values combination in test/helpers/chart-matrix.ts goes
//    through server-side apply with dryRun=All and fieldValidation=Strict, so a wrong type, a missing required
//    field or a field the API does not know fails, as does admission (the namespace's restricted Pod Security
//    Standard, for the Deployment). Built-in kinds and the chart's own CRDs are checked against the API
//    server's real schemas. cert-manager's and prometheus-operator's kinds are checked against the minimal
//    hand-written CRDs in test/fixtures/chart-crds (see their header: the fields the chart sets, typed, with
//    their enums and required fields; not upstream's full schema, and no upstream webhook runs).
// 2. install: `helm install` of the chart with its defaults (replicas=0) onto the control plane (CRDs, RBAC,
//    APIServices, Service, PDB, NetworkPolicy, the Deployment), with `ehpa-adapter serve` running as a process
//    under the chart's service-account identity as the other e2e suites run it. The only edits are where a pod
//    would be: the chart's Service becomes an ExternalName to localhost and the APIServices' port is the
//    process's port. Then an EHPA with a cron window active now makes its HPA scale the Deployment to the
//    window's replicas. helm upgrade and a second release's dry run exercise the APIService and VPA CRD lookups and the notes.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Context } from 'mocha';
import type { KubernetesObject } from '@kubernetes/client-node';
import { createDeployment, createNamespace, installCrds, REPO_ROOT, waitFor, waitHpa, waitReplicas, type AdapterProcess, type Cluster } from './harness/index.ts';
import { useCluster } from './helpers.ts';
import { cronSelector, cronWindowNow, ehpaObject, ehpaPath, externalItems, post, quantityMilli, startServe } from './scenario-helpers.ts';
import { CHART_MATRIX, renderObjects } from '../helpers/chart-matrix.ts';
import { CHART_DIR, helmBin } from '../../scripts/helm-chart.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = KubernetesObject & { spec?: any };

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** kind -> resource (plural, namespaced) of one apiVersion, from the API server's discovery. */
async function resourcesOf(c: Cluster, apiVersion: string, cache: Map<string, ApiResource[]>): Promise<ApiResource[]> {
  const hit = cache.get(apiVersion);
  if (hit) return hit;
  const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const list = (await c.admin.getJson<{ resources: ApiResource[] }>(path)).resources.filter((r) => !r.name.includes('/'));
  cache.set(apiVersion, list);
  return list;
}

async function objectPath(c: Cluster, o: KubernetesObject, cache: Map<string, ApiResource[]>): Promise<string> {
  const r = (await resourcesOf(c, o.apiVersion!, cache)).find((x) => x.kind === o.kind);
  if (!r) throw new Error(`${o.apiVersion} ${o.kind} is not served`);
  const base = o.apiVersion!.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  return `${base}${r.namespaced ? `/namespaces/${o.metadata!.namespace}` : ''}/${r.name}/${o.metadata!.name}`;
}

/** Server-side apply with strict field validation; returns the error text, or '' when accepted. */
async function apply(c: Cluster, o: KubernetesObject, cache: Map<string, ApiResource[]>, dryRun: boolean): Promise<string> {
  const path = await objectPath(c, o, cache);
  const r = await c.admin.request('PATCH', `${path}?fieldManager=ehpa-helm-e2e&force=true&fieldValidation=Strict${dryRun ? '&dryRun=All' : ''}`, {
    body: JSON.stringify(o), contentType: 'application/apply-patch+yaml',
  });
  if (r.status !== 200 && r.status !== 201) return `${r.status} ${r.body.slice(0, 600)}`;
  // Pod Security admission in "warn" mode answers 200 with a Warning header: count it as a failure too.
  const warning = r.headers.warning;
  return warning ? `admission warning: ${String(warning)}` : '';
}

describe('e2e: charts/ehpa-adapter on a real kube-apiserver', function () {
  this.timeout(600_000);
  const env = useCluster();
  const discovery = new Map<string, ApiResource[]>();

  before(async function (this: Context) {
    this.timeout(30 * 60_000);
    helmBin();
    const c = env.cluster;
    // The kinds the chart renders that this control plane does not serve otherwise.
    await installCrds(c, join(REPO_ROOT, 'test', 'fixtures', 'chart-crds'));
    for (const ns of new Set(CHART_MATRIX.map((e) => e.render.namespace ?? 'ehpa-system'))) {
      // Created as the chart's namespace.create renders it (restricted Pod Security enforced), so the
      // Deployment's dry run goes through that admission.
      const nsObj = renderObjects({ namespace: ns, set: ['namespace.create=true'] }).find((o) => o.kind === 'Namespace')!;
      expect(await apply(c, nsObj, discovery, false), `namespace ${ns}`).to.equal('');
    }
  });

  it('every rendered object of every values combination passes server-side dry run with strict field validation', async function () {
    const c = env.cluster;
    const failures: string[] = [];
    let checked = 0;
    for (const entry of CHART_MATRIX) {
      const objs = renderObjects(entry.render);
      // CRDs first: a dry run does not create them, so only their own validation runs here.
      for (const o of objs) {
        const err = await apply(c, o, discovery, true);
        checked++;
        if (err) failures.push(`[${entry.name}] ${o.kind}/${o.metadata?.name}: ${err}`);
      }
    }
    expect(failures).to.deep.equal([]);
    expect(checked).to.be.greaterThan(CHART_MATRIX.length * 15);
    // Nothing was persisted by the dry runs.
    expect((await c.admin.get('/apis/apps/v1/namespaces/ehpa-system/deployments/ehpa-adapter')).status).to.equal(404);
    expect((await c.admin.get('/apis/cert-manager.io/v1/namespaces/ehpa-system/certificates/ehpa-adapter-serving-cert')).status).to.equal(404);
  });

  it('the strict check is live: an unknown field and a wrong type are refused', async () => {
    const c = env.cluster;
    const objs = renderObjects(CHART_MATRIX.find((e) => e.name === 'monitoring on')!.render) as Obj[];
    const sm = structuredClone(objs.find((o) => o.kind === 'ServiceMonitor')!);
    sm.spec.endpoints[0].honourLabels = true;
    // Server-side apply reports it as "field not declared in schema" (a 500 from the typed patch).
    expect(await apply(c, sm, discovery, true)).to.match(/field not declared in schema|unknown field/);
    const dep = structuredClone(objs.find((o) => o.kind === 'Deployment')!);
    dep.spec.replicas = 'two';
    expect(await apply(c, dep, discovery, true)).to.match(/^(4\d\d|500) .*\.spec\.replicas/);
    const cert = structuredClone((renderObjects(CHART_MATRIX.find((e) => e.name === 'cert-manager on')!.render) as Obj[]).find((o) => o.kind === 'Certificate' && !o.spec.isCA)!);
    delete cert.spec.issuerRef;
    expect(await apply(c, cert, discovery, true)).to.match(/issuerRef/);
  });

  describe('helm install with the defaults, then an EHPA scales its target', () => {
    let serve: AdapterProcess | undefined;
    const helm = (...args: string[]) => execFileSync(helmBin(), [...args, '--kubeconfig', env.cluster.kubeconfigPath], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    after(async () => {
      await serve?.stop();
    });

    it('helm install (the chart from the repository) onto the control plane: every object created, VPA CRDs included since none exist', () => {
      // replicas=0: the adapter runs as a process below, not as pods (there is no image in this cluster).
      const out = helm('install', 'ehpa-adapter', CHART_DIR, '--namespace', 'ehpa-system', '--set', 'replicas=0', '--wait=false');
      expect(out).to.match(/STATUS: deployed/);
      expect(out).to.match(/Metric APIs claimed: v1beta1\.custom\.metrics\.k8s\.io, v1beta2\.custom\.metrics\.k8s\.io, v1beta1\.external\.metrics\.k8s\.io/);
      expect(out).to.not.match(/WARNING/);
      const manifest = helm('get', 'manifest', 'ehpa-adapter', '--namespace', 'ehpa-system');
      expect(manifest).to.match(/name: verticalpodautoscalers\.autoscaling\.k8s\.io/);
    });

    it('helm upgrade keeps the VPA CRDs and the APIServices it installed (its lookups find them as its own)', () => {
      helm('upgrade', 'ehpa-adapter', CHART_DIR, '--namespace', 'ehpa-system', '--set', 'replicas=0', '--wait=false');
      const manifest = helm('get', 'manifest', 'ehpa-adapter', '--namespace', 'ehpa-system');
      expect(manifest).to.match(/name: verticalpodautoscalers\.autoscaling\.k8s\.io/);
      expect(manifest).to.match(/name: verticalpodautoscalercheckpoints\.autoscaling\.k8s\.io/);
      // The same lookup for the APIServices (auto): they point at this release's Service, so they stay
      // claimed; dropping them from the release would make Helm delete them.
      expect(manifest.match(/kind: APIService/g) ?? []).to.have.length(3);
    });

    it('serve runs with the chart\'s controller flags; the HPA scales on the cron metric through the chart\'s APIServices', async function () {
      this.timeout(540_000);
      const c = env.cluster;
      // The adapter is a process on loopback: the Service the APIServices name is routed there (the way the
      // harness routes its own), and the APIServices carry the process's port. Nothing else is changed.
      const svc = await c.admin.request('PATCH', '/api/v1/namespaces/ehpa-system/services/ehpa-adapter', {
        contentType: 'application/merge-patch+json',
        body: { spec: { type: 'ExternalName', externalName: 'localhost', clusterIP: null, clusterIPs: null, selector: null, ipFamilies: null, ipFamilyPolicy: null, ports: [{ name: 'https', port: c.adapterPort, protocol: 'TCP' }] } },
      });
      expect(svc.status, svc.body).to.equal(200);
      const apiServices = ['v1beta1.custom.metrics.k8s.io', 'v1beta2.custom.metrics.k8s.io', 'v1beta1.external.metrics.k8s.io'];
      for (const name of apiServices) {
        const r = await c.admin.request('PATCH', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`, { contentType: 'application/merge-patch+json', body: { spec: { service: { port: c.adapterPort } } } });
        expect(r.status, r.body).to.equal(200);
        const a = r.json as { metadata: { labels: Record<string, string> }; spec: { service: { name: string; namespace: string } } };
        expect(a.metadata.labels['app.kubernetes.io/managed-by'], name).to.equal('Helm');
        expect(a.spec.service).to.include({ name: 'ehpa-adapter', namespace: 'ehpa-system' });
      }
      // The chart's controller flags, not serve's defaults (the VPA recommender under the chart's name).
      const dep = await c.admin.getJson<{ spec: { replicas: number; template: { spec: { containers: { args: string[] }[] } } } }>('/apis/apps/v1/namespaces/ehpa-system/deployments/ehpa-adapter');
      expect(dep.spec.replicas).to.equal(0);
      const passed = dep.spec.template.spec.containers[0]!.args.filter((a) => a.startsWith('--controllers=') || a.startsWith('--recommender-name='));
      expect(passed).to.deep.equal(['--controllers=ehpa,tsp,vpa-recommender', '--recommender-name=ehpa-adapter']);
      // serve authenticates as the chart's ServiceAccount (ehpa-system/ehpa-adapter): the chart's RBAC is
      // all it is allowed.
      serve = await startServe(c, 'serve-helm', passed);

      const ns = 'helm-chart';
      await createNamespace(c, ns);
      await createDeployment(c, ns, 'web', { replicas: 1, cpuRequest: '200m' });
      await waitReplicas(c, ns, 'web', 1);
      const window = cronWindowNow('burst', 5, 3);
      await post(c, ehpaPath(ns), ehpaObject(ns, 'web', 'web', { minReplicas: 1, maxReplicas: 5, crons: [window.cron] }));
      await waitFor('cron metric 3 through the aggregator', async () => {
        const r = await c.admin.get(`/apis/external.metrics.k8s.io/v1beta1/namespaces/${ns}/crane_autoscaling_cron?labelSelector=${cronSelector(ns, 'web')}`);
        return r.status === 200 && externalItems(r.json).length === 1 && quantityMilli(externalItems(r.json)[0]!.value) === 3000;
      }, { timeoutMs: 60_000 });
      await waitReplicas(c, ns, 'web', 3, 240_000);
      const hpa = await waitHpa(c, ns, 'ehpa-web', 'HPA at 3 replicas', (h) => h.status?.desiredReplicas === 3 && h.status.currentReplicas === 3);
      expect((hpa.status!.currentMetrics as { external?: { metric: { name: string } } }[])[0]?.external?.metric.name).to.equal('crane_autoscaling_cron');
      expect(Date.now(), 'scaled within the cron window').to.be.below(window.endMs);
    });

    it('beside another Service holding the APIServices: auto leaves them (and says what EHPAs lose), true takes over and says from whom; VPA CRDs of someone else are left alone', async () => {
      const c = env.cluster;
      // A second release sees APIServices and VPA CRDs that another release's Service and annotations own,
      // as it would see KEDA's or prometheus-adapter's. --take-ownership: without it the dry run stops at
      // the first object the installed release owns (the Crane CRDs).
      const dryRun = (...set: string[]) => helm('install', 'second-ehpa-adapter', CHART_DIR, '--namespace', 'ehpa-system', '--dry-run=server', '--take-ownership', '--set', 'replicas=0', ...set.flatMap((s) => ['--set', s]));
      const auto = dryRun();
      expect(auto).to.not.match(/kind: APIService/);
      expect(auto).to.match(/Metric APIs claimed: none\./);
      expect(auto).to.match(/v1beta1\.external\.metrics\.k8s\.io: left to ehpa-system\/ehpa-adapter \(apiServices\.externalV1beta1=auto\), which keeps answering its metrics\. EHPAs go without the cron/);
      expect(auto).to.not.match(/name: verticalpodautoscalers\.autoscaling\.k8s\.io/);
      expect(auto).to.not.match(/WARNING/);
      const taken = dryRun('apiServices.externalV1beta1=true');
      expect(taken.match(/kind: APIService/g) ?? []).to.have.length(1);
      expect(taken).to.match(/WARNING: v1beta1\.external\.metrics\.k8s\.io was served by ehpa-system\/ehpa-adapter; this release took it over \(apiServices\.externalV1beta1=true\)\. Its metrics now answer 404/);
      // Nothing changed on the cluster: the first release still holds the APIService and the CRD.
      const a = await c.admin.getJson<{ spec: { service: { name: string } } }>('/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.external.metrics.k8s.io');
      expect(a.spec.service.name).to.equal('ehpa-adapter');
      expect((await c.admin.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/verticalpodautoscalers.autoscaling.k8s.io')).status).to.equal(200);
    });
  });
});
