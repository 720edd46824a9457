// OwnedApplier: create-or-update of the HPAs and TSPs an EHPA owns, with an owner check and no update loop on
// server-side defaulting. What it remembers of each object is a digest of the last desired object, not the
// object: at 10,000 EHPAs the remembered JSON was 37 MiB of serve's heap (a sampling heap profile of the scale bench).
import { expect } from 'chai';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CREATED_EXPECTATION_MS, NotOwnedError, OwnedApplier, type OwnedObject } from '../../../src/kube/apply-owned.ts';

interface Obj extends OwnedObject {
  spec: Record<string, unknown>;
}

const OWNER = 'uid-ehpa';
const PATH = '/apis/autoscaling/v2/namespaces/team/horizontalpodautoscalers';

/** A writer that stores like a server: `defaults` are added to every spec it stores. */
function fakeServer(defaults: Record<string, unknown> = {}) {
  const writes: { verb: 'create' | 'replace' | 'patch'; path: string; body: Obj }[] = [];
  const store = <T>(body: unknown): T => {
    const o = body as Obj;
    return { ...o, spec: { ...o.spec, ...defaults } } as unknown as T;
  };
  return {
    writes,
    writer: {
      create: async <T>(path: string, body: unknown): Promise<T> => {
        writes.push({ verb: 'create', path, body: body as Obj });
        return store<T>(body);
      },
      replace: async <T>(path: string, body: unknown): Promise<T> => {
        writes.push({ verb: 'replace', path, body: body as Obj });
        return store<T>(body);
      },
      patch: async <T>(path: string, body: unknown): Promise<T> => {
        writes.push({ verb: 'patch', path, body: body as Obj });
        return store<T>(body);
      },
    },
  };
}

const hpa = (spec: Record<string, unknown>, extra: Partial<Obj['metadata']> = {}): Obj => ({
  metadata: { name: 'ehpa-web', namespace: 'team', ownerReferences: [{ apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler', name: 'web', uid: OWNER, controller: true }], ...extra },
  spec,
});

describe('OwnedApplier', () => {
  it('creates a missing object, then leaves it alone while the desired object is unchanged', async () => {
    const server = fakeServer();
    const applier = new OwnedApplier(server.writer);
    const first = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: undefined, ownerUid: OWNER });
    expect(first.action).to.equal('created');
    const again = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: first.object, ownerUid: OWNER });
    expect(again.action).to.equal('unchanged');
    expect(server.writes.map((w) => w.verb)).to.deep.equal(['create']);
    expect(applier.remembered).to.equal(1);
  });

  it('an object it created stands in for the cache for a minute: no second create while the informer lags, then the cache is trusted again', async () => {
    const server = fakeServer();
    const clock = { now: 0 };
    const applier = new OwnedApplier(server.writer, () => clock.now);
    await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: undefined, ownerUid: OWNER });
    clock.now = 1_000;
    const lagging = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: undefined, ownerUid: OWNER });
    expect(lagging.action).to.equal('unchanged');
    expect(lagging.object.spec).to.deep.equal({ maxReplicas: 5 });
    // A different desired object is not covered by the expectation.
    const changed = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 6 }), existing: undefined, ownerUid: OWNER });
    expect(changed.action).to.equal('created');
    // Past the expectation, a cache still without the object means it is gone: create it again.
    clock.now = 1_000 + CREATED_EXPECTATION_MS;
    const again = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 6 }), existing: undefined, ownerUid: OWNER });
    expect(again.action).to.equal('created');
    expect(server.writes.map((w) => w.verb)).to.deep.equal(['create', 'create', 'create']);
  });

  it('patchSpec: a changed spec is merge-patched alone (a kind the controller may patch, not update)', async () => {
    const server = fakeServer();
    const applier = new OwnedApplier(server.writer);
    const first = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: undefined, ownerUid: OWNER, patchSpec: true });
    const next = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 6 }), existing: first.object, ownerUid: OWNER, patchSpec: true });
    expect(next.action).to.equal('updated');
    expect(server.writes.slice(1)).to.deep.equal([{ verb: 'patch', path: `${PATH}/ehpa-web`, body: { spec: { maxReplicas: 6 } } }]);
    const foreign = hpa({ maxReplicas: 5 }, { ownerReferences: [] });
    let refused: unknown;
    await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 6 }), existing: foreign, ownerUid: OWNER, patchSpec: true }).catch((e: unknown) => (refused = e));
    expect(refused).to.be.instanceOf(NotOwnedError);
  });

  it('does not rewrite what the server defaulted after our own write (no update loop)', async () => {
    const server = fakeServer({ behavior: { scaleUp: { stabilizationWindowSeconds: 0 } } });
    const applier = new OwnedApplier(server.writer);
    const created = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: undefined, ownerUid: OWNER });
    // The stored spec differs from the desired one by the default only: not drift.
    const next = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: created.object, ownerUid: OWNER });
    expect(next.action).to.equal('unchanged');
    expect(server.writes).to.have.length(1);
  });

  it('writes when the desired object changes, although the stored spec is the one our last write left', async () => {
    const server = fakeServer({ behavior: { scaleUp: { stabilizationWindowSeconds: 0 } } });
    const applier = new OwnedApplier(server.writer);
    const created = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: undefined, ownerUid: OWNER });
    const changed = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 6 }), existing: created.object, ownerUid: OWNER });
    expect(changed.action).to.equal('updated');
    expect(server.writes[1]?.body.spec.maxReplicas).to.equal(6);
    // A change outside the spec counts too: the digest is of the whole desired object.
    const relabelled = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 6 }, { labels: { tier: 'web' } }), existing: changed.object, ownerUid: OWNER, syncLabelsAndAnnotations: true });
    expect(relabelled.action).to.equal('updated');
    expect(server.writes[2]?.body.metadata.labels).to.deep.equal({ tier: 'web' });
  });

  it('rewrites a spec someone else changed after our write', async () => {
    const server = fakeServer({ behavior: { scaleUp: { stabilizationWindowSeconds: 0 } } });
    const applier = new OwnedApplier(server.writer);
    const created = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: undefined, ownerUid: OWNER });
    const edited = { ...created.object, spec: { ...created.object.spec, maxReplicas: 50 } };
    const r = await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: edited, ownerUid: OWNER });
    expect(r.action).to.equal('updated');
    expect(server.writes[1]?.body.spec.maxReplicas).to.equal(5);
  });

  it('refuses an object another controller owns, and forgets on request', async () => {
    const server = fakeServer();
    const applier = new OwnedApplier(server.writer);
    const foreign = hpa({ maxReplicas: 5 }, { ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'someone-else', controller: true }] });
    let error: unknown;
    await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: foreign, ownerUid: OWNER }).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(NotOwnedError);
    expect(server.writes).to.have.length(0);
    await applier.apply({ path: PATH, desired: hpa({ maxReplicas: 5 }), existing: undefined, ownerUid: OWNER });
    applier.forget(PATH, 'ehpa-web');
    expect(applier.remembered).to.equal(0);
  });

  it('remembers a digest, not the desired object: 2,000 objects with 50 KB annotations (97 MiB of JSON) leave under 40 MiB of heap', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const server = fakeServer();
    const applier = new OwnedApplier(server.writer);
    const big = 'x'.repeat(50_000);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 2000; i++) {
      // A fresh string each time (the desired object's JSON would be ~50 KB each, 100 MB for all).
      const desired = hpa({ maxReplicas: 5 }, { name: `ehpa-${i}`, annotations: { note: `${i}${big}` } });
      await applier.apply({ path: PATH, desired, existing: undefined, ownerUid: OWNER });
    }
    server.writes.length = 0; // the fake server's log is not the applier's
    gc();
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(applier.remembered).to.equal(2000);
    // Keeping the JSON grew the heap by 97 MiB; the digests take well under 1 MiB. The margin is for whatever an
    // earlier test in the same process still has in flight.
    expect(grown, `heap grew ${(grown / 2 ** 20).toFixed(1)} MiB`).to.be.below(40 * 2 ** 20);
  });
});
