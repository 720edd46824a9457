// The /scale client acts only on namespaced kinds, in the namespace it is given: a cluster-scoped kind
// with a scale subresource is refused before any request reaches it (a namespace's EHPA must not scale
// cluster-wide objects with the controller's rights).
import { expect } from 'chai';
import { ScaleClient } from '../../../src/kube/scale-client.ts';
import { ResourceDiscovery, UnknownKindError } from '../../../src/kube/discovery.ts';
import { KubeApiError } from '../../../src/kube/api-client.ts';

const DISCOVERY: Record<string, unknown> = {
  '/apis/apps/v1': { resources: [{ name: 'deployments', kind: 'Deployment', namespaced: true }, { name: 'deployments/scale', kind: 'Scale', namespaced: true }] },
  '/apis/example.com/v1': { resources: [{ name: 'fleets', kind: 'Fleet', namespaced: false }, { name: 'fleets/scale', kind: 'Scale', namespaced: false }] },
};

function fakeClient() {
  const asked: string[] = [];
  const client = {
    async get<T>(path: string): Promise<T> {
      asked.push(`GET ${path}`);
      if (path in DISCOVERY) return DISCOVERY[path] as T;
      if (path === '/apis/apps/v1/namespaces/team/deployments/web/scale') return { metadata: { name: 'web' }, spec: { replicas: 3 }, status: { replicas: 3 } } as T;
      throw new KubeApiError(404, 'NotFound', path);
    },
    async patch<T>(path: string): Promise<T> {
      asked.push(`PATCH ${path}`);
      return { metadata: { name: 'x' }, spec: { replicas: 1 }, status: { replicas: 1 } } as T;
    },
  };
  return { client, asked };
}

describe('ScaleClient', () => {
  it('reads /scale of a namespaced kind in the given namespace', async () => {
    const { client } = fakeClient();
    const scale = new ScaleClient(client, new ResourceDiscovery(client));
    expect((await scale.get('team', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' })).status.replicas).to.equal(3);
  });
  it('refuses a cluster-scoped kind with a scale subresource, for reads and writes, without touching it', async () => {
    const { client, asked } = fakeClient();
    const scale = new ScaleClient(client, new ResourceDiscovery(client));
    const ref = { apiVersion: 'example.com/v1', kind: 'Fleet', name: 'everything' };
    for (const call of [() => scale.get('team', ref), () => scale.setReplicas('team', ref, 100)]) {
      await call().then(
        () => expect.fail('should refuse'),
        (e: Error) => expect(e).to.be.instanceOf(UnknownKindError).and.have.property('message').that.matches(/cluster-scoped/),
      );
    }
    expect(asked.filter((a) => a.includes('fleets/'))).to.deep.equal([]);
  });
});
