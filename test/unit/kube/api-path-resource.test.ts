import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { apiPathResource, KubeApiClient } from '../../../src/kube/api-client.ts';
import { registerControllerMetrics } from '../../../src/kube/controller-metrics.ts';

describe('kube: requests counted by resource (ehpa_adapter_kube_api_requests_total)', () => {
  // Expected labels follow kube-apiserver's apiserver_request_total: resource without group for the core
  // group, `<plural>.<group>` as our metric's single label, the subresource apart.
  const cases: [string, string, string][] = [
    ['/api/v1/namespaces/a/pods', 'pods', ''],
    ['/api/v1/namespaces/a/pods/b/status', 'pods', 'status'],
    ['/api/v1/pods', 'pods', ''],
    ['/api/v1/namespaces', 'namespaces', ''],
    ['/api/v1/namespaces/a', 'namespaces', ''],
    ['/api/v1/namespaces/a/status', 'namespaces', 'status'],
    ['/api/v1/namespaces/a/finalize', 'namespaces', 'finalize'],
    ['/api/v1/namespaces/a/configmaps/status', 'configmaps', ''],
    ['/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers/h', 'horizontalpodautoscalers.autoscaling', ''],
    ['/apis/apps/v1/namespaces/a/deployments/d/scale', 'deployments.apps', 'scale'],
    ['/apis/autoscaling.crane.io/v1alpha1/namespaces/a/effectivehorizontalpodautoscalers/e/status', 'effectivehorizontalpodautoscalers.autoscaling.crane.io', 'status'],
    ['/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l?timeout=5s', 'leases.coordination.k8s.io', ''],
    ['/apis/apiregistration.k8s.io/v1/apiservices', 'apiservices.apiregistration.k8s.io', ''],
    ['/apis', 'other', ''],
    ['/apis/apps/v1', 'other', ''],
    ['/api/v1', 'other', ''],
    ['/version', 'other', ''],
  ];
  for (const [path, resource, subresource] of cases) {
    it(`${path} -> ${resource}${subresource ? `/${subresource}` : ''}`, () => {
      expect(apiPathResource(path)).to.deep.equal({ resource, subresource });
    });
  }

  it('the client counts each request under its method, resource and subresource, and the metric exports them', async () => {
    const server = http.createServer((_req, res) => res.setHeader('Content-Type', 'application/json').end('{}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const kc = new KubeConfig();
      const port = (server.address() as AddressInfo).port;
      kc.loadFromOptions({
        clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
        users: [{ name: 'u' }],
        contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
        currentContext: 'x',
      });
      const client = new KubeApiClient(kc);
      await client.patch('/apis/prediction.crane.io/v1alpha1/namespaces/a/timeseriespredictions/t/status', {});
      await client.patch('/apis/prediction.crane.io/v1alpha1/namespaces/b/timeseriespredictions/u/status', {});
      await client.get('/api/v1/pods', { limit: 500 });
      await client.create('/api/v1/namespaces/a/events', {});
      const registry = new Registry();
      registerControllerMetrics(registry, client);
      const text = await registry.metrics();
      const lines = text.split('\n').filter((l) => l.startsWith('ehpa_adapter_kube_api_requests_total{'));
      expect(lines).to.have.members([
        'ehpa_adapter_kube_api_requests_total{method="PATCH",resource="timeseriespredictions.prediction.crane.io",subresource="status"} 2',
        'ehpa_adapter_kube_api_requests_total{method="GET",resource="pods",subresource=""} 1',
        'ehpa_adapter_kube_api_requests_total{method="POST",resource="events",subresource=""} 1',
      ]);
      // The per-method totals the benches read are unchanged.
      expect(Object.fromEntries(client.requestCounts)).to.deep.equal({ PATCH: 2, GET: 1, POST: 1 });
    } finally {
      server.close();
    }
  });
});
