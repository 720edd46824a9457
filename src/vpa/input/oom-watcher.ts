// OOM kills from pod updates (upstream input/oom/observer.go OnUpdate): the informer hands out only the
// new object, so the previous one is kept here to compare container statuses. Memory-pressure evictions
// from kubelet `Evicted` events count as OOMs at the container's reported usage (OnEvent, fed by upstream's
// `reason=Evicted` event watch). Buffered like upstream's channel (5000, oldest dropped) until the loop
// drains it.
import type { SharedInformer, KubeObject } from '../../kube/informers.ts';
import { oomsFromEvictionEvent, oomsFromPodUpdate, type EventJSON, type OomInfo, type PodJSON } from './oom-observer.ts';

type Pod = PodJSON & KubeObject;
export type EvictionEvent = EventJSON & KubeObject;

export class OomWatcher {
  private readonly last = new Map<string, Pod>();
  private buffer: OomInfo[] = [];
  private readonly capacity: number;
  private readonly evictions: SharedInformer<EvictionEvent> | undefined;
  private readonly namespace: string | undefined;
  dropped = 0;

  constructor(
    pods: SharedInformer<Pod>,
    opts: {
      /** Events with reason=Evicted (KINDS.evictionEvent). */
      evictions?: SharedInformer<EvictionEvent>;
      /** Only this namespace's evictions, like upstream's namespaced watch (--vpa-object-namespace). */
      namespace?: string;
      capacity?: number;
    } = {},
  ) {
    this.capacity = opts.capacity ?? 5000;
    this.evictions = opts.evictions;
    this.namespace = opts.namespace;
    // Upstream handles watch.Added only: an event object the kubelet bumps (count++) is not a second
    // eviction. Unlike upstream's re-watch after an error, a relist does not re-add events it already had.
    opts.evictions?.onAdd((e) => this.pushEviction(e));
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

  private pushEviction(e: EvictionEvent): void {
    if (this.namespace && e.involvedObject?.namespace !== this.namespace) return;
    this.push(oomsFromEvictionEvent(e));
  }

  /**
   * A new leadership term with a fresh model: pod-update OOMs seen before belong to the previous term, but
   * the eviction events still stored are fed again, as upstream's eviction watch replays every stored
   * event (synthetic Added) when its recommender starts; the model drops those older than its window.
   */
  beginTerm(): void {
    this.buffer = [];
    for (const e of this.evictions?.list() ?? []) this.pushEviction(e);
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
