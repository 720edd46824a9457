import { expect } from 'chai';
import type { SharedInformer, KubeObject } from '../../../../src/kube/informers.ts';
import type { PodJSON } from '../../../../src/vpa/input/oom-observer.ts';
import { OomWatcher } from '../../../../src/vpa/routines/oom-watcher.ts';

type Pod = PodJSON & KubeObject;

/** The three callbacks and list() of a SharedInformer, driven by hand. */
function fakeInformer(initial: Pod[]) {
  const h: Record<'add' | 'update' | 'delete', ((p: Pod) => void)[]> = { add: [], update: [], delete: [] };
  const inf = {
    list: () => initial,
    onAdd: (f: (p: Pod) => void) => h.add.push(f),
    onUpdate: (f: (p: Pod) => void) => h.update.push(f),
    onDelete: (f: (p: Pod) => void) => h.delete.push(f),
  } as unknown as SharedInformer<Pod>;
  return { inf, add: (p: Pod) => h.add.forEach((f) => f(p)), update: (p: Pod) => h.update.forEach((f) => f(p)), del: (p: Pod) => h.delete.forEach((f) => f(p)) };
}

function pod(restarts: number, lastReason?: string): Pod {
  return {
    metadata: { name: 'web-1', namespace: 'ns' },
    spec: { containers: [{ name: 'app', resources: { requests: { memory: '1Gi' } } }] },
    status: {
      containerStatuses: [
        {
          name: 'app',
          restartCount: restarts,
          state: { running: {} },
          lastState: lastReason ? { terminated: { reason: lastReason, finishedAt: '2026-11-22T09:00:00Z' } } : {},
        },
      ],
    },
  };
}

describe('vpa routines: OOM watcher', () => {
  it('compares each update with the previous object the informer delivered (the informer gives only the new one)', () => {
    const f = fakeInformer([pod(0)]);
    const w = new OomWatcher(f.inf);
    f.update(pod(1, 'OOMKilled'));
    f.update(pod(1, 'OOMKilled')); // a relist of the same state: nothing new
    f.update(pod(2, 'Error'));
    expect(w.take()).to.deep.equal([{ namespace: 'ns', pod: 'web-1', container: 'app', memoryBytes: 1073741824, timestamp: Date.UTC(2026, 10, 22, 9) * 1000 }]);
    expect(w.take()).to.deep.equal([]);
  });

  it('needs a previous object: the first sighting of a pod is not an OOM; deleted pods are forgotten', () => {
    const f = fakeInformer([]);
    const w = new OomWatcher(f.inf);
    f.update(pod(1, 'OOMKilled'));
    expect(w.take()).to.deep.equal([]);
    f.del(pod(1, 'OOMKilled'));
    f.update(pod(2, 'OOMKilled'));
    expect(w.take()).to.deep.equal([]);
    f.add(pod(2, 'OOMKilled'));
    f.update(pod(3, 'OOMKilled'));
    expect(w.take()).to.have.length(1);
  });

  it("keeps at most `capacity` OOMs, dropping the oldest (like upstream's buffered channel)", () => {
    const f = fakeInformer([pod(0)]);
    const w = new OomWatcher(f.inf, 2);
    for (let i = 1; i <= 3; i++) f.update(pod(i, 'OOMKilled'));
    expect(w.take()).to.have.length(2);
    expect(w.dropped).to.equal(1);
  });
});
