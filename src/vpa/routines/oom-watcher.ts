// OOM kills from pod updates (upstream input/oom/observer.go OnUpdate): the informer hands out only the
// new object, so the previous one is kept here to compare container statuses. Buffered like upstream's
// channel (5000, oldest dropped) until the loop drains it.
import type { SharedInformer, KubeObject } from '../../kube/informers.ts';
import { oomsFromPodUpdate, type OomInfo, type PodJSON } from '../input/oom-observer.ts';

type Pod = PodJSON & KubeObject;

export class OomWatcher {
  private readonly last = new Map<string, Pod>();
  private buffer: OomInfo[] = [];
  dropped = 0;

  constructor(
    pods: SharedInformer<Pod>,
    private readonly capacity = 5000,
  ) {
    const key = (p: Pod) => `${p.metadata.namespace ?? ''}/${p.metadata.name}`;
    for (const p of pods.list()) this.last.set(key(p), p);
    pods.onAdd((p) => this.last.set(key(p), p));
    pods.onUpdate((p) => {
      const old = this.last.get(key(p));
      this.last.set(key(p), p);
      if (old) this.push(oomsFromPodUpdate(old, p));
    });
    pods.onDelete((p) => this.last.delete(key(p)));
  }

  private push(ooms: OomInfo[]): void {
    for (const o of ooms) {
      if (this.buffer.length >= this.capacity) {
        this.buffer.shift();
        this.dropped++;
      }
      this.buffer.push(o);
    }
  }

  take(): OomInfo[] {
    const out = this.buffer;
    this.buffer = [];
    return out;
  }
}
