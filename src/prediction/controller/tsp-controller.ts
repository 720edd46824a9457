// Wires the TSP reconciler to the shared TSP cache: new TSPs and spec changes queue at once; the
// reconciler's own requeue keeps each TSP refreshed before its window runs out.
import type { Logger } from 'pino';
import { ControllerRunner, objectKey } from '../../kube/controller-runner.ts';
import type { SharedInformer } from '../../kube/informers.ts';
import type { TimeSeriesPrediction } from '../../api/prediction.ts';
import type { TspReconciler } from './tsp-reconciler.ts';

export function createTspController(o: {
  reconciler: TspReconciler;
  tsps: SharedInformer<TimeSeriesPrediction>;
  workers: number;
  log: Logger;
  observe?: (outcome: 'success' | 'error', ms: number) => void;
}): ControllerRunner {
  const runner = new ControllerRunner({ name: 'tsp', workers: o.workers, log: o.log, observe: o.observe, reconcile: (key) => o.reconciler.reconcile(key) });
  const generations = new Map<string, number | undefined>();
  const onTsp = (t: TimeSeriesPrediction) => {
    const key = objectKey(t);
    // Status writes (ours) do not bump generation and must not queue a reconcile.
    if (generations.has(key) && generations.get(key) === t.metadata.generation) return;
    generations.set(key, t.metadata.generation);
    runner.enqueue(key);
  };
  o.tsps.onAdd(onTsp);
  o.tsps.onUpdate(onTsp);
  o.tsps.onDelete((t) => {
    generations.delete(objectKey(t));
    runner.enqueue(objectKey(t));
  });
  return runner;
}
