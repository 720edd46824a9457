// Wires the TSP reconciler to the shared TSP cache: new TSPs and spec changes queue at once; the
// reconciler's own requeue keeps each TSP refreshed before its window runs out. A delete or a spec change
// also cancels the key's pass in flight right in the informer handler: a pass may sit for minutes in
// history reads and fits, and waiting for it to finish before the queue hands the key out again would
// let a deleted TSP keep Prometheus and the fit workers busy. The queue's per-key backoff is the
// reconciler's (the update frequency, doubled per pass whose refits failed, up to ten): the one place a
// failing TSP's retries are timed. A spec change is the user's answer to a failure, so it starts that
// backoff over and runs at once.
import type { Logger } from 'pino';
import { ControllerRunner } from '../../kube/controller-runner.ts';
import { objectKey } from '../../kube/work-queue.ts';
import { WorkQueue } from '../../kube/work-queue.ts';
import type { SharedInformer } from '../../kube/informers.ts';
import type { TimeSeriesPrediction } from '../../api/prediction.ts';
import { tspSpecVersion, type TspReconciler } from './tsp-reconciler.ts';

export interface TspControllerWiring {
  reconciler: TspReconciler;
  tsps: SharedInformer<TimeSeriesPrediction>;
  workers: number;
  /** Reconciles of one namespace at once (--tsp-workers-per-namespace). */
  perNamespace?: number;
  log: Logger;
  observe?: (outcome: 'success' | 'error', ms: number) => void;
  /** The work queue (tests drive one in virtual time); default: one with the reconciler's backoff. */
  queue?: WorkQueue;
}

export function createTspController(o: TspControllerWiring): ControllerRunner {
  const runner = new ControllerRunner({
    name: 'tsp',
    workers: o.workers,
    ...(o.perNamespace !== undefined ? { perNamespace: o.perNamespace } : {}),
    log: o.log,
    observe: o.observe,
    queue: o.queue ?? new WorkQueue(o.reconciler.retryBackoff),
    reconcile: (key) => o.reconciler.reconcile(key),
  });
  // Subscribed for this runner's term only: stop() unsubscribes, so a later term's handlers are the only ones.
  runner.releaseOnStop(...subscribe(runner, o));
  return runner;
}

/** Queues new TSPs and spec changes at once, cancelling a pass in flight for a changed or deleted TSP; returns the unsubscribes. */
function subscribe(runner: ControllerRunner, o: TspControllerWiring): (() => void)[] {
  const generations = new Map<string, string>();
  const onTsp = (t: TimeSeriesPrediction) => {
    const key = objectKey(t);
    const version = tspSpecVersion(t);
    // Status writes (ours) do not bump generation and must not queue a reconcile; the coverage annotation
    // (metadata, no generation) does.
    if (generations.get(key) === version) return;
    if (generations.has(key)) {
      o.reconciler.cancel(key, 'the TimeSeriesPrediction spec changed');
      runner.queue.forget(key);
    }
    generations.set(key, version);
    runner.enqueue(key);
  };
  const onDelete = (t: TimeSeriesPrediction) => {
    generations.delete(objectKey(t));
    o.reconciler.cancel(objectKey(t), 'the TimeSeriesPrediction was deleted');
    runner.enqueue(objectKey(t));
  };
  return [o.tsps.onAdd(onTsp), o.tsps.onUpdate(onTsp), o.tsps.onDelete(onDelete)];
}
