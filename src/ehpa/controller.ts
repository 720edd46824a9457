// Wires the EHPA reconciler to the shared caches: EHPA changes, changes to what an EHPA owns (HPA, TSP,
// Substitute) and changes to the pods its CPU target is computed from all queue the EHPA.
import type { Logger } from 'pino';
import { ControllerRunner } from '../kube/controller-runner.ts';
import { objectKey } from '../kube/work-queue.ts';
import type { KubeObject, SharedInformer } from '../kube/informers.ts';
import { EHPA_KIND } from '../api/ehpa.ts';
import type { EhpaReconciler } from './reconciler.ts';
import type { PodLike } from '../api/pod.ts';

interface Owned extends KubeObject {
  metadata: KubeObject['metadata'] & { ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
}

export interface EhpaControllerOptions {
  reconciler: EhpaReconciler;
  ehpas: SharedInformer<KubeObject & { metadata: { generation?: number } }>;
  owned: SharedInformer<Owned>[];
  pods: SharedInformer<PodLike & KubeObject>;
  workers: number;
  log: Logger;
  observe?: (outcome: 'success' | 'error', ms: number) => void;
}

export function ownerEhpaKey(obj: Owned): string | undefined {
  const ref = obj.metadata.ownerReferences?.find((r) => r.controller && r.kind === EHPA_KIND);
  return ref ? `${obj.metadata.namespace ?? ''}/${ref.name}` : undefined;
}

/** Builds the runner and subscribes it; call start() once the caches have synced. */
export function createEhpaController(o: EhpaControllerOptions): ControllerRunner {
  const runner = new ControllerRunner({
    name: 'ehpa',
    workers: o.workers,
    log: o.log,
    observe: o.observe,
    reconcile: (key) => o.reconciler.reconcile(key),
  });
  // Spec changes bump generation; our own status writes do not, and must not loop back into a reconcile.
  // Annotations (metric-query overrides) and labels (propagation) change without a generation bump.
  const seen = new Map<string, string>();
  const fingerprint = (e: KubeObject & { metadata: { generation?: number; labels?: unknown; annotations?: unknown } }) =>
    `${e.metadata.generation}|${JSON.stringify(e.metadata.annotations ?? {})}|${JSON.stringify(e.metadata.labels ?? {})}`;
  const onEhpa = (e: KubeObject & { metadata: { generation?: number } }) => {
    const key = objectKey(e);
    const fp = fingerprint(e);
    if (seen.get(key) === fp) return;
    seen.set(key, fp);
    runner.enqueue(key);
  };
  const fromOwned = (obj: Owned) => {
    const key = ownerEhpaKey(obj);
    if (key) runner.enqueue(key);
  };
  const fromPod = (pod: PodLike) => {
    for (const key of o.reconciler.ehpasForPod(pod)) runner.enqueue(key);
  };
  // Subscribed for this runner's term only: stop() unsubscribes, so a later term's handlers are the only ones.
  runner.releaseOnStop(
    o.ehpas.onAdd(onEhpa),
    o.ehpas.onUpdate(onEhpa),
    o.ehpas.onDelete((e) => {
      seen.delete(objectKey(e));
      o.reconciler.forget(objectKey(e));
    }),
    ...o.owned.map((inf) => inf.onChange(fromOwned)),
    o.pods.onAdd(fromPod),
    o.pods.onDelete(fromPod),
    o.pods.onUpdate(fromPod),
  );
  return runner;
}
