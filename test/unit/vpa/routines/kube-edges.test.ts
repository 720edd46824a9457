// The recommender's Kubernetes edges against stub API clients: how a targetRef becomes a selector (and
// when it is refused), and how statuses and checkpoints are written.
import { expect } from 'chai';
import { KubeApiError, type KubeApiClient } from '../../../../src/kube/api-client.ts';
import type { ResourceDiscovery } from '../../../../src/kube/discovery.ts';
import type { SharedInformer } from '../../../../src/kube/informers.ts';
import { KubeRecommenderIO } from '../../../../src/vpa/routines/kube-recommender-io.ts';
import { TargetSelectors } from '../../../../src/vpa/input/target-selectors.ts';
import type { UsageSource } from '../../../../src/vpa/input/usage-sources.ts';
import { vpaObj } from './fixtures.ts';

interface Call {
  method: string;
  path: string;
  body?: unknown;
  patchType?: string;
}

function stubClient(objects: Record<string, unknown>, calls: Call[], failPatch404 = false): KubeApiClient {
  return {
    get: async (path: string) => {
      calls.push({ method: 'GET', path });
      if (!(path in objects)) throw new KubeApiError(404, 'NotFound', `${path} not found`);
      return objects[path];
    },
    patch: async (path: string, body: unknown, patchType: string) => {
      calls.push({ method: 'PATCH', path, body, patchType });
      if (failPatch404) throw new KubeApiError(404, 'NotFound', 'not found');
      return {};
    },
    create: async (path: string, body: unknown) => {
      calls.push({ method: 'POST', path, body });
      return body;
    },
    delete: async (path: string) => {
      calls.push({ method: 'DELETE', path });
      throw new KubeApiError(404, 'NotFound', 'gone already');
    },
  } as unknown as KubeApiClient;
}

const discovery = {
  resolve: async (apiVersion: string | undefined, kind: string) => {
    if (kind === 'Deployment' || kind === 'ReplicaSet') return { apiVersion: apiVersion ?? 'apps/v1', plural: `${kind.toLowerCase()}s`, namespaced: true, scalable: true };
    if (kind === 'Rollout') return { apiVersion: 'argoproj.io/v1alpha1', plural: 'rollouts', namespaced: true, scalable: true };
    throw new Error(`the server does not serve kind ${kind}`);
  },
} as unknown as ResourceDiscovery;

describe('vpa routines: Kubernetes edges', () => {
  it('a Deployment gives its spec.selector; a custom kind its /scale selector; results are cached', async () => {
    const calls: Call[] = [];
    const objects = {
      '/apis/apps/v1/namespaces/ns/deployments/web': { metadata: {}, spec: { selector: { matchLabels: { app: 'web' } } } },
      '/apis/argoproj.io/v1alpha1/namespaces/ns/rollouts/web': { metadata: {}, spec: {} },
      '/apis/argoproj.io/v1alpha1/namespaces/ns/rollouts/web/scale': { status: { selector: 'app=web,track in (stable)' } },
    };
    let now = 0;
    const sel = new TargetSelectors(stubClient(objects, calls), discovery, () => now, 1000);
    const d = await sel.get(vpaObj('web', 'web'));
    expect([d.selectorKey, d.unsupported, d.selector!({ app: 'web' }), d.selector!({ app: 'api' })]).to.deep.equal(['app=web', undefined, true, false]);
    const r = await sel.get({ ...vpaObj('r', 'web'), spec: { targetRef: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'web' } } });
    expect(r.selectorKey).to.equal('app=web,track in (stable)');
    expect(r.equalityLabels).to.deep.equal({ app: 'web', track: 'stable' });
    const before = calls.length;
    await sel.get(vpaObj('web2', 'web'));
    expect(calls.length).to.equal(before);
    now = 1000;
    await sel.get(vpaObj('web2', 'web'));
    expect(calls.length).to.equal(before + 1);
  });

  it('a target with a controlling owner, an unknown kind or no targetRef is ConfigUnsupported, with upstream\'s wording', async () => {
    const objects = { '/apis/apps/v1/namespaces/ns/replicasets/web-abc': { metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', controller: true }] }, spec: { selector: { matchLabels: { app: 'web' } } } } };
    const sel = new TargetSelectors(stubClient(objects, []), discovery);
    const owned = await sel.get({ ...vpaObj('x', 'web'), spec: { targetRef: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc' } } });
    expect(owned.selector).to.equal(undefined);
    expect(owned.unsupported).to.equal('The target apps/v1.ReplicaSet/web-abc has a parent controller but it should point to a topmost well-known or scalable controller');
    const unknown = await sel.get({ ...vpaObj('y', 'web'), spec: { targetRef: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' } } });
    expect(unknown.unsupported).to.equal('Cannot read targetRef. Reason: the server does not serve kind Widget');
    expect((await sel.get({ ...vpaObj('z', 'web'), spec: {} })).unsupported).to.equal('Cannot read targetRef');
  });

  it('writes the status as upstream (JSON Patch add /status), a checkpoint by patch or create when missing, and tolerates deleting a gone checkpoint', async () => {
    const calls: Call[] = [];
    const none = { list: () => [] } as unknown as SharedInformer<never>;
    const mk = (fail: boolean) =>
      new KubeRecommenderIO({
        client: stubClient({}, calls, fail),
        vpas: none,
        pods: none,
        selectors: new TargetSelectors(stubClient({}, []), discovery),
        usage: { name: 'none', current: async () => [] } as UsageSource,
        ooms: { take: () => [] },
        events: { event: () => undefined },
      });
    const io = mk(false);
    await io.writeStatus(vpaObj('web', 'web'), { conditions: [] });
    expect(calls[0]).to.deep.equal({ method: 'PATCH', path: '/apis/autoscaling.k8s.io/v1/namespaces/ns/verticalpodautoscalers/web/status', body: [{ op: 'add', path: '/status', value: { conditions: [] } }], patchType: 'json' });
    const cp = { metadata: { name: 'web-app', namespace: 'ns' }, spec: { vpaObjectName: 'web', containerName: 'app' }, status: { lastUpdateTime: null, firstSampleStart: null, lastSampleStart: null, version: 'v3' } };
    calls.length = 0;
    await mk(true).writeCheckpoint(cp);
    expect(calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal([
      'PATCH /apis/autoscaling.k8s.io/v1/namespaces/ns/verticalpodautoscalercheckpoints/web-app',
      'POST /apis/autoscaling.k8s.io/v1/namespaces/ns/verticalpodautoscalercheckpoints',
    ]);
    expect(calls[1]!.body).to.equal(cp);
    await io.deleteCheckpoint('ns', 'web-app');
  });
});
