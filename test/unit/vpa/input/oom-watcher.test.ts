import { expect } from 'chai';
import type { SharedInformer, KubeObject } from '../../../../src/kube/informers.ts';
import type { PodJSON } from '../../../../src/vpa/input/oom-observer.ts';
import { OomWatcher, type EvictionEvent } from '../../../../src/vpa/input/oom-watcher.ts';

type Pod = PodJSON & KubeObject;

/** The three callbacks and list() of a SharedInformer, driven by hand. */
function fakeInformer<T extends KubeObject = Pod>(initial: T[]) {
  const h: Record<'add' | 'update' | 'delete', ((p: T) => void)[]> = { add: [], update: [], delete: [] };
  const inf = {
    list: () => initial,
    onAdd: (f: (p: T) => void) => h.add.push(f),
    onUpdate: (f: (p: T) => void) => h.update.push(f),
    onDelete: (f: (p: T) => void) => h.delete.push(f),
  } as unknown as SharedInformer<T>;
  return { inf, add: (p: T) => h.add.forEach((f) => f(p)), update: (p: T) => h.update.forEach((f) => f(p)), del: (p: T) => h.delete.forEach((f) => f(p)) };
}

/** A kubelet eviction event as the API server stores it (pkg/kubelet/eviction annotations). */
function eviction(name: string, namespace: string, starved: string, usage: string): EvictionEvent {
  return {
    apiVersion: 'v1', kind: 'Event',
    metadata: { name, namespace, creationTimestamp: '2026-11-22T10:00:00Z', annotations: { offending_containers: 'app,sidecar', offending_containers_usage: `${usage},10Mi`, starved_resource: `${starved},${starved}` } } as EvictionEvent['metadata'],
    reason: 'Evicted',
    involvedObject: { kind: 'Pod', name: 'web-1', namespace },
  };
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
    const f = fakeInformer<Pod>([]);
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
    const w = new OomWatcher(f.inf, { capacity: 2 });
    for (let i = 1; i <= 3; i++) f.update(pod(i, 'OOMKilled'));
    expect(w.take()).to.have.length(2);
    expect(w.dropped).to.equal(1);
  });

  it('turns added memory-eviction events into OOMs at the reported usage; bumped events and other namespaces are not new ones', () => {
    const f = fakeInformer([pod(0)]);
    const ev = fakeInformer<EvictionEvent>([]);
    const w = new OomWatcher(f.inf, { evictions: ev.inf, namespace: 'ns' });
    ev.add(eviction('e1', 'ns', 'memory', '1500Mi'));
    ev.update(eviction('e1', 'ns', 'memory', '1500Mi')); // the kubelet's count++ on the same event
    ev.add(eviction('e2', 'ns', 'cpu', '1500Mi')); // starved on CPU: not an OOM
    ev.add(eviction('e3', 'other', 'memory', '900Mi')); // outside --vpa-object-namespace
    const at = Date.UTC(2026, 10, 22, 10) * 1000;
    expect(w.take()).to.deep.equal([
      { namespace: 'ns', pod: 'web-1', container: 'app', memoryBytes: 1500 * 2 ** 20, timestamp: at },
      { namespace: 'ns', pod: 'web-1', container: 'sidecar', memoryBytes: 10 * 2 ** 20, timestamp: at },
    ]);
  });

  it("a new term drops earlier pod-update OOMs but replays the stored eviction events, as upstream's watch does at start", () => {
    const f = fakeInformer([pod(0)]);
    const stored = [eviction('e1', 'ns', 'memory', '1500Mi')];
    const ev = fakeInformer<EvictionEvent>(stored);
    const w = new OomWatcher(f.inf, { evictions: ev.inf });
    f.update(pod(1, 'OOMKilled')); // seen while another replica led
    w.beginTerm();
    expect(w.take().map((o) => [o.container, o.memoryBytes])).to.deep.equal([['app', 1500 * 2 ** 20], ['sidecar', 10 * 2 ** 20]]);
    w.beginTerm();
    expect(w.take()).to.have.length(2); // every term replays them once; the model drops what is too old
  });
});
