// auto mode's calibration wired into the TSP controller: the Calibrated condition's content (pure, and
// through TspReconciler with in-memory seams), the coverage annotation reaching the forecaster (and refused
// like the other bounds when invalid), and the realized-coverage series on /metrics computed from the
// history each refit reads, removed with the TSP.
import { expect } from 'chai';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { TspReconciler } from '../../../../src/prediction/controller/tsp-reconciler.ts';
import { createTspController } from '../../../../src/prediction/controller/tsp-controller.ts';
import type { SharedInformer } from '../../../../src/kube/informers.ts';
import type { ForecastSeries, ForecastWindow, Forecaster } from '../../../../src/prediction/controller/forecaster.ts';
import { calibratedCondition, type MetricCalibration } from '../../../../src/prediction/controller/calibration-status.ts';
import { registerCoverageMetrics } from '../../../../src/prediction/controller/coverage-metrics.ts';
import { COVERAGE_ANNOTATION } from '../../../../src/prediction/coverage-annotation.ts';
import type { CalibrationSummary } from '../../../../src/prediction/dsp/window-calibration.ts';
import type { HistoryProvider } from '../../../../src/prometheus/series.ts';
import { StatusWriter } from '../../../../src/kube/status-writer.ts';
import { resourcePath } from '../../../../src/kube/api-client.ts';
import type { PredictionAlgorithm, TimeSeriesPrediction } from '../../../../src/api/prediction.ts';
import { InMemoryObjects } from '../../../helpers/in-memory-objects.ts';

const NS = 'shop';
const TSPS = (ns: string) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns);
const T0 = 1_800_000_000;
const HOUR = 3600;

const summary = (o: Partial<CalibrationSummary> = {}): CalibrationSummary => ({
  method: 'max(model, recent max)',
  multiplier: 1.08251,
  target: 0.9,
  windowSeconds: 3600,
  backtestCoverage: 0.9523,
  backtestSlack: 0.1213,
  backtestWindows: 480,
  exact: true,
  candidates: [],
  ...o,
});

describe('Calibrated condition (pure)', () => {
  const auto = (series: MetricCalibration['series'], error?: string): MetricCalibration => ({ resourceIdentifier: 'crane_pod_cpu_usage', auto: true, series, ...(error ? { error } : {}) });
  const crane: MetricCalibration = { resourceIdentifier: 'crane_pod_cpu_usage', auto: false, series: [{}] };
  const o = { target: 0.9, windowSeconds: 3600, annotated: false };

  it('crane mode (or percentile) without the annotation: no condition, so the status is Crane’s', () => {
    expect(calibratedCondition([crane], o)).to.equal(undefined);
    expect(calibratedCondition([], o)).to.equal(undefined);
  });

  it('crane mode with the annotation: False/NotApplicable', () => {
    expect(calibratedCondition([crane], { ...o, annotated: true })).to.deep.equal({
      type: 'Calibrated',
      status: 'False',
      reason: 'NotApplicable',
      message: 'the coverage annotation has no effect: no metric runs auto mode (Crane estimators listed, or percentile)',
    });
  });

  it('every auto series calibrated: True with the target, method, multiplier and backtest coverage', () => {
    expect(calibratedCondition([auto([{ calibration: summary() }])], o)).to.deep.equal({
      type: 'Calibrated',
      status: 'True',
      reason: 'CoverageCalibrated',
      message: 'target 90.0% over 3600s windows; crane_pod_cpu_usage: max(model, recent max) × 1.083, backtest coverage 95.2% (slack 12.1%) on 480 windows',
    });
  });

  it('several series: ranges; the realized coverage appended once windows were judged', () => {
    const c = calibratedCondition([auto([{ calibration: summary() }, { calibration: summary({ method: 'recent max', multiplier: 1.31, backtestCoverage: 0.931 }) }])], {
      ...o,
      realized: { windows: 96, covered: 90 },
    });
    expect(c?.message).to.equal(
      'target 90.0% over 3600s windows; crane_pod_cpu_usage: 2 series, × 1.083–1.31, backtest coverage 93.1%–95.2% (methods: max(model, recent max), recent max); realized coverage over the last day 93.8% of 96 windows',
    );
  });

  it('an auto series left uncalibrated, or no forecast: False/NotCalibrated with the reason', () => {
    const c = calibratedCondition([auto([{ calibration: summary() }, { note: 'too little history to calibrate the window maximum: uncalibrated' }])], o);
    expect(c).to.include({ status: 'False', reason: 'NotCalibrated' });
    expect(c?.message).to.equal('target 90.0% over 3600s windows; crane_pod_cpu_usage: not calibrated: too little history to calibrate the window maximum: uncalibrated');
    expect(calibratedCondition([auto([], 'no history returned by the query')], o)?.message).to.equal('target 90.0% over 3600s windows; crane_pod_cpu_usage: not calibrated: no history returned by the query');
  });

  it('keeps the message within 1024 characters', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ ...auto([{ note: 'x'.repeat(40) }]), resourceIdentifier: `metric-${i}` }));
    expect(calibratedCondition(many, o)!.message.length).to.equal(1024);
  });
});

const AUTO: PredictionAlgorithm = { algorithmType: 'dsp' };
const CRANE: PredictionAlgorithm = { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d', estimators: { maxValue: [{ marginFraction: '0.1' }] } } };

function setup(o: { algorithm: PredictionAlgorithm; annotations?: Record<string, string>; actual?: (t: number) => number }) {
  const store = new InMemoryObjects();
  store.seed(TSPS(NS), {
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: { name: 'ehpa-web', namespace: NS, generation: 1, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      targetRef: { kind: 'Deployment', name: 'web', namespace: NS },
      predictionWindowSeconds: HOUR,
      predictionMetrics: [{ resourceIdentifier: 'crane_pod_cpu_usage', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm: o.algorithm }],
    },
  } satisfies TimeSeriesPrediction);
  let nowS = T0;
  let historyReads = 0;
  const history: HistoryProvider = {
    async queryRange(_q, startS, endS, stepS) {
      historyReads++;
      const timestamps: number[] = [];
      for (let t = startS; t <= endS; t += stepS) timestamps.push(t);
      return [{ labels: {}, timestamps, values: timestamps.map(o.actual ?? (() => 1.5)) }];
    },
  };
  const windows: ForecastWindow[] = [];
  const tenants: (string | undefined)[] = [];
  // A flat forecast of 2 over two days (so one forecast stays in force until the model update interval),
  // calibrated in auto mode as the real core reports it.
  const forecaster: Forecaster = {
    historyWindow: () => ({ lengthSeconds: 3 * 86_400, stepSeconds: 60 }),
    forecast(_h, a, w, options): ForecastSeries[] {
      windows.push(w);
      tenants.push(options?.tenant);
      const timestamps: number[] = [];
      for (let t = w.nowS; t <= w.nowS + 2 * 86_400; t += 60) timestamps.push(t);
      const calibrated = !a.dsp?.estimators;
      return [{ labels: {}, timestamps, values: timestamps.map(() => 2), ...(calibrated ? { calibration: summary({ target: w.coverage ?? NaN, windowSeconds: w.coverageWindowSeconds ?? NaN }) } : {}) }];
    },
  };
  const events: string[] = [];
  // One replica's reconciler and /metrics; `newLeader` is another replica taking over the same objects.
  const replica = () => {
    const registry = new Registry();
    const reconciler = new TspReconciler({
      tsps: store.cache<TimeSeriesPrediction>(TSPS),
      history,
      forecaster,
      status: new StatusWriter(store),
      log: pino({ level: 'silent' }),
      now: () => nowS * 1000,
      updateFrequencyMs: 30_000,
      modelUpdateIntervalMs: 12 * HOUR * 1000,
      events: { event: (_o, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
      coverageMetrics: registerCoverageMetrics(registry),
    });
    const gauge = async (name: string) => (await registry.getSingleMetric(`ehpa_adapter_${name}`)!.get()).values.map((v) => ({ labels: v.labels, value: v.value }));
    return { reconciler, gauge };
  };
  const { reconciler, gauge } = replica();
  const tsp = () => store.read<TimeSeriesPrediction>(`${TSPS(NS)}/ehpa-web`)!;
  return { store, reconciler, tsp, windows, tenants, events, gauge, newLeader: replica, at: (s: number) => (nowS = s), reads: () => historyReads, key: `${NS}/ehpa-web` };
}

const condition = (t: TimeSeriesPrediction, type: string) => t.status?.conditions?.find((c) => c.type === type);
const LABELS = { namespace: NS, name: 'ehpa-web' };

describe('TspReconciler: calibration and realized coverage', () => {
  it('auto mode: the forecaster is asked for the default target over the TSP window; Calibrated=True says what it chose', async () => {
    const t = setup({ algorithm: AUTO });
    await t.reconciler.reconcile(t.key);
    expect(t.windows[0]).to.deep.include({ coverage: 0.9, coverageWindowSeconds: HOUR });
    // The fit waits its namespace's turn where fits share workers (fair-queue.ts).
    expect(t.tenants).to.deep.equal([NS]);
    const st = t.tsp().status!;
    expect(st.conditions!.map((c) => c.type)).to.deep.equal(['Ready', 'Calibrated', 'PredictionPays']);
    expect(condition(t.tsp(), 'Calibrated')).to.include({
      status: 'True',
      reason: 'CoverageCalibrated',
      message: 'target 90.0% over 3600s windows; crane_pod_cpu_usage: max(model, recent max) × 1.083, backtest coverage 95.2% (slack 12.1%) on 480 windows',
    });
    expect(await t.gauge('prediction_coverage_target')).to.deep.equal([{ labels: LABELS, value: 0.9 }]);
    // Nothing published before this forecast: nothing to judge yet.
    expect(await t.gauge('prediction_realized_coverage')).to.deep.equal([]);
  });

  it('the annotation sets the target; editing it (metadata only, same generation) refits at once', async () => {
    const t = setup({ algorithm: AUTO, annotations: { [COVERAGE_ANNOTATION]: '0.95' } });
    await t.reconciler.reconcile(t.key);
    expect(t.windows.map((w) => w.coverage)).to.deep.equal([0.95]);
    expect(condition(t.tsp(), 'Calibrated')?.message).to.match(/^target 95\.0% over 3600s windows/);
    const edited = t.tsp();
    edited.metadata.annotations = { [COVERAGE_ANNOTATION]: '0.8' };
    t.store.seed(TSPS(NS), edited);
    t.at(T0 + 60);
    await t.reconciler.reconcile(t.key);
    expect(t.windows.map((w) => w.coverage)).to.deep.equal([0.95, 0.8]);
    expect(await t.gauge('prediction_coverage_target')).to.deep.equal([{ labels: LABELS, value: 0.8 }]);
  });

  it('a new leader that trusts the status a previous one wrote (no refit) exports its coverage target at once, and no realized coverage yet', async () => {
    const t = setup({ algorithm: AUTO, annotations: { [COVERAGE_ANNOTATION]: '0.95' } });
    await t.reconciler.reconcile(t.key);
    expect(t.windows).to.have.length(1);
    const next = t.newLeader();
    t.at(T0 + 60);
    await next.reconciler.reconcile(t.key);
    expect(t.windows, 'the status still covers its window: not refitted').to.have.length(1);
    expect(await next.gauge('prediction_coverage_target')).to.deep.equal([{ labels: LABELS, value: 0.95 }]);
    expect(await next.gauge('prediction_realized_coverage')).to.deep.equal([]);
  });

  it('a new leader trusting a crane-mode status exports no coverage target', async () => {
    const t = setup({ algorithm: CRANE });
    await t.reconciler.reconcile(t.key);
    const next = t.newLeader();
    t.at(T0 + 60);
    await next.reconciler.reconcile(t.key);
    expect(t.windows).to.have.length(1);
    expect(await next.gauge('prediction_coverage_target')).to.deep.equal([]);
  });

  it('an invalid annotation: Ready=False/InvalidSpec and a Warning event, nothing fitted, no series', async () => {
    const t = setup({ algorithm: AUTO, annotations: { [COVERAGE_ANNOTATION]: '1.5' } });
    await t.reconciler.reconcile(t.key);
    const problem = `annotation ${COVERAGE_ANNOTATION} is "1.5"; it must be a number strictly between 0 and 1 (e.g. "0.95")`;
    expect(condition(t.tsp(), 'Ready')).to.include({ status: 'False', reason: 'InvalidSpec', message: problem });
    expect(condition(t.tsp(), 'Calibrated')).to.equal(undefined);
    expect(t.events).to.deep.equal([`Warning InvalidSpec: ${problem}`]);
    expect(t.windows).to.have.length(0);
    expect(t.reads()).to.equal(0);
    expect(await t.gauge('prediction_coverage_target')).to.deep.equal([]);
  });

  it('crane mode: no Calibrated condition (status as Crane writes it), no target; with the annotation, NotApplicable', async () => {
    const t = setup({ algorithm: CRANE });
    await t.reconciler.reconcile(t.key);
    expect(t.tsp().status!.conditions!.map((c) => c.type)).to.deep.equal(['Ready']);
    expect(await t.gauge('prediction_coverage_target')).to.deep.equal([]);
    const a = setup({ algorithm: CRANE, annotations: { [COVERAGE_ANNOTATION]: '0.95' } });
    await a.reconciler.reconcile(a.key);
    expect(condition(a.tsp(), 'Calibrated')).to.include({ status: 'False', reason: 'NotApplicable' });
  });

  it('realized coverage: the next refit judges the published forecast against the history it reads; removed with the TSP', async () => {
    // Load 1.5 under a forecast of 2, except a peak of 3 at T0 + 2 h.
    const t = setup({ algorithm: AUTO, actual: (s) => (s === T0 + 2 * HOUR ? 3 : 1.5) });
    await t.reconciler.reconcile(t.key);
    t.at(T0 + 13 * HOUR); // past the 12 h model update interval: a refit, one history read
    await t.reconciler.reconcile(t.key);
    expect(t.reads()).to.equal(2);
    // Instants every 15 min from T0 (the forecast's start) to T0 + 12 h: 49; the 4 whose hour holds the peak miss.
    expect(await t.gauge('prediction_realized_coverage_windows')).to.deep.equal([{ labels: LABELS, value: 49 }]);
    expect(await t.gauge('prediction_realized_coverage')).to.deep.equal([{ labels: LABELS, value: 45 / 49 }]);
    expect(condition(t.tsp(), 'Calibrated')?.message).to.match(/; realized coverage over the last day 91\.8% of 49 windows$/);
    t.store.remove(`${TSPS(NS)}/ehpa-web`);
    await t.reconciler.reconcile(t.key);
    for (const g of ['prediction_realized_coverage', 'prediction_realized_coverage_windows', 'prediction_coverage_target']) expect(await t.gauge(g), g).to.deep.equal([]);
  });

  it('crane mode is judged too (the metric is about any published forecast)', async () => {
    const t = setup({ algorithm: CRANE });
    await t.reconciler.reconcile(t.key);
    t.at(T0 + 13 * HOUR);
    await t.reconciler.reconcile(t.key);
    expect(await t.gauge('prediction_realized_coverage')).to.deep.equal([{ labels: LABELS, value: 1 }]);
    expect(t.tsp().status!.conditions!.map((c) => c.type)).to.deep.equal(['Ready']);
  });
});

describe('TSP controller: the coverage annotation is part of the spec', () => {
  it('a status write or another annotation (same generation, same coverage) queues nothing; a coverage edit or removal queues and cancels the pass in flight', async () => {
    const reconciled: string[] = [];
    const cancelled: string[] = [];
    const reconciler = { reconcile: async (k: string) => (reconciled.push(k), {}), cancel: (k: string) => cancelled.push(k) } as unknown as TspReconciler;
    const handlers: ((t: TimeSeriesPrediction) => void)[] = [];
    const on = (h: never) => {
      handlers.push(h);
      return () => handlers.splice(handlers.indexOf(h), 1);
    };
    const informer = { onAdd: on, onUpdate: on, onDelete: () => () => undefined } as unknown as SharedInformer<TimeSeriesPrediction>;
    const runner = createTspController({ reconciler, tsps: informer, workers: 1, log: pino({ level: 'silent' }) });
    const obj = (annotations?: Record<string, string>): TimeSeriesPrediction => ({
      apiVersion: 'prediction.crane.io/v1alpha1',
      kind: 'TimeSeriesPrediction',
      metadata: { name: 'ehpa-web', namespace: NS, generation: 3, ...(annotations ? { annotations } : {}) },
      spec: { targetRef: { kind: 'Deployment', name: 'web' }, predictionWindowSeconds: HOUR, predictionMetrics: [] },
    });
    const fire = (t: TimeSeriesPrediction) => handlers.forEach((h) => h(t));
    const settled = async (n: number) => {
      const deadline = Date.now() + 5_000;
      while (reconciled.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(reconciled.length).to.equal(n);
    };
    runner.start();
    try {
      fire(obj());
      await settled(1);
      // The handler decides synchronously: a change of spec cancels the key's pass, a status write does not.
      fire(obj()); // our own status write
      expect(cancelled).to.deep.equal([]);
      fire(obj({ [COVERAGE_ANNOTATION]: '0.95' }));
      expect(cancelled).to.deep.equal([`${NS}/ehpa-web`]);
      await settled(2);
      fire(obj({ [COVERAGE_ANNOTATION]: '0.95' }));
      fire(obj({ [COVERAGE_ANNOTATION]: '0.95', unrelated: 'x' }));
      expect(cancelled).to.have.length(1);
      fire(obj());
      expect(cancelled).to.have.length(2);
      await settled(3);
    } finally {
      await runner.stop();
    }
  });
});
