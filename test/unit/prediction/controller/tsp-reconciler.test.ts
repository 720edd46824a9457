// TspReconciler.reconcile() through its narrow seams (an in-memory store for the TSP and its status, a
// history provider and a forecaster that record their calls), without Prometheus or kube-apiserver (the
// e2e suites run both for real): first forecast, a spec change, Prometheus failing, and deletion. The
// refresh rule is Crane's (docs/crane-behaviour.md §D.2): a status is rewritten only when it no longer
// covers [now, now + window] or the spec changed.
import { expect } from 'chai';
import { pino } from 'pino';
import { FAILURE_BACKOFF_MAX_FACTOR, TspReconciler, type TspReconcilerDeps } from '../../../../src/prediction/controller/tsp-reconciler.ts';
import type { Forecaster } from '../../../../src/prediction/controller/forecaster.ts';
import type { HistoryProvider, HistorySeries } from '../../../../src/prometheus/series.ts';
import { StatusWriter } from '../../../../src/kube/status-writer.ts';
import { resourcePath } from '../../../../src/kube/api-client.ts';
import type { TimeSeriesPrediction } from '../../../../src/api/prediction.ts';
import { InMemoryObjects } from '../../../helpers/in-memory-objects.ts';
import { WorkQueue } from '../../../../src/kube/work-queue.ts';
import type { SharedInformer } from '../../../../src/kube/informers.ts';
import { createTspController } from '../../../../src/prediction/controller/tsp-controller.ts';

const NS = 'shop';
const TSPS = (ns: string) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns);
const T0 = 1_800_000_000; // unix s, a whole hour

function tspObject(window = 3600): TimeSeriesPrediction {
  return {
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: { name: 'ehpa-web', namespace: NS },
    spec: {
      targetRef: { kind: 'Deployment', name: 'web', namespace: NS },
      predictionWindowSeconds: window,
      predictionMetrics: [{ resourceIdentifier: 'crane_pod_cpu_usage', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm: { algorithmType: 'dsp' } }],
    },
  };
}

/** `horizonSeconds`: the forecaster's own horizon (Crane's DSP forecasts a whole history length); default the asked one. */
function setup(o: { horizonSeconds?: number; refitSpread?: number; pacer?: TspReconcilerDeps['pacer'] } = {}) {
  const store = new InMemoryObjects();
  store.seed(TSPS(NS), tspObject());
  let nowS = T0;
  let historyFails = false;
  let failingQuery: string | undefined;
  const queries: string[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  // Set by a test to hold history reads until it resolves.
  let gate: Promise<void> | undefined;
  const history: HistoryProvider = {
    async queryRange(query, startS, endS, stepS, options) {
      queries.push(query);
      signals.push(options?.signal);
      await gate;
      options?.signal?.throwIfAborted();
      if (historyFails || (failingQuery !== undefined && query.includes(failingQuery))) throw new Error('connect ECONNREFUSED 127.0.0.1:9090');
      const timestamps: number[] = [];
      for (let t = startS; t <= endS; t += stepS) timestamps.push(t);
      return [{ labels: {}, timestamps, values: timestamps.map(() => 1.5) }];
    },
  };
  let fits = 0;
  let noForecast = false;
  // A flat forecast of 2.0 cores every minute up to the horizon the controller asks for.
  const forecaster: Forecaster = {
    historyWindow: () => ({ lengthSeconds: 3 * 86_400, stepSeconds: 60 }),
    forecast(_h, _a, w): HistorySeries[] {
      fits++;
      if (noForecast) return [];
      const timestamps: number[] = [];
      for (let t = w.nowS; t <= w.nowS + (o.horizonSeconds ?? w.horizonSeconds); t += 60) timestamps.push(t);
      return [{ labels: {}, timestamps, values: timestamps.map(() => 2) }];
    },
  };
  const reconciler = new TspReconciler({
    tsps: store.cache<TimeSeriesPrediction>(TSPS),
    history,
    forecaster,
    status: new StatusWriter(store),
    log: pino({ level: 'silent' }),
    now: () => nowS * 1000,
    updateFrequencyMs: 30_000,
    modelUpdateIntervalMs: 12 * 3_600_000,
    ...(o.refitSpread !== undefined ? { refitSpread: o.refitSpread } : {}),
    ...(o.pacer ? { pacer: o.pacer } : {}),
  });
  const tsp = () => store.read<TimeSeriesPrediction>(`${TSPS(NS)}/ehpa-web`)!;
  return {
    store,
    reconciler,
    tsp,
    queries,
    signals,
    holdHistory: (until: Promise<void>) => (gate = until),
    fits: () => fits,
    at: (s: number) => (nowS = s),
    failHistory: (v: boolean) => (historyFails = v),
    /** History reads of queries containing this fail. */
    failHistoryOf: (part: string) => (failingQuery = part),
    now: () => nowS,
    findNothing: (v: boolean) => (noForecast = v),
    key: `${NS}/ehpa-web`,
  };
}

/**
 * The reconciler behind the TSP controller and its work queue (with the reconciler's backoff), in virtual
 * time: a requeue waits on the test's clock instead of a timer, and `runUntil` moves the clock from one due
 * key to the next. The TSP is added at once; `edit` delivers an informer update at the current instant.
 */
function queued(t: ReturnType<typeof setup>, untilS: number) {
  const due = new Map<string, number>();
  class VirtualTimeQueue extends WorkQueue {
    override addAfter(key: string, ms: number): void {
      if (ms <= 0) return this.add(key);
      // As a real timer: one pending per key, the first set wins.
      if (!due.has(key)) due.set(key, t.now() + ms / 1000);
    }
  }
  const queue = new VirtualTimeQueue(t.reconciler.retryBackoff);
  const handlers: { add?: (x: TimeSeriesPrediction) => void; update?: (x: TimeSeriesPrediction) => void } = {};
  const informer = {
    onAdd: (h: (x: TimeSeriesPrediction) => void) => ((handlers.add = h), () => {}),
    onUpdate: (h: (x: TimeSeriesPrediction) => void) => ((handlers.update = h), () => {}),
    onDelete: () => () => {},
  } as unknown as SharedInformer<TimeSeriesPrediction>;
  let passes = 0;
  let expected = 0;
  let seenQueries = 0;
  const queriedAt: number[] = [];
  const after: ((s: number) => void)[] = [];
  const observe = () => {
    passes++;
    if (t.queries.length > seenQueries) queriedAt.push(t.now() - T0);
    seenQueries = t.queries.length;
    for (const f of after) f(t.now() - T0);
  };
  const runner = createTspController({ reconciler: t.reconciler, tsps: informer, workers: 1, log: pino({ level: 'silent' }), queue, observe });
  runner.start();
  const settle = async () => {
    while (passes < expected) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  };
  expected++;
  handlers.add!(t.tsp());
  const runUntil = async (limitS: number) => {
    await settle();
    for (;;) {
      const next = [...due.entries()].sort((a, b) => a[1] - b[1])[0];
      if (!next || next[1] > limitS) return;
      due.delete(next[0]);
      t.at(next[1]);
      expected++;
      queue.add(next[0]);
      await settle();
    }
  };
  return {
    queue,
    queriedAt,
    afterPass: (f: (s: number) => void) => after.push(f),
    runUntil,
    runUntilIdle: () => runUntil(untilS),
    async edit(x: TimeSeriesPrediction) {
      t.at(untilS);
      expected++;
      handlers.update!(x);
      await settle();
    },
    stop: () => runner.stop(),
  };
}

describe('TspReconciler.reconcile (in-memory seams)', function () {
  this.timeout(1000);

  it('first reconcile: forecasts [now, now + 2 window] as %.5f samples, Ready=True; a re-check inside the window writes nothing', async () => {
    const t = setup();
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({ requeueAfterMs: 30_000 });
    const st = t.tsp().status!;
    const m = st.predictionMetrics![0]!;
    expect(m.ready).to.equal(true);
    const samples = m.prediction![0]!.samples;
    expect(samples[0]).to.deep.equal({ timestamp: T0, value: '2.00000' });
    expect(samples[samples.length - 1]!.timestamp).to.equal(T0 + 2 * 3600);
    expect(st.conditions!.find((c) => c.type === 'Ready')).to.include({ status: 'True' });
    expect(t.queries[0]).to.include('namespace="shop"');
    const writes = t.store.writes.length;
    t.at(T0 + 1800); // the status still covers [now, now + 1 h]
    await t.reconciler.reconcile(t.key);
    expect(t.store.writes.length).to.equal(writes);
    expect(t.fits()).to.equal(1);
  });

  it('a namespace over its status-byte budget: the status is held and written at its turn, as built, with no refit', async () => {
    const asked: [string, number][] = [];
    let waitMs = 1_500;
    const t = setup({ pacer: { reserve: (ns, bytes) => (asked.push([ns, bytes]), waitMs) } });
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({ requeueAfterMs: 1_500 });
    expect(t.tsp().status).to.equal(undefined);
    expect(t.fits()).to.equal(1);
    // Asked for again before its turn (an informer event): back in line for the rest, nothing written.
    t.at(T0 + 1);
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({ requeueAfterMs: 500 });
    expect(t.tsp().status).to.equal(undefined);
    // Its turn: written without asking the pacer again (the bytes were charged when it was told to wait).
    waitMs = 60_000;
    t.at(T0 + 2);
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({ requeueAfterMs: 30_000 });
    expect(t.fits()).to.equal(1);
    const written = t.tsp().status!;
    expect(written.predictionMetrics![0]!.ready).to.equal(true);
    // Written as it was built, at T0, not rebuilt at T0 + 2.
    expect(written.predictionMetrics![0]!.prediction![0]!.samples[0]!.timestamp).to.equal(T0);
    // Charged once, what was written, to the TSP's namespace.
    expect(asked).to.deep.equal([[NS, JSON.stringify(written).length]]);
    // A re-check with nothing to write asks for no budget.
    t.at(T0 + 600);
    await t.reconciler.reconcile(t.key);
    expect(asked).to.have.length(1);
  });

  it('a held status that no longer covers [now, now + window] is not written: the forecast is rebuilt', async () => {
    let waitMs = 3_700_000;
    const t = setup({ pacer: { reserve: () => waitMs } });
    await t.reconciler.reconcile(t.key);
    waitMs = 0;
    t.at(T0 + 3601);
    await t.reconciler.reconcile(t.key);
    expect(t.fits()).to.equal(2);
    expect(t.tsp().status!.predictionMetrics![0]!.prediction![0]!.samples[0]!.timestamp).to.equal(T0 + 3601);
  });

  it("keeps only what a status can show before the next refit, not Crane's 15-day horizon (bounded memory at thousands of TSPs)", async () => {
    const t = setup({ horizonSeconds: 15 * 86_400, refitSpread: 0 });
    await t.reconciler.reconcile(t.key);
    // 12 h (--model-update-interval) + 2 × 1 h window at 60 s, both ends included: 841 of the 21,601 samples.
    expect(t.reconciler.cachedSamples()).to.equal((12 * 3600 + 2 * 3600) / 60 + 1);
    // The last instant before the forecast is too old still gets a full [now, now + 2 window] from the cache.
    t.at(T0 + 12 * 3600);
    t.store.seed(TSPS(NS), { ...t.tsp(), status: {} });
    await t.reconciler.reconcile(t.key);
    expect(t.fits()).to.equal(1);
    const samples = t.tsp().status!.predictionMetrics![0]!.prediction![0]!.samples;
    expect([samples[0]!.timestamp, samples[samples.length - 1]!.timestamp]).to.deep.equal([T0 + 12 * 3600, T0 + 14 * 3600]);
    // One interval later it is rebuilt.
    t.at(T0 + 12 * 3600 + 60);
    t.store.seed(TSPS(NS), { ...t.tsp(), status: {} });
    await t.reconciler.reconcile(t.key);
    expect(t.fits()).to.equal(2);
  });

  it('with the default spread, the refit comes between 0.8 and 1 × --model-update-interval after the fit', async () => {
    const t = setup({ horizonSeconds: 15 * 86_400 }); // a forecast that would cover days: only its age forces the refit
    await t.reconciler.reconcile(t.key);
    let refitAt = 0;
    for (let s = T0 + 9 * 3600; s <= T0 + 13 * 3600 && !refitAt; s += 600) {
      t.at(s);
      t.store.seed(TSPS(NS), { ...t.tsp(), status: {} });
      await t.reconciler.reconcile(t.key);
      if (t.fits() === 2) refitAt = s;
    }
    expect(refitAt - T0).to.be.above(0.8 * 12 * 3600).and.at.most(12 * 3600 + 600);
  });

  it('spec change: a new window is forecast at once, even while the old status still covers it', async () => {
    const t = setup();
    await t.reconciler.reconcile(t.key);
    const before = t.tsp();
    t.store.seed(TSPS(NS), { ...before, metadata: { ...before.metadata, generation: 2 }, spec: { ...before.spec, predictionWindowSeconds: 1800 } });
    t.at(T0 + 60);
    await t.reconciler.reconcile(t.key);
    const samples = t.tsp().status!.predictionMetrics![0]!.prediction![0]!.samples;
    expect(samples[samples.length - 1]!.timestamp).to.equal(T0 + 60 + 2 * 1800);
  });

  it('spec edits do not pile up forecasts: only those of the current spec stay cached', async () => {
    const t = setup();
    await t.reconciler.reconcile(t.key);
    expect(t.reconciler.cachedForecasts()).to.equal(1);
    const before = t.tsp();
    const metric = before.spec.predictionMetrics[0]!;
    for (const [generation, change] of [
      [2, { resourceQuery: 'memory' }],
      [3, { algorithm: { algorithmType: 'percentile' as const } }],
      [4, { resourceIdentifier: 'crane_pod_memory_usage' }],
    ] as const) {
      t.store.seed(TSPS(NS), { ...before, metadata: { ...before.metadata, generation }, spec: { ...before.spec, predictionMetrics: [{ ...metric, ...change }] } });
      await t.reconciler.reconcile(t.key);
      expect(t.reconciler.cachedForecasts(), `after generation ${generation}`).to.equal(1);
    }
    expect(t.fits()).to.equal(4);
  });

  it('a cancelled pass writes no status and leaves the cache as it was', async () => {
    const t = setup();
    let release: () => void = () => {};
    t.holdHistory(new Promise<void>((r) => (release = r)));
    const pass = t.reconciler.reconcile(t.key);
    await new Promise((r) => setImmediate(r));
    expect(t.signals.length).to.equal(1);
    expect(t.signals[0]?.aborted).to.equal(false);
    t.reconciler.cancel(t.key, 'the TimeSeriesPrediction was deleted');
    expect(t.signals[0]?.aborted).to.equal(true);
    release();
    expect(await pass).to.deep.equal({});
    expect(t.store.writes.length).to.equal(0);
    expect(t.reconciler.cachedForecasts()).to.equal(0);
    expect(t.fits()).to.equal(0);
  });

  it('stop: the pass in flight is cancelled and keys handed out while the queue drains do nothing', async () => {
    const t = setup();
    let release: () => void = () => {};
    t.holdHistory(new Promise<void>((r) => (release = r)));
    const pass = t.reconciler.reconcile(t.key);
    await new Promise((r) => setImmediate(r));
    t.reconciler.stop('the TimeSeriesPrediction controller is stopping');
    release();
    expect(await pass).to.deep.equal({});
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({});
    expect(t.queries.length).to.equal(1);
    expect(t.fits()).to.equal(0);
    expect(t.store.writes.length).to.equal(0);
  });

  it('Prometheus failing: Ready=False with the error, nothing thrown, the next try after it heals succeeds', async () => {
    const t = setup();
    t.failHistory(true);
    // Reported in the status, not thrown: the work queue brings the key back with its backoff.
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({ requeueWithBackoff: true });
    const ready = t.tsp().status!.conditions!.find((c) => c.type === 'Ready')!;
    expect(ready.status).to.equal('False');
    expect(ready.message).to.include('ECONNREFUSED');
    expect(t.tsp().status!.predictionMetrics![0]!.ready).to.equal(false);
    t.failHistory(false);
    t.at(T0 + 30);
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({ requeueAfterMs: 30_000 });
    expect(t.tsp().status!.conditions!.find((c) => c.type === 'Ready')!.status).to.equal('True');
  });

  it('a refit that keeps failing backs off: the update frequency doubled per failure, capped; the status stays as written', async () => {
    const t = setup();
    const c = queued(t, T0 + 1100);
    t.failHistory(true);
    // Queries by instant: a try at T0 (fails), T0+30 (first wait: the update frequency), then waits of
    // 60, 120, 240 s, then the cap of 10 update frequencies, 300 s (FAILURE_BACKOFF_MAX_FACTOR).
    await c.runUntilIdle();
    expect(FAILURE_BACKOFF_MAX_FACTOR).to.equal(10);
    expect(c.queriedAt).to.deep.equal([0, 30, 90, 210, 450, 750, 1050]);
    // Retries wrote nothing: one status write for the first failure, none after (same message).
    expect(t.store.writes.length).to.equal(1);
    expect(t.tsp().status!.conditions!.find((c) => c.type === 'Ready')!.message).to.include('ECONNREFUSED');
    // Healed: the next try, at the end of its wait, succeeds, and the key is back on the update frequency.
    t.failHistory(false);
    await c.runUntil(T0 + 1350);
    expect(c.queriedAt).to.deep.equal([0, 30, 90, 210, 450, 750, 1050, 1350]);
    expect(t.tsp().status!.conditions!.find((c) => c.type === 'Ready')!.status).to.equal('True');
    expect(c.queue.failuresOf(t.key)).to.equal(0);
    await c.stop();
  });

  it('a spec edit retries at once, whatever the backoff', async () => {
    const t = setup();
    const c = queued(t, T0 + 60);
    t.failHistory(true);
    await c.runUntilIdle();
    expect(c.queriedAt).to.deep.equal([0, 30]); // the next try waits until T0 + 90
    const own = t.tsp();
    const edited = t.store.seed(TSPS(NS), { ...own, metadata: { ...own.metadata, generation: 2 }, spec: { ...own.spec, predictionWindowSeconds: 1800 } });
    t.failHistory(false);
    await c.edit(edited);
    expect(c.queriedAt).to.deep.equal([0, 30, 60]);
    expect(t.tsp().status!.conditions!.find((c) => c.type === 'Ready')!.status).to.equal('True');
    await c.stop();
  });

  it('a spec edit also starts the backoff over (the wait already pending still stands)', async () => {
    const t = setup();
    const c = queued(t, T0 + 500);
    t.failHistory(true);
    await c.runUntilIdle();
    expect(c.queriedAt).to.deep.equal([0, 30, 90, 210, 450]);
    const own = t.tsp();
    await c.edit(t.store.seed(TSPS(NS), { ...own, metadata: { ...own.metadata, generation: 2 }, spec: { ...own.spec, predictionWindowSeconds: 1800 } }));
    await c.runUntil(T0 + 850);
    // Tried at the edit (500) and at the wait pending from before it (750); then one update frequency
    // doubled once (810), not the cap of 300 s the failures before the edit had reached.
    expect(c.queriedAt).to.deep.equal([0, 30, 90, 210, 450, 500, 750, 810]);
    await c.stop();
  });

  it('a history with no forecast in it (Crane finds no period) is not refitted at every pass', async () => {
    const t = setup();
    const c = queued(t, T0 + 240);
    t.findNothing(true);
    const fitsAt: number[] = [];
    c.afterPass((s) => {
      if (t.fits() > fitsAt.length) fitsAt.push(s);
      const ready = t.tsp().status!.conditions!.find((c) => c.type === 'Ready')!;
      expect(ready.status, `at +${s} s`).to.equal('False');
      expect(ready.message, `at +${s} s`).to.include('found no prediction');
    });
    await c.runUntilIdle();
    expect(fitsAt).to.deep.equal([0, 30, 90, 210]);
    expect(t.queries.length).to.equal(4);
    await c.stop();
  });

  it('a TSP with one metric failing: the working metric is kept fresh, the failing one retried no more often than that', async () => {
    const t = setup();
    const own = t.tsp();
    const metric = own.spec.predictionMetrics[0]!;
    // A 2-minute window: the working metric's status must be rewritten within 2 minutes, sooner than the backoff's 5.
    t.store.seed(TSPS(NS), { ...own, spec: { ...own.spec, predictionWindowSeconds: 120, predictionMetrics: [metric, { ...metric, resourceIdentifier: 'mem', resourceQuery: 'memory' }] } });
    t.failHistoryOf('memory');
    const c = queued(t, T0 + 1000);
    await c.runUntilIdle();
    // Waits of 30, 60, 120 s, then never more than the 2-minute window (not 240 and 300 s).
    expect(c.queriedAt).to.deep.equal([0, 30, 90, 210, 330, 450, 570, 690, 810, 930]);
    const st = t.tsp().status!;
    expect(st.predictionMetrics!.map((m) => m.ready)).to.deep.equal([true, false]);
    expect(st.predictionMetrics![0]!.prediction![0]!.samples[0]!.timestamp).to.equal(T0 + 930);
    await c.stop();
  });

  it("another namespace's target is refused: Ready=False naming the field, and no query leaves for Prometheus", async () => {
    const t = setup();
    const own = t.tsp();
    t.store.seed(TSPS(NS), { ...own, spec: { ...own.spec, targetRef: { ...own.spec.targetRef, namespace: 'victim' } } });
    await t.reconciler.reconcile(t.key);
    const ready = t.tsp().status!.conditions!.find((c) => c.type === 'Ready')!;
    expect(ready.status).to.equal('False');
    expect(ready.message).to.include('targetRef.namespace "victim" is not this TimeSeriesPrediction\'s namespace "shop"');
    expect(t.queries).to.deep.equal([]);
    expect(t.fits()).to.equal(0);
  });

  it('deletion: the cached forecasts of a deleted TSP are dropped and nothing is written', async () => {
    const t = setup();
    await t.reconciler.reconcile(t.key);
    expect(t.reconciler.cachedForecasts()).to.equal(1);
    const writes = t.store.writes.length;
    t.store.remove(`${TSPS(NS)}/ehpa-web`);
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({});
    expect(t.reconciler.cachedForecasts()).to.equal(0);
    expect(t.store.writes.length).to.equal(writes);
  });
});
