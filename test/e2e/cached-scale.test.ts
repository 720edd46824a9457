// End-to-end: the `/scale` of Deployments and StatefulSets answered from the informer cache
// (src/kube/cached-scale.ts) equals what the real kube-apiserver answers on the `/scale` subresource:
// replicas from spec and status, the selector's string form (sorted requirements and values), identity
// and resourceVersion; and it follows a scale change through the watch, without one GET of its own.
import { expect } from 'chai';
import pino from 'pino';
import { KubeApiClient } from '../../src/kube/api-client.ts';
import { InformerRegistry } from '../../src/kube/informers.ts';
import { ResourceDiscovery } from '../../src/kube/discovery.ts';
import { workloadScaleAccess } from '../../src/ehpa/workload-scale.ts';
import type { Scale } from '../../src/api/autoscaling.ts';
import { createNamespace, waitFor } from './harness/index.ts';
import { useCluster } from './helpers.ts';

const NS = 'cached-scale';

/** The fields our cached Scale carries, from either answer. */
function comparable(s: Scale) {
  const { name, namespace, uid, resourceVersion } = s.metadata;
  return { apiVersion: s.apiVersion, kind: s.kind, metadata: { name, namespace, uid, resourceVersion }, spec: s.spec, status: s.status };
}

describe('e2e: /scale from the workload informer cache equals the API server\'s /scale', function () {
  this.timeout(300_000);
  const env = useCluster({ kubelet: false, prometheus: false });

  it('a Deployment with set-based selectors and a StatefulSet, before and after a scale change', async () => {
    const c = env.cluster;
    await createNamespace(c, NS);
    const template = (labels: Record<string, string>) => ({ metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1' }] } });
    const deploy = await c.admin.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          // Keys out of order and set values unsorted: the string form must sort both as Go does.
          selector: { matchLabels: { zone: 'z1', app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }, { key: 'canary', operator: 'DoesNotExist' }, { key: 'track', operator: 'NotIn', values: ['old'] }] },
          template: template({ zone: 'z1', app: 'web', tier: 'front', track: 'new' }),
        },
      },
    });
    expect(deploy.status, deploy.body).to.equal(201);
    const sts = await c.admin.request('POST', `/apis/apps/v1/namespaces/${NS}/statefulsets`, {
      body: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' }, spec: { replicas: 1, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template({ app: 'db' }) } },
    });
    expect(sts.status, sts.body).to.equal(201);

    const client = new KubeApiClient(c.kc, 'cached-scale-e2e');
    const informers = new InformerRegistry(client, pino({ level: 'silent' }));
    const scale = workloadScaleAccess({ client, informers, discovery: new ResourceDiscovery(client) });
    informers.startAll();
    try {
      const refs = [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' },
      ];
      const live = async (kind: string, name: string) => comparable(await c.admin.getJson<Scale>(`/apis/apps/v1/namespaces/${NS}/${kind === 'Deployment' ? 'deployments' : 'statefulsets'}/${name}/scale`));
      // Until both agree (the deployment controller moves status.replicas; the watch follows it).
      const agree = async (what: string) => {
        let last = '';
        await waitFor(what, async () => {
          for (const ref of refs) {
            const [cached, real] = [comparable(await scale.get(NS, ref)), await live(ref.kind, ref.name)];
            last = `${ref.kind}: cached ${JSON.stringify(cached)}, API ${JSON.stringify(real)}`;
            if (JSON.stringify(cached) !== JSON.stringify(real)) return false;
          }
          return true;
        }, { timeoutMs: 60_000 }).catch((e: Error) => {
          throw new Error(`${e.message}; last: ${last}`);
        });
      };
      await agree('cached and live /scale agree');
      const web = await live('Deployment', 'web');
      expect(web.status.selector).to.equal('app=web,!canary,tier in (back,front),track notin (old),zone=z1');
      expect(web.spec.replicas).to.equal(2);

      const viaApiBefore = scale.served.api;
      const patched = await c.admin.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/web/scale`, { body: { spec: { replicas: 5 } }, contentType: 'application/merge-patch+json' });
      expect(patched.status, patched.body).to.equal(200);
      await agree('cached and live /scale agree after the scale change');
      expect((await scale.get(NS, refs[0]!)).spec.replicas).to.equal(5);
      // Once the caches synced, every read came from them.
      expect(scale.served.api).to.equal(viaApiBefore);
      expect(scale.served.cache).to.be.above(0);
    } finally {
      await informers.stopAll();
    }
  });
});
