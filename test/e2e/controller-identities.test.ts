// kube-controller-manager as kubeadm runs it (--use-service-account-credentials): each controller uses its
// own service-account token, so the HPA acts as system:serviceaccount:kube-system:horizontal-pod-autoscaler.
// kwok plays the nodes (the node-lifecycle controller then also runs under its own service account).
import { expect } from 'chai';
import { createDeployment, createNamespace, waitHpa, waitReplicas } from './harness/index.ts';
import { useCluster } from './helpers.ts';

const NS = 'identities';

describe('e2e: controllers with their own service-account credentials', function () {
  this.timeout(240_000);
  const env = useCluster({ useServiceAccountCredentials: true, prometheus: false });

  it('mints per-controller service accounts and the HPA scales a Deployment to minReplicas', async () => {
    const c = env.cluster;
    await createNamespace(c, NS);
    await createDeployment(c, NS, 'web', { replicas: 1 });
    await waitReplicas(c, NS, 'web', 1);
    const hpa = {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: NS },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 3,
        metrics: [{ type: 'External', external: { metric: { name: 'crane_autoscaling_cron' }, target: { type: 'AverageValue', averageValue: '1' } } }],
      },
    };
    expect((await c.admin.request('POST', `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`, { body: hpa })).status).to.equal(201);
    await waitReplicas(c, NS, 'web', 2);
    // kube-controller-manager created the HPA controller's own ServiceAccount to get a token for it.
    expect((await c.admin.get('/api/v1/namespaces/kube-system/serviceaccounts/horizontal-pod-autoscaler')).status).to.equal(200);
    const h = await waitHpa(c, NS, 'web', 'metric read attempted', (x) => x.status?.conditions?.some((k) => k.type === 'ScalingActive' && k.status === 'False') ?? false, 60_000);
    expect(h.status!.conditions!.find((k) => k.type === 'ScalingActive')!.reason).to.equal('FailedGetExternalMetric');
  });
});
