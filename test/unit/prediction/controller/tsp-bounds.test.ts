// The TSP controller's share of the bounds (docs/security.md §2) for objects stored before the CRD had
// them: a spec over a bound gets Ready=False/InvalidSpec and a Warning event with the field, and nothing is
// queried or fitted; a query returning too many series, or a status too large to store, fails alone; user
// PromQL is confined to the TSP's namespace.
import { expect } from 'chai';
import { pino } from 'pino';
import { TspReconciler } from '../../../../src/prediction/controller/tsp-reconciler.ts';
import type { Forecaster } from '../../../../src/prediction/controller/forecaster.ts';
import type { HistoryProvider, HistorySeries, QueryRangeOptions } from '../../../../src/prometheus/series.ts';
import { StatusWriter } from '../../../../src/kube/status-writer.ts';
import { resourcePath } from '../../../../src/kube/api-client.ts';
import type { PredictionMetricSpec, TimeSeriesPrediction } from '../../../../src/api/prediction.ts';
import { BOUNDS } from '../../../../src/api/bounds.ts';
import { InMemoryObjects } from '../../../helpers/in-memory-objects.ts';

const NS = 'mallory';
const TSPS = (ns: string) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns);
const T0 = 1_800_000_000;

function setup(spec: Partial<TimeSeriesPrediction['spec']>, seriesCount = 1) {
  const store = new InMemoryObjects();
  store.seed(TSPS(NS), {
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: { name: 't', namespace: NS, generation: 1 },
    spec: { targetRef: { kind: 'Deployment', name: 'web' }, predictionWindowSeconds: 3600, predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'cpu' }], ...spec },
  });
  const calls: { query: string; options?: QueryRangeOptions }[] = [];
  const history: HistoryProvider = {
    async queryRange(query, startS, endS, stepS, options) {
      calls.push({ query, ...(options ? { options } : {}) });
      const timestamps: number[] = [];
      for (let t = startS; t <= endS; t += stepS) timestamps.push(t);
      return Array.from({ length: seriesCount }, (_, i) => ({ labels: { pod: `p${i}` }, timestamps, values: timestamps.map(() => 1) }));
    },
  };
  const forecaster: Forecaster = {
    historyWindow: () => ({ lengthSeconds: 86_400, stepSeconds: 60 }),
    forecast(h, _a, w): HistorySeries[] {
      return h.map((s) => {
        const timestamps: number[] = [];
        for (let t = w.nowS; t <= w.nowS + w.horizonSeconds; t += 60) timestamps.push(t);
        return { labels: s.labels, timestamps, values: timestamps.map(() => 2) };
      });
    },
  };
  const events: string[] = [];
  const reconciler = new TspReconciler({
    tsps: store.cache<TimeSeriesPrediction>(TSPS),
    history,
    forecaster,
    status: new StatusWriter(store),
    log: pino({ level: 'silent' }),
    now: () => T0 * 1000,
    updateFrequencyMs: 30_000,
    modelUpdateIntervalMs: 12 * 3_600_000,
    events: { event: (_o, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
  });
  const ready = () => store.read<TimeSeriesPrediction>(`${TSPS(NS)}/t`)!.status?.conditions?.find((c) => c.type === 'Ready');
  return { reconciler, calls, events, ready, store };
}

describe('TspReconciler: bounds for stored objects', () => {
  it('refuses a spec over a bound with InvalidSpec and an event naming the field; queries and fits nothing; no retry until edited', async () => {
    const s = setup({ predictionWindowSeconds: 2_147_483_647 });
    expect(await s.reconciler.reconcile(`${NS}/t`)).to.deep.equal({});
    expect(s.calls).to.have.length(0);
    expect(s.ready()).to.include({ status: 'False', reason: 'InvalidSpec' });
    expect(s.ready()?.message).to.equal('spec.predictionWindowSeconds is 2147483647; it must be a whole number from 1 to 86400');
    expect(s.events).to.deep.equal(['Warning InvalidSpec: spec.predictionWindowSeconds is 2147483647; it must be a whole number from 1 to 86400']);
    // Same generation again: nothing more is done (no status write loop, no event storm).
    await s.reconciler.reconcile(`${NS}/t`);
    expect(s.events).to.have.length(1);
  });
  it("refuses the review's 1ns sample interval in a metric's algorithm", async () => {
    const metric: PredictionMetricSpec = { resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '1ns', historyLength: '15d' } } };
    const s = setup({ predictionMetrics: [metric] });
    await s.reconciler.reconcile(`${NS}/t`);
    expect(s.calls).to.have.length(0);
    expect(s.ready()?.message).to.match(/^spec\.predictionMetrics\[0\]\.algorithm\.dsp\.sampleInterval is 1e-9s/);
  });
  it('asks the history provider for at most BOUNDS.seriesPerQuery series', async () => {
    const s = setup({});
    await s.reconciler.reconcile(`${NS}/t`);
    expect(s.calls[0]?.options?.maxSeries).to.equal(BOUNDS.seriesPerQuery);
  });
  it('confines an expressionQuery to the TSP namespace and refuses one reaching into another', async () => {
    const s = setup({ predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ExpressionQuery', expressionQuery: { expression: 'sum(rate(x[1m]))' } }] });
    await s.reconciler.reconcile(`${NS}/t`);
    expect(s.calls.map((c) => c.query)).to.deep.equal(['sum(rate(x{namespace="mallory"}[1m]))']);
    const t = setup({ predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ExpressionQuery', expressionQuery: { expression: 'sum(x{namespace="victim"})' } }] });
    await t.reconciler.reconcile(`${NS}/t`);
    expect(t.calls).to.have.length(0);
    expect(t.ready()).to.include({ status: 'False', reason: 'PredictFailed' });
    expect(t.ready()?.message).to.contain('namespace');
  });
  it('refuses a status over BOUNDS.statusSamples (many series × a day window) instead of writing it', async () => {
    // 20 series × (2 × 86,400 s / 60 s + 1) samples in the written range exceeds 20,000.
    const s = setup({ predictionWindowSeconds: 86_400 }, 20);
    await s.reconciler.reconcile(`${NS}/t`);
    expect(s.ready()).to.include({ status: 'False', reason: 'InvalidSpec' });
    expect(s.ready()?.message).to.match(/samples, more than the 20000 one TimeSeriesPrediction status may hold/);
    expect(s.store.read<TimeSeriesPrediction>(`${TSPS(NS)}/t`)!.status?.predictionMetrics).to.deep.equal([]);
    // A few series fit.
    const ok = setup({ predictionWindowSeconds: 86_400 }, 2);
    await ok.reconciler.reconcile(`${NS}/t`);
    expect(ok.ready()).to.include({ status: 'True' });
  });
});

describe('TspReconciler: the status-size bound before any fit', () => {
  const WINDOW_12H = 43_200;
  /** A TSP with `metrics` metrics whose every query answers `seriesCount` series; counts queries and fitted series. */
  function counted(o: { seriesCount: number; window: number; metrics?: PredictionMetricSpec[]; failedWrites?: number }) {
    const store = new InMemoryObjects();
    const metrics = o.metrics ?? [{ resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'cpu' }];
    store.seed(TSPS(NS), {
      apiVersion: 'prediction.crane.io/v1alpha1',
      kind: 'TimeSeriesPrediction',
      metadata: { name: 't', namespace: NS, generation: 1 },
      spec: { targetRef: { kind: 'Deployment', name: 'web' }, predictionWindowSeconds: o.window, predictionMetrics: metrics },
    });
    const count = { queries: 0, forecastCalls: 0, fittedSeries: 0 };
    const history: HistoryProvider = {
      async queryRange(_query, startS, endS, stepS) {
        count.queries++;
        const timestamps: number[] = [];
        for (let t = startS; t <= endS; t += stepS) timestamps.push(t);
        return Array.from({ length: o.seriesCount }, (_, i) => ({ labels: { pod: `p${i}` }, timestamps, values: timestamps.map(() => 1) }));
      },
    };
    const forecaster: Forecaster = {
      historyWindow: () => ({ lengthSeconds: 86_400, stepSeconds: 60 }),
      forecast(h, _a, w): HistorySeries[] {
        count.forecastCalls++;
        count.fittedSeries += h.length;
        // As the real forecasters do: a grid after the history's last sample (now, a whole minute here).
        return h.map((s) => {
          const timestamps: number[] = [];
          for (let t = w.nowS + 60; t <= w.nowS + w.horizonSeconds; t += 60) timestamps.push(t);
          return { labels: s.labels, timestamps, values: timestamps.map(() => 2) };
        });
      },
    };
    let nowS = T0;
    const events: string[] = [];
    const writer = new StatusWriter(store);
    let failedWrites = o.failedWrites ?? 0;
    const reconciler = new TspReconciler({
      tsps: store.cache<TimeSeriesPrediction>(TSPS),
      history,
      forecaster,
      status: {
        update: ((...args: Parameters<StatusWriter['update']>) => {
          if (failedWrites-- > 0) return Promise.reject(new Error('the apiserver is unavailable'));
          return writer.update(...args);
        }) as StatusWriter['update'],
      },
      log: pino({ level: 'silent' }),
      now: () => nowS * 1000,
      updateFrequencyMs: 30_000,
      modelUpdateIntervalMs: 12 * 3_600_000,
      events: { event: (_o, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
    });
    const path = `${TSPS(NS)}/t`;
    const tsp = () => store.read<TimeSeriesPrediction>(path)!;
    return {
      count,
      events,
      tsp,
      ready: () => tsp().status?.conditions?.find((c) => c.type === 'Ready'),
      reconcile: () => reconciler.reconcile(`${NS}/t`),
      advance: (seconds: number) => (nowS += seconds),
      editSpec: (spec: Partial<TimeSeriesPrediction['spec']>) => store.replace(path, { ...tsp(), spec: { ...tsp().spec, ...spec } }),
    };
  }

  it('100 series × 1,440 samples (a 12 h window at 60 s): refused after one query and no fit, the condition naming the numbers; a resync queries nothing; a spec edit does', async () => {
    const s = counted({ seriesCount: 100, window: WINDOW_12H });
    // The long retry: --model-update-interval (12 h here).
    expect(await s.reconcile()).to.deep.equal({ requeueAfterMs: 12 * 3_600_000 });
    expect(s.count).to.deep.equal({ queries: 1, forecastCalls: 0, fittedSeries: 0 });
    expect(s.ready()).to.include({ status: 'False', reason: 'InvalidSpec' });
    expect(s.ready()?.message).to.equal(
      'spec.predictionMetrics[0] (cpu): the query returns 100 series × 1440 forecast samples each (2 × predictionWindowSeconds 43200 / sample interval 60s) = 144000 samples, ' +
        'more than the 20000 one TimeSeriesPrediction status may hold; nothing was fitted for it; aggregate the query to fewer series, shorten predictionWindowSeconds or lengthen the sample interval; ' +
        'tried again when the spec changes, or in 12h',
    );
    expect(s.tsp().status?.predictionMetrics).to.deep.equal([]);
    expect(s.events).to.have.length(1);
    // Resyncs: at once, and past the longest failure backoff (5 min): nothing queried, fitted or written again.
    const rv = s.tsp().metadata.resourceVersion;
    expect(await s.reconcile()).to.deep.equal({ requeueAfterMs: 12 * 3_600_000 });
    s.advance(600);
    expect(await s.reconcile()).to.deep.equal({ requeueAfterMs: 12 * 3_600_000 - 600_000 });
    expect(s.count).to.deep.equal({ queries: 1, forecastCalls: 0, fittedSeries: 0 });
    expect(s.tsp().metadata.resourceVersion).to.equal(rv);
    expect(s.events).to.have.length(1);
    // A spec edit (a 1 h window: 100 × 120 = 12,000 samples) queries again at once, and now fits.
    await s.editSpec({ predictionWindowSeconds: 3600 });
    await s.reconcile();
    expect(s.count).to.deep.equal({ queries: 2, forecastCalls: 1, fittedSeries: 100 });
    expect(s.ready()).to.include({ status: 'True' });
  });

  it('an unchanged refused TSP is tried again after the model update interval (its series count may have fallen), and refused again with one query', async () => {
    const s = counted({ seriesCount: 100, window: WINDOW_12H });
    await s.reconcile();
    s.advance(12 * 3600 - 1);
    await s.reconcile();
    expect(s.count.queries).to.equal(1);
    s.advance(1);
    expect(await s.reconcile()).to.deep.equal({ requeueAfterMs: 12 * 3_600_000 });
    expect(s.count).to.deep.equal({ queries: 2, forecastCalls: 0, fittedSeries: 0 });
    expect(s.ready()).to.include({ status: 'False', reason: 'InvalidSpec' });
  });

  it('16 metrics × 100 series: stops at the first metric that overruns (the second), with 100 series fitted instead of 1,600 and 2 queries instead of 16', async () => {
    const metrics: PredictionMetricSpec[] = Array.from({ length: 16 }, (_, i) => ({ resourceIdentifier: `m${i}`, type: 'ExpressionQuery', expressionQuery: { expression: `sum by (pod) (rate(x${i}[1m]))` } }));
    const s = counted({ seriesCount: 100, window: 3600, metrics });
    await s.reconcile();
    expect(s.count).to.deep.equal({ queries: 2, forecastCalls: 1, fittedSeries: 100 });
    expect(s.ready()?.message).to.match(
      /^spec\.predictionMetrics\[1\] \(m1\): the query returns 100 series × 120 forecast samples each .* \+ 12000 held by the metrics before it = 24000 samples, more than the 20000 /,
    );
    await s.reconcile();
    expect(s.count.queries).to.equal(2);
  });

  it('the check after the fits still holds a forecaster that gives more samples than its grid allows (one on each end), and that refusal waits as long', async () => {
    // 16 × 1,250 = 20,000 expected passes the check before the fit; this forecaster gives 1,251 a series.
    const s = setup({ predictionWindowSeconds: 37_500 }, 16);
    expect(await s.reconciler.reconcile(`${NS}/t`)).to.deep.equal({ requeueAfterMs: 12 * 3_600_000 });
    expect(s.ready()?.message).to.match(/^the forecast has 20016 samples, more than the 20000 .*; tried again when the spec changes, or in 12h$/);
    await s.reconciler.reconcile(`${NS}/t`);
    expect(s.calls).to.have.length(1);
  });

  it('a refusal whose condition could not be written is tried again at the next pass, not 12 h later', async () => {
    const s = counted({ seriesCount: 100, window: WINDOW_12H, failedWrites: 1 });
    const first = await s.reconcile().then(() => null, (e: Error) => e.message);
    expect(first).to.equal('the apiserver is unavailable');
    expect(s.ready()).to.equal(undefined);
    await s.reconcile();
    expect(s.count).to.deep.equal({ queries: 2, forecastCalls: 0, fittedSeries: 0 });
    expect(s.ready()).to.include({ status: 'False', reason: 'InvalidSpec' });
    await s.reconcile();
    expect(s.count.queries).to.equal(2);
  });

  it("counts an aggregated percentile metric's query as the one series it fits", async () => {
    const metrics: PredictionMetricSpec[] = [{ resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm: { algorithmType: 'percentile', percentile: { aggregated: true } } }];
    const s = counted({ seriesCount: 100, window: WINDOW_12H, metrics });
    await s.reconcile();
    expect(s.count).to.deep.equal({ queries: 1, forecastCalls: 1, fittedSeries: 1 });
    expect(s.ready()).to.include({ status: 'True' });
  });
});
