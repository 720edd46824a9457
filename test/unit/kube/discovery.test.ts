// ResourceDiscovery and the path builders it feeds: a user-supplied apiVersion (an EHPA's or VPA's
// targetRef) is validated before it becomes a URL or a cache key, and the cache of discovery documents
// is bounded (LRU) with misses that expire.
import { expect } from 'chai';
import { ResourceDiscovery, UnknownKindError } from '../../../src/kube/discovery.ts';
import { InvalidApiPathError, KubeApiError, groupVersionPath, resourcePath, validateApiVersion } from '../../../src/kube/api-client.ts';

/** A discovery endpoint: serves a resource list for each group-version in `served`, 404 otherwise. */
function fakeServer(served: Record<string, { name: string; kind: string; namespaced: boolean }[]>) {
  const gets: string[] = [];
  return {
    gets,
    async get<T>(path: string): Promise<T> {
      gets.push(path);
      const group = /^\/apis\/([^/]+)$/.exec(path)?.[1];
      if (group !== undefined) {
        // An APIGroup document: the group-versions served, the first one preferred.
        const versions = Object.keys(served).filter((gv) => gv.startsWith(`${group}/`)).map((groupVersion) => ({ groupVersion }));
        if (versions.length === 0) throw new KubeApiError(404, 'NotFound', `GET ${path}: 404`);
        return { versions, preferredVersion: versions[0] } as T;
      }
      const gv = path.replace(/^\/apis?\//, '');
      const resources = served[gv];
      if (!resources) throw new KubeApiError(404, 'NotFound', `GET ${path}: 404`);
      return { resources } as T;
    },
  };
}

describe('apiVersion validation (path builders)', () => {
  it('accepts core, group and CRD-style versions', () => {
    for (const v of ['v1', 'apps/v1', 'autoscaling/v2', 'autoscaling.crane.io/v1alpha1', 'example.com/v2beta3', 'my-group.example.io/v1', 'example.com/custom-version']) {
      expect(() => validateApiVersion(v), v).not.to.throw();
    }
    expect(groupVersionPath('apps/v1')).to.equal('/apis/apps/v1');
    expect(groupVersionPath('v1')).to.equal('/api/v1');
  });

  it('refuses anything that could leave /apis/<group>/<version>: dot segments, extra slashes, escapes, empty parts, too long', () => {
    const bad = [
      '', '..', '.', 'apps/..', '../v1', 'apps/v1/../../api/v1/secrets', 'apps/v1/x', '/v1', 'apps/', 'apps//v1',
      '%2e%2e/v1', 'apps/v1?x=y', 'apps/v1#x', 'Apps/v1', 'apps/V1', 'apps/1', 'apps./v1', '.apps/v1', 'apps..io/v1', 'a b/v1',
      `${'a'.repeat(254)}/v1`, `apps/v${'1'.repeat(63)}`,
    ];
    for (const v of bad) {
      expect(() => validateApiVersion(v), JSON.stringify(v)).to.throw(InvalidApiPathError, /invalid apiVersion/);
      expect(() => groupVersionPath(v), JSON.stringify(v)).to.throw(InvalidApiPathError);
    }
    // The longest valid group (253) still passes: the bound is the DNS subdomain's, not tighter.
    const group253 = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(group253).to.have.length(253);
    expect(() => validateApiVersion(`${group253}/v1`)).not.to.throw();
  });

  it('refuses . and .. as object names (URL parsing would resolve them against the path)', () => {
    expect(() => resourcePath('apps/v1', 'deployments', 'ns', '..', 'scale')).to.throw(InvalidApiPathError);
    expect(() => resourcePath('apps/v1', 'deployments', 'ns', '.')).to.throw(InvalidApiPathError);
    expect(resourcePath('apps/v1', 'deployments', 'ns', '..a', 'scale')).to.equal('/apis/apps/v1/namespaces/ns/deployments/..a/scale');
  });
});

describe('ResourceDiscovery', () => {
  const apps = [
    { name: 'deployments', kind: 'Deployment', namespaced: true },
    { name: 'deployments/scale', kind: 'Scale', namespaced: true },
  ];

  it('resolves a kind, and a malformed apiVersion fails before any request with a clear error', async () => {
    const s = fakeServer({ 'apps/v1': apps });
    const d = new ResourceDiscovery(s);
    expect(await d.resolve('apps/v1', 'Deployment')).to.deep.equal({ apiVersion: 'apps/v1', plural: 'deployments', namespaced: true, scalable: true });
    await d.resolve('apps/../../api/v1', 'Secret').then(
      () => expect.fail('resolved'),
      (e: Error) => expect(e).to.be.instanceOf(InvalidApiPathError).and.have.property('message').that.matches(/invalid apiVersion "apps\/\.\.\/\.\.\/api\/v1"/),
    );
    expect(s.gets).to.deep.equal(['/apis/apps/v1']);
    expect(d.size).to.equal(1); // the bad string was never a cache key
  });

  it('keeps at most maxEntries group-versions, evicting the least recently used', async () => {
    const s = fakeServer({ 'apps/v1': apps });
    const d = new ResourceDiscovery(s, { maxEntries: 3 });
    await d.resolve('apps/v1', 'Deployment');
    for (let i = 0; i < 10; i++) {
      await d.resolve(`g${i}.example.com/v1`, 'Widget').catch((e: Error) => expect(e).to.be.instanceOf(UnknownKindError));
      // apps/v1 is used between the misses, so it stays while the older misses go.
      await d.resolve('apps/v1', 'Deployment');
      expect(d.size).to.be.at.most(3);
    }
    expect(s.gets.filter((p) => p === '/apis/apps/v1')).to.have.length(1);
    // The oldest miss was evicted: asking again goes to the server even though its TTL has not run out.
    const before = s.gets.length;
    await d.resolve('g0.example.com/v1', 'Widget').catch(() => undefined);
    // (and, the group not serving it either, its APIGroup document, evicted the same way).
    expect(s.gets.slice(before)).to.deep.equal(['/apis/g0.example.com/v1', '/apis/g0.example.com']);
    // The newest miss is still cached.
    await d.resolve('g9.example.com/v1', 'Widget').catch(() => undefined);
    expect(s.gets.slice(before + 2)).to.deep.equal([]);
  });

  it('a miss is believed for missTtlMs, then asked again (a CRD installed later is found)', async () => {
    let now = 0;
    const served: Record<string, typeof apps> = {};
    const s = fakeServer(served);
    const d = new ResourceDiscovery(s, { now: () => now, missTtlMs: 30_000 });
    const widgets = [
      { name: 'widgets', kind: 'Widget', namespaced: true },
      { name: 'widgets/scale', kind: 'Scale', namespaced: true },
    ];
    await d.resolve('example.com/v1', 'Widget').then(() => expect.fail('resolved'), (e: Error) => expect(e).to.be.instanceOf(UnknownKindError));
    served['example.com/v1'] = widgets;
    now = 29_999;
    await d.resolve('example.com/v1', 'Widget').then(() => expect.fail('resolved'), (e: Error) => expect(e).to.be.instanceOf(UnknownKindError));
    expect(s.gets).to.deep.equal(['/apis/example.com/v1', '/apis/example.com']);
    now = 30_000;
    expect((await d.resolve('example.com/v1', 'Widget')).plural).to.equal('widgets');
    expect(s.gets).to.have.length(3);
    expect(d.size).to.equal(1);
  });

  it('resolves a kind through any served version of its group, preferred first, like a RESTMapper', async () => {
    const s = fakeServer({ 'apps/v1': apps, 'example.com/v1': [], 'example.com/v1beta1': [{ name: 'widgets', kind: 'Widget', namespaced: true }] });
    const d = new ResourceDiscovery(s);
    // apps/v1beta1 is gone from current clusters: an old scaleTargetRef resolves to the served apps/v1.
    expect(await d.resolve('apps/v1beta1', 'Deployment')).to.deep.equal({ apiVersion: 'apps/v1', plural: 'deployments', namespaced: true, scalable: true });
    expect(s.gets).to.deep.equal(['/apis/apps/v1beta1', '/apis/apps', '/apis/apps/v1']);
    // The preferred version (v1) does not have the kind; the next served version does.
    expect((await d.resolve('example.com/v1alpha1', 'Widget')).apiVersion).to.equal('example.com/v1beta1');
    // A served version that has the kind wins over the group's preferred one: no group lookup at all.
    const before = s.gets.length;
    expect((await d.resolve('apps/v1', 'Deployment')).apiVersion).to.equal('apps/v1');
    expect(s.gets.length).to.equal(before);
    // A kind no version serves names the group; the core group has one version and no group document.
    await d.resolve('apps/v1beta2', 'Gadget').then(() => expect.fail('resolved'), (e: Error) => expect(e.message).to.equal('the server does not serve kind Gadget in apps/v1beta2 or in any other version of group apps'));
    const core = s.gets.length;
    await d.resolve('v1', 'Gadget').then(() => expect.fail('resolved'), (e: Error) => expect(e.message).to.equal('the server does not serve kind Gadget in v1'));
    expect(s.gets.slice(core)).to.deep.equal(['/api/v1']);
  });
});
