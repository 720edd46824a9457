// End-to-end scenario, Security: `ehpa-adapter serve` behind the real aggregator. Straight to the adapter,
// only kube-apiserver's front-proxy client certificate makes X-Remote-* identity headers count; through
// the aggregator a user without RBAC is refused; the HPA's identities are allowed — here kube-controller-
// manager runs with --use-service-account-credentials (kubeadm's setting), so the real HPA calls as
// system:serviceaccount:kube-system:horizontal-pod-autoscaler and must still scale on our metrics. kwok
// plays the nodes (kube-scheduler binds the pods, kwok runs them).
import { expect } from 'chai';
import { createDeployment, createNamespace, directAdapterClient, waitHpa, waitReplicas, type AdapterProcess } from './harness/index.ts';
import { useCluster } from './helpers.ts';
import { cronSelector, cronWindowNow, ehpaObject, ehpaPath, externalItems, installForServe, post, startServe } from './scenario-helpers.ts';

const NS = 'secure';
const HPA_SA = 'system:serviceaccount:kube-system:horizontal-pod-autoscaler';
const HPA_SA_GROUPS = ['system:serviceaccounts', 'system:serviceaccounts:kube-system'];

describe('e2e scenario 6: security of the metrics APIs', function () {
  this.timeout(600_000);
  const env = useCluster({ useServiceAccountCredentials: true });
  let serve: AdapterProcess;
  const cronPath = `/apis/external.metrics.k8s.io/v1beta1/namespaces/${NS}/crane_autoscaling_cron?labelSelector=${cronSelector(NS, 'web')}`;
  const customPath = `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${NS}/pods/*/crane_pod_cpu_usage?labelSelector=app%3Dweb`;

  before(async function () {
    this.timeout(300_000);
    const c = env.cluster;
    await installForServe(c);
    await createNamespace(c, NS);
    await createDeployment(c, NS, 'web', { replicas: 1 });
    serve = await startServe(c, 'serve-security');
    // A cron window for the whole suite, so the cron metric has a value (2).
    await post(c, ehpaPath(NS), ehpaObject(NS, 'web', 'web', { minReplicas: 1, maxReplicas: 4, crons: [cronWindowNow('all-suite', 30, 2).cron] }));
  });

  after(async () => {
    await serve?.stop();
  });

  it('straight to the adapter: identity headers count only with the front-proxy certificate', async () => {
    const c = env.cluster;
    const asController = { 'X-Remote-User': 'system:kube-controller-manager', 'X-Remote-Group': 'system:authenticated' };
    // Positive control: kube-apiserver's front-proxy certificate with an allowed identity gets the value.
    const ok = await (await directAdapterClient(c, 'front-proxy')).request('GET', cronPath, { headers: asController });
    expect(ok.status, ok.body).to.equal(200);
    expect(externalItems(ok.json).map((i) => i.value)).to.deep.equal(['2']);
    // The same claim with a look-alike certificate (CN front-proxy-client) from a CA nobody trusts: 401.
    const rogue = await (await directAdapterClient(c, 'untrusted')).request('GET', cronPath, { headers: asController });
    expect(rogue.status, rogue.body).to.equal(401);
    // A cluster-CA client certificate (CN front-proxy-client) is a plain x509 user — the adapter trusts the
    // cluster's client CA from extension-apiserver-authentication, as kube's generic API servers do — but
    // not a front proxy: the headers are ignored, the caller is the certificate's CN, which RBAC denies.
    const clusterCa = await (await directAdapterClient(c, 'cluster-ca')).request('GET', cronPath, { headers: asController });
    expect(clusterCa.status, clusterCa.body).to.equal(403);
    expect((clusterCa.json as { message: string }).message).to.contain('User "front-proxy-client" cannot list');
    // No certificate: the headers are ignored, the caller is system:anonymous, which RBAC denies.
    const none = await (await directAdapterClient(c, 'none')).request('GET', cronPath, { headers: asController });
    expect(none.status, none.body).to.equal(403);
    expect(none.body).to.contain('system:anonymous');
    expect(none.body).to.not.contain('"2"');
    // A real front proxy vouching for a user without RBAC: the adapter's SubjectAccessReview says no.
    const nobody = await (await directAdapterClient(c, 'front-proxy')).request('GET', cronPath, { headers: { 'X-Remote-User': 'nobody', 'X-Remote-Group': 'system:authenticated' } });
    expect(nobody.status, nobody.body).to.equal(403);
    expect(nobody.body).to.contain('nobody');
  });

  it('through the aggregator: a user without RBAC gets 403, both HPA identities get the metric', async () => {
    const c = env.cluster;
    const nobody = await c.identity('nobody');
    for (const p of [cronPath, customPath, '/apis/custom.metrics.k8s.io/v1beta1/namespaces/secure/pods/*/crane_pod_cpu_usage']) {
      const r = await nobody.rest.get(p);
      expect(r.status, `${p}: ${r.body}`).to.equal(403);
    }
    // The identities the manifests' RBAC (rbac-hpa-metrics.yaml) grants: the HPA controller's service
    // account (kubeadm) and kube-controller-manager's own user (--use-service-account-credentials=false).
    for (const id of [await c.identity(HPA_SA, HPA_SA_GROUPS), await c.identity('system:kube-controller-manager')]) {
      const r = await id.rest.get(cronPath);
      expect(r.status, r.body).to.equal(200);
      expect(externalItems(r.json).map((i) => i.value)).to.deep.equal(['2']);
      // Allowed on the custom API too: this EHPA has no prediction, so 400 (needs the uid selector), never 403.
      const custom = await id.rest.get(customPath);
      expect(custom.status, custom.body).to.equal(400);
    }
  });

  it('the real HPA, calling as its service account, reads the cron metric and scales the Deployment', async () => {
    const c = env.cluster;
    await waitReplicas(c, NS, 'web', 2, 180_000);
    const h = await waitHpa(c, NS, 'ehpa-web', 'scaling active on the cron metric', (x) => x.status?.desiredReplicas === 2 && (x.status.currentMetrics?.length ?? 0) === 1);
    expect(h.status!.conditions!.find((k) => k.type === 'ScalingActive')).to.include({ status: 'True', reason: 'ValidMetricFound' });
    // The HPA really called as the service account: kube-controller-manager minted its token.
    expect((await c.admin.get('/api/v1/namespaces/kube-system/serviceaccounts/horizontal-pod-autoscaler')).status).to.equal(200);
    expect(serve.running).to.equal(true);
  });
});
