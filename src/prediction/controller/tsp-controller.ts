// Wires the TSP reconciler to the shared TSP cache: new TSPs and spec changes queue at once; the
// reconciler's own requeue keeps each TSP refreshed before its window runs out. A delete or a spec change
// also cancels the key's pass in flight right in the informer handler: a pass may sit for minutes in
// history reads and fits, and waiting for it to finish before the queue hands the key out again would
// let a deleted TSP keep Prometheus and the fit workers busy.
import type { Logger } from 'pino';
import { ControllerRunner, objectKey } from '../../kube/controller-runner.ts';
import type { SharedInformer } from '../../kube/informers.ts';
import type { TimeSeriesPrediction } from '../../api/prediction.ts';
import { tspSpecVersion, type TspReconciler } from './tsp-reconciler.ts';

export function createTspController(o: {
  reconciler: TspReconciler;
  tsps: SharedInformer<TimeSeriesPrediction>;
  workers: number;
  /** Reconciles of one namespace at once (--tsp-workers-per-namespace). */
  perNamespace?: number;
  log: Logger;
  observe?: (outcome: 'success' | 'error', ms: number) => void;
}): ControllerRunner {
  const runner = new ControllerRunner({
    name: 'tsp',
    workers: o.workers,
    ...(o.perNamespace !== undefined ? { perNamespace: o.perNamespace } : {}),
    log: o.log,
    observe: o.observe,
    reconcile: (key) => o.reconciler.reconcile(key),
  });
  const generations = new Map<string, string>();
  const onTsp = (t: TimeSeriesPrediction) => {
    const key = objectKey(t);
    const version = tspSpecVersion(t);
    // Status writes (ours) do not bump generation and must not queue a reconcile; the coverage annotation
    // (metadata, no generation) does.
    if (generations.get(key) === version) return;
    if (generations.has(key)) o.reconciler.cancel(key, 'the TimeSeriesPrediction spec changed');
    generations.set(key, version);
    runner.enqueue(key);
  };
  // Subscribed for this runner's term only: stop() unsubscribes, so a later term's handlers are the only ones.
  runner.releaseOnStop(
    o.tsps.onAdd(onTsp),
    o.tsps.onUpdate(onTsp),
    o.tsps.onDelete((t) => {
      generations.delete(objectKey(t));
      o.reconciler.cancel(objectKey(t), 'the TimeSeriesPrediction was deleted');
      runner.enqueue(objectKey(t));
    }),
  );
  return runner;
}
