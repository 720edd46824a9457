// A leadership term's controllers subscribe to informers that live as long as the process. Found at 10,000
// EHPAs in the scale bench: handlers were never unsubscribed, so every term change kept the old term's reconcilers
// (their cached forecasts) and each later term added another set of handlers; serve's heap grew until V8 ran
// out of memory 50 minutes into pod churn. Here: stop() leaves no handler behind, and after a term change
// events reach the new term's reconciler only.
import { expect } from 'chai';
import { pino } from 'pino';
import type { SharedInformer } from '../../../src/kube/informers.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import type { TspReconciler } from '../../../src/prediction/controller/tsp-reconciler.ts';
import type { EhpaReconciler } from '../../../src/ehpa/reconciler.ts';
import { createTspController } from '../../../src/prediction/controller/tsp-controller.ts';
import { createEhpaController } from '../../../src/ehpa/controller.ts';

type Verb = 'add' | 'update' | 'delete' | 'change';

/** Subscribe/unsubscribe like SharedInformer; `fire` calls the handlers subscribed now. */
function fakeInformer<T>() {
  const handlers: Record<Verb, Set<(o: T) => void>> = { add: new Set(), update: new Set(), delete: new Set(), change: new Set() };
  const on = (verb: Verb) => (h: (o: T) => void) => {
    const own = (o: T) => h(o); // distinct per subscription, like a fresh closure
    handlers[verb].add(own);
    return () => handlers[verb].delete(own);
  };
  return {
    informer: { onAdd: on('add'), onUpdate: on('update'), onDelete: on('delete'), onChange: on('change') } as unknown as SharedInformer<T & { metadata: { name: string } }>,
    fire: (verb: Verb, o: T) => [...handlers[verb]].forEach((h) => h(o)),
    count: () => Object.values(handlers).reduce((n, s) => n + s.size, 0),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 20));
const log = pino({ level: 'silent' });

const tsp = (generation: number): TimeSeriesPrediction => ({
  apiVersion: 'prediction.crane.io/v1alpha1',
  kind: 'TimeSeriesPrediction',
  metadata: { name: 'ehpa-web', namespace: 'team', generation },
  spec: { targetRef: { kind: 'Deployment', name: 'web' }, predictionWindowSeconds: 3600, predictionMetrics: [] },
});

describe('controllers per leadership term: stop() unsubscribes from the shared informers', () => {
  it('TSP controller: no handler outlives its term; a new term gets the events, the old one none', async () => {
    const tsps = fakeInformer<TimeSeriesPrediction>();
    const reconciled: string[] = [];
    const term = (name: string) => ({ reconcile: async (k: string) => (reconciled.push(`${name} ${k}`), {}), cancel: () => undefined }) as unknown as TspReconciler;
    const first = createTspController({ reconciler: term('first'), tsps: tsps.informer, workers: 1, log });
    expect(tsps.count()).to.equal(3);
    first.start();
    tsps.fire('add', tsp(1));
    await settle();
    await first.stop();
    expect(tsps.count(), 'handlers left by a stopped term').to.equal(0);
    const second = createTspController({ reconciler: term('second'), tsps: tsps.informer, workers: 1, log });
    second.start();
    tsps.fire('update', tsp(2));
    await settle();
    await second.stop();
    expect(reconciled).to.deep.equal(['first team/ehpa-web', 'second team/ehpa-web']);
  });

  it('EHPA controller: its EHPA, owned-object and pod handlers all go at stop()', async () => {
    const ehpas = fakeInformer<{ metadata: { name: string; namespace: string; generation?: number } }>();
    const hpas = fakeInformer<{ metadata: { name: string; namespace: string } }>();
    const pods = fakeInformer<{ metadata: { name: string; namespace: string; labels?: Record<string, string> } }>();
    const reconciled: string[] = [];
    const term = (name: string) =>
      ({ reconcile: async (k: string) => (reconciled.push(`${name} ${k}`), {}), forget: () => undefined, ehpasForPod: () => ['team/web'] }) as unknown as EhpaReconciler;
    const make = (name: string) => createEhpaController({ reconciler: term(name), ehpas: ehpas.informer as never, owned: [hpas.informer as never], pods: pods.informer as never, workers: 1, log });
    const first = make('first');
    const subscribed = ehpas.count() + hpas.count() + pods.count();
    expect(subscribed).to.equal(7); // EHPA add/update/delete, owned change, pod add/update/delete
    first.start();
    await first.stop();
    expect(ehpas.count() + hpas.count() + pods.count(), 'handlers left by a stopped term').to.equal(0);
    const second = make('second');
    second.start();
    pods.fire('update', { metadata: { name: 'web-1', namespace: 'team', labels: { app: 'web' } } });
    await settle();
    await second.stop();
    expect(reconciled).to.deep.equal(['second team/web']);
  });
});
