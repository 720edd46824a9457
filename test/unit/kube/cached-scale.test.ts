// The `/scale` of Deployments and StatefulSets answered from the informer cache (src/kube/cached-scale.ts):
// what is served from the cache, what still goes to the API, and the Scale built as the API server builds
// it (the e2e test/e2e/cached-scale.test.ts compares it with the real kube-apiserver's /scale).
import { expect } from 'chai';
import { CachedScaleAccess, scaleOfWorkload, type CachedWorkload, type WorkloadCache } from '../../../src/kube/cached-scale.ts';
import { cacheTransformFor, trimWorkload } from '../../../src/kube/cache-transforms.ts';
import type { ScaleAccess } from '../../../src/kube/scale-client.ts';
import type { Scale } from '../../../src/api/autoscaling.ts';

const web: CachedWorkload = {
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', resourceVersion: '42' },
  spec: { replicas: 3, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] } },
  status: { replicas: 2 },
};

function cache(objects: CachedWorkload[], synced = true): WorkloadCache {
  return {
    hasSynced: () => synced,
    get: (ns, name) => objects.find((o) => o.metadata.namespace === ns && o.metadata.name === name),
  };
}

/** The API side: records what reached it. */
function api(): ScaleAccess & { calls: string[] } {
  const calls: string[] = [];
  const scale = (replicas: number): Scale => ({ metadata: { name: 'from-api' }, spec: { replicas }, status: { replicas } });
  return {
    calls,
    get: async (ns, ref) => {
      calls.push(`get ${ns}/${ref.apiVersion}/${ref.kind}/${ref.name}`);
      return scale(7);
    },
    setReplicas: async (ns, ref, n) => {
      calls.push(`set ${ns}/${ref.kind}/${ref.name}=${n}`);
      return scale(n);
    },
  };
}

describe('kube: /scale of watched workloads from the informer cache', () => {
  it('builds the Scale the API server answers: replicas from spec and status, the selector in its string form', () => {
    expect(scaleOfWorkload(web)).to.deep.equal({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'shop', uid: 'u1', resourceVersion: '42' },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: 'app=web,tier in (a,b)' },
    });
    // An empty selector is omitted, as Go's omitempty does with "".
    const bare = scaleOfWorkload({ metadata: { name: 'x' }, spec: { replicas: 0 } });
    expect(bare.status).to.deep.equal({ replicas: 0 });
  });

  it('serves a Deployment or StatefulSet of the apps group (any version) from the cache, without the API', async () => {
    const a = api();
    const s = new CachedScaleAccess(a, new Map([['Deployment', cache([web])], ['StatefulSet', cache([{ ...web, metadata: { ...web.metadata, name: 'db' } }])]]));
    expect((await s.get('shop', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' })).spec.replicas).to.equal(3);
    expect((await s.get('shop', { apiVersion: 'apps/v1beta2', kind: 'Deployment', name: 'web' })).status.replicas).to.equal(2);
    expect((await s.get('shop', { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' })).metadata.name).to.equal('db');
    expect(a.calls).to.deep.equal([]);
    expect(s.served).to.deep.equal({ cache: 3, api: 0 });
  });

  it('asks the API for other kinds and groups, a cache not yet synced, an object the cache has not seen, and every write', async () => {
    const a = api();
    const s = new CachedScaleAccess(a, new Map([['Deployment', cache([web])], ['StatefulSet', cache([web], false)]]));
    const replicas = async (ns: string, apiVersion: string, kind: string, name: string) => (await s.get(ns, { apiVersion, kind, name })).spec.replicas;
    expect(await replicas('shop', 'apps/v1', 'ReplicaSet', 'web')).to.equal(7);
    expect(await replicas('shop', 'example.com/v1', 'Deployment', 'web')).to.equal(7);
    expect(await replicas('shop', 'apps/v1', 'StatefulSet', 'web')).to.equal(7);
    expect(await replicas('shop', 'apps/v1', 'Deployment', 'gone')).to.equal(7);
    expect(await replicas('other', 'apps/v1', 'Deployment', 'web')).to.equal(7);
    await s.setReplicas('shop', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, 5);
    expect(a.calls).to.deep.equal([
      'get shop/apps/v1/ReplicaSet/web',
      'get shop/example.com/v1/Deployment/web',
      'get shop/apps/v1/StatefulSet/web',
      'get shop/apps/v1/Deployment/gone',
      'get other/apps/v1/Deployment/web',
      'set shop/Deployment/web=5',
    ]);
    expect(s.served).to.deep.equal({ cache: 0, api: 5 });
  });

  it('the workload informers keep only identity, replicas and selector', () => {
    const whole = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop', uid: 'u1', resourceVersion: '42', generation: 4, labels: { a: 'b' }, annotations: { big: 'x'.repeat(10_000) }, managedFields: [{ manager: 'kubectl' }] },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'app', image: 'nginx' }] } }, strategy: { type: 'RollingUpdate' } },
      status: { replicas: 2, readyReplicas: 2, conditions: [{ type: 'Available', status: 'True' }] },
    };
    expect(cacheTransformFor({ apiVersion: 'apps/v1', plural: 'deployments' })).to.equal(trimWorkload);
    expect(cacheTransformFor({ apiVersion: 'apps/v1', plural: 'statefulsets' })).to.equal(trimWorkload);
    expect(cacheTransformFor({ apiVersion: 'apps/v1', plural: 'replicasets' })).to.not.equal(trimWorkload);
    expect(trimWorkload(structuredClone(whole))).to.deep.equal({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop', uid: 'u1', resourceVersion: '42', generation: 4 },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } } },
      status: { replicas: 2 },
    });
    // And the Scale read from the trimmed object is the one read from the whole object.
    expect(scaleOfWorkload(trimWorkload(structuredClone(whole)) as unknown as CachedWorkload)).to.deep.equal(scaleOfWorkload(whole as CachedWorkload));
  });
});
