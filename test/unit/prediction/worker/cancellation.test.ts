// Deleting or editing a TimeSeriesPrediction cancels its pass in flight from the informer handler, not
// when the work queue next hands out the key: the pending Prometheus request is aborted (a local server
// that never answers sees its connection closed), and a running fit has its worker terminated.
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { TspReconciler } from '../../../../src/prediction/controller/tsp-reconciler.ts';
import { createTspController } from '../../../../src/prediction/controller/tsp-controller.ts';
import { ForecastPool } from '../../../../src/prediction/worker/forecast-pool.ts';
import { PooledForecaster } from '../../../../src/prediction/worker/pooled-forecaster.ts';
import { PrometheusClient } from '../../../../src/prometheus/client.ts';
import { StatusWriter } from '../../../../src/kube/status-writer.ts';
import { resourcePath } from '../../../../src/kube/api-client.ts';
import type { SharedInformer } from '../../../../src/kube/informers.ts';
import type { ControllerRunner } from '../../../../src/kube/controller-runner.ts';
import type { TimeSeriesPrediction } from '../../../../src/api/prediction.ts';
import type { HistoryProvider, HistorySeries } from '../../../../src/prometheus/series.ts';
import { InMemoryObjects } from '../../../helpers/in-memory-objects.ts';
import { craneTrace } from './fixtures/traces.ts';

const SPIN_WORKER = new URL('./fixtures/spin-fit-worker.ts', import.meta.url);
const TSPS = (ns: string) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns);
const T0 = 1_800_000_000;

function tspObject(expression: string, generation = 1): TimeSeriesPrediction {
  return {
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: { name: 'web', namespace: 'shop', generation },
    spec: {
      targetRef: { kind: 'Deployment', name: 'web', namespace: 'shop' },
      predictionWindowSeconds: 600,
      predictionMetrics: [{ resourceIdentifier: 'qps', type: 'ExpressionQuery', expressionQuery: { expression }, algorithm: { algorithmType: 'percentile' } }],
    },
  };
}

/** An informer stand-in: the test fires the events the controller subscribes to. */
function fakeInformer() {
  const handlers: Record<'add' | 'update' | 'delete', ((t: TimeSeriesPrediction) => void)[]> = { add: [], update: [], delete: [] };
  const on = (ev: 'add' | 'update' | 'delete') => (h: (t: TimeSeriesPrediction) => void) => {
    handlers[ev].push(h);
    return () => handlers[ev].splice(handlers[ev].indexOf(h), 1);
  };
  const informer = { onAdd: on('add'), onUpdate: on('update'), onDelete: on('delete') } as unknown as SharedInformer<TimeSeriesPrediction>;
  const fire = (ev: 'add' | 'update' | 'delete', t: TimeSeriesPrediction) => handlers[ev].forEach((h) => h(t));
  return { informer, fire };
}

async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function controller(history: HistoryProvider, pool: ForecastPool) {
  const store = new InMemoryObjects();
  const reconciler = new TspReconciler({
    tsps: store.cache<TimeSeriesPrediction>(TSPS),
    history,
    forecaster: new PooledForecaster(pool),
    status: new StatusWriter(store),
    log: pino({ level: 'silent' }),
    now: () => T0 * 1000,
    updateFrequencyMs: 3_600_000,
    modelUpdateIntervalMs: 3_600_000,
  });
  const { informer, fire } = fakeInformer();
  const observed: string[] = [];
  const runner = createTspController({ reconciler, tsps: informer, workers: 2, log: pino({ level: 'silent' }), observe: (o) => observed.push(o) });
  return { store, reconciler, runner, fire, observed };
}

describe('TSP cancellation: delete or edit stops the history read and the fit', function () {
  this.timeout(30_000);
  let server: Server | undefined;
  let pool: ForecastPool | undefined;
  let runner: ControllerRunner | undefined;
  afterEach(async () => {
    await runner?.stop();
    await pool?.close();
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = pool = runner = undefined;
  });

  it('deleting a TSP mid-read aborts the pending Prometheus request; nothing is written', async () => {
    const pending: IncomingMessage[] = [];
    let aborted = 0;
    // Prometheus that never answers: only the client giving up closes the request.
    server = createServer((req) => {
      pending.push(req);
      req.socket.on('close', () => aborted++);
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    pool = new ForecastPool({ size: 1, budgetMs: 60_000 });
    const c = controller(new PrometheusClient({ url, timeoutMs: 60_000 }), pool);
    runner = c.runner;
    const tsp = c.store.seed(TSPS('shop'), tspObject('sum(rate(http_requests_total[1m]))'));
    c.fire('add', tsp);
    runner.start();
    await until(() => pending.length === 1, 'the history request to reach Prometheus');
    const writes = c.store.writes.length;

    c.store.remove(`${TSPS('shop')}/web`);
    c.fire('delete', tsp);
    await until(() => aborted === 1, 'the pending request to be aborted', 5_000);
    // The cancelled pass ends, then the queued delete is handled: two reconciles, no error, no retry.
    await until(() => c.observed.length === 2, 'the reconciles to finish', 5_000);
    expect(c.observed).to.deep.equal(['success', 'success']);
    expect(pending.length).to.equal(1);
    expect(c.store.writes.length).to.equal(writes);
    expect(c.reconciler.cachedForecasts()).to.equal(0);
    expect(pool.stats().workers).to.equal(0); // no fit was ever started
  });

  it('deleting a TSP mid-fit terminates its worker long before the budget', async () => {
    const recent = craneTrace('input0', 1440);
    const last = recent.timestamps[recent.timestamps.length - 1] as number;
    const history: HistoryProvider = {
      queryRange: async () => [{ labels: { spin: 'forever' }, timestamps: recent.timestamps.map((t) => t - last + T0), values: recent.values }],
    };
    pool = new ForecastPool({ size: 1, budgetMs: 60_000, workerUrl: SPIN_WORKER });
    const c = controller(history, pool);
    runner = c.runner;
    const tsp = c.store.seed(TSPS('shop'), tspObject('spin'));
    c.fire('add', tsp);
    runner.start();
    await until(() => pool!.stats().busy === 1, 'the fit to start');
    const t0 = Date.now();
    c.store.remove(`${TSPS('shop')}/web`);
    c.fire('delete', tsp);
    await until(() => c.observed.length === 2, 'the reconciles to finish', 5_000);
    expect(Date.now() - t0).to.be.lessThan(5_000);
    expect(pool.replaced).to.equal(1);
    expect(pool.stats()).to.deep.equal({ workers: 0, busy: 0, queued: 0 });
    expect(c.store.writes.length).to.equal(0);
  });

  it('editing a TSP mid-fit terminates the old fit; the new spec is forecast and only its forecast stays cached', async () => {
    const recent = craneTrace('input0', 1440);
    const last = recent.timestamps[recent.timestamps.length - 1] as number;
    const history: HistoryProvider = {
      queryRange: async (query): Promise<HistorySeries[]> => [{ labels: query.includes('spin') ? { spin: 'forever' } : { pod: 'web-1' }, timestamps: recent.timestamps.map((t) => t - last + T0), values: recent.values }],
    };
    pool = new ForecastPool({ size: 1, budgetMs: 60_000, workerUrl: SPIN_WORKER });
    const c = controller(history, pool);
    runner = c.runner;
    const v1 = c.store.seed(TSPS('shop'), tspObject('spin'));
    c.fire('add', v1);
    runner.start();
    await until(() => pool!.stats().busy === 1, 'the fit to start');
    const v2 = c.store.seed(TSPS('shop'), tspObject('calm', 2));
    c.fire('update', v2);
    await until(() => c.observed.length === 2, 'the reconciles to finish', 10_000);
    expect(pool.replaced).to.equal(1);
    const status = c.store.read<TimeSeriesPrediction>(`${TSPS('shop')}/web`)!.status!;
    expect(status.conditions!.find((cond) => cond.type === 'Ready')).to.include({ status: 'True' });
    expect(status.predictionMetrics![0]!.prediction![0]!.labels).to.deep.equal([{ name: 'pod', value: 'web-1' }]);
    expect(c.reconciler.cachedForecasts()).to.equal(1);
    // Only the edited spec's pass wrote a status: the cancelled one wrote nothing.
    expect(c.store.writes.length).to.equal(1);
  });
});
