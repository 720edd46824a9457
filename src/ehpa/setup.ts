// The EHPA controller's wiring: its informers, the reconciler over them and the runner (see
// kube/controller-context.ts for the shape every controller shares).
import type { ControllerContext, RunnerFactory } from '../kube/controller-context.ts';
import { KINDS } from '../api/kinds.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import type { HorizontalPodAutoscaler, Substitute } from '../api/autoscaling.ts';
import type { PodLike } from '../api/pod.ts';
import type { TimeSeriesPrediction } from '../api/prediction.ts';
import { EhpaReconciler } from './reconciler.ts';
import { createEhpaController } from './controller.ts';
import { HpaObserver } from './hpa-observer.ts';
import { propagatedMetadata, type PropagationConfig } from './propagation.ts';
import { workloadScaleAccess } from './workload-scale.ts';
import type { HpaShape } from './desired-hpa.ts';

export interface EhpaControllerOptions {
  workers: number;
  /** Periodic re-check of every EHPA. */
  resyncMs: number;
  /** How often a Preview EHPA pulls its Substitute back to the real replicas. */
  previewResyncMs: number;
  propagation: PropagationConfig;
  /** Crane generation whose metric names the backing HPA carries (--hpa-shape; default `v0.7`). */
  hpaShape?: HpaShape;
}

export function setupEhpaController(ctx: ControllerContext, o: EhpaControllerOptions): RunnerFactory {
  const ehpas = ctx.informers.informer<EffectiveHorizontalPodAutoscaler>(KINDS.ehpa);
  const hpas = ctx.informers.informer<HorizontalPodAutoscaler>(KINDS.hpa);
  const tsps = ctx.informers.informer<TimeSeriesPrediction>(KINDS.tsp);
  const substitutes = ctx.informers.informer<Substitute>(KINDS.substitute);
  const pods = ctx.informers.informer<PodLike & { metadata: { name: string } }>(KINDS.pod);
  const log = ctx.log.child({ controller: 'ehpa' });
  const scale = workloadScaleAccess(ctx);
  let observer: HpaObserver | undefined;
  hpas.onAdd((h) => observer?.observe(h));
  hpas.onUpdate((h) => observer?.observe(h));
  hpas.onDelete((h) => observer?.forget(h));
  return () => {
    const reconciler = new EhpaReconciler({
      client: ctx.client,
      ehpas,
      hpas,
      tsps,
      substitutes,
      pods,
      scale,
      events: ctx.events,
      status: ctx.status,
      log,
      now: ctx.now,
      resyncMs: o.resyncMs,
      propagate: (e) => propagatedMetadata(e, o.propagation),
      observeStatus: (ns, name, st) => ctx.metrics.setExpectReplicas(ns, name, st?.expectReplicas),
      previewResyncMs: o.previewResyncMs,
      ...(o.hpaShape ? { hpaShape: o.hpaShape } : {}),
    });
    const runner = createEhpaController({ reconciler, ehpas, owned: [hpas, tsps, substitutes], pods, workers: o.workers, log, observe: ctx.metrics.observe('ehpa') });
    // Crane's HPA observer series, exported by the leader only (like Crane's craned manager); each term
    // starts from the cache, and the handlers subscribed once below feed the current term's observer.
    observer = new HpaObserver(ctx.metrics);
    for (const h of hpas.list()) observer.observe(h);
    // Objects listed before we subscribed: queue them all once.
    for (const e of ehpas.list()) runner.enqueue(`${e.metadata.namespace}/${e.metadata.name}`);
    return runner;
  };
}
