// auto mode's "does the forecast pay" wired into the TSP controller: the verdict the forecaster reports
// (value-replay.ts) becomes the metric's stepAside, the PredictionPays condition and gauge; the accepted
// extra cost reaches the forecaster from the annotation (refused when invalid) or the serve flag.
import { expect } from 'chai';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { TspReconciler } from '../../../../src/prediction/controller/tsp-reconciler.ts';
import type { ForecastSeries, ForecastWindow, Forecaster } from '../../../../src/prediction/controller/forecaster.ts';
import { paysCondition } from '../../../../src/prediction/controller/calibration-status.ts';
import { registerCoverageMetrics } from '../../../../src/prediction/controller/coverage-metrics.ts';
import { ACCEPT_EXTRA_COST_ANNOTATION } from '../../../../src/prediction/coverage-annotation.ts';
import type { CalibrationSummary } from '../../../../src/prediction/dsp/window-calibration.ts';
import type { ValueVerdict } from '../../../../src/prediction/dsp/value-replay.ts';
import type { HistoryProvider } from '../../../../src/prometheus/series.ts';
import { StatusWriter } from '../../../../src/kube/status-writer.ts';
import { resourcePath } from '../../../../src/kube/api-client.ts';
import type { PredictionAlgorithm, TimeSeriesPrediction } from '../../../../src/api/prediction.ts';
import { InMemoryObjects } from '../../../helpers/in-memory-objects.ts';

const NS = 'shop';
const TSPS = (ns: string) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns);
const T0 = 1_800_000_000;

const verdict = (pays: boolean): ValueVerdict => ({
  pays,
  hours: 160,
  ehpa: { shortMinutes: pays ? 10 : 300, capacityHours: 1200 },
  plain: { shortMinutes: 2000, capacityHours: 900 },
  plainShortAtSameCost: pays ? 40 : 120,
  reason: pays ? 'with the forecast the HPA was short 10 min at 1.33× the plain HPA\'s capacity' : 'with the forecast the HPA was short 300 min at 1.33×, where a plain HPA of the same cost is short 120 min',
});
const summary = (value?: ValueVerdict): CalibrationSummary => ({
  method: 'recent max', multiplier: 1.2, target: 0.9, windowSeconds: 3600, backtestCoverage: 0.95, backtestSlack: 0.2, backtestWindows: 500, exact: true, candidates: [],
  ...(value ? { value } : {}),
});

function setup(o: { algorithm?: PredictionAlgorithm; pays?: boolean; annotations?: Record<string, string>; flag?: number; observe?: boolean }) {
  const store = new InMemoryObjects();
  store.seed(TSPS(NS), {
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: { name: 'ehpa-web', namespace: NS, generation: 1, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      targetRef: { kind: 'Deployment', name: 'web', namespace: NS },
      predictionWindowSeconds: 3600,
      predictionMetrics: [{ resourceIdentifier: 'crane_pod_cpu_usage', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm: o.algorithm ?? { algorithmType: 'dsp' } }],
    },
  } satisfies TimeSeriesPrediction);
  const history: HistoryProvider = {
    async queryRange(_q, startS, endS, stepS) {
      const timestamps: number[] = [];
      for (let t = startS; t <= endS; t += stepS) timestamps.push(t);
      return [{ labels: {}, timestamps, values: timestamps.map(() => 1.5) }];
    },
  };
  const windows: ForecastWindow[] = [];
  const forecaster: Forecaster = {
    historyWindow: () => ({ lengthSeconds: 3 * 86_400, stepSeconds: 60 }),
    forecast(_h, a, w): ForecastSeries[] {
      windows.push(w);
      const timestamps: number[] = [];
      for (let t = w.nowS; t <= w.nowS + 2 * 3600; t += 60) timestamps.push(t);
      const auto = !a.dsp?.estimators;
      return [{ labels: {}, timestamps, values: timestamps.map(() => 2), ...(auto ? { calibration: summary(o.pays === undefined ? undefined : verdict(o.pays)) } : {}) }];
    },
  };
  const registry = new Registry();
  const reconciler = new TspReconciler({
    tsps: store.cache<TimeSeriesPrediction>(TSPS),
    history,
    forecaster,
    status: new StatusWriter(store),
    log: pino({ level: 'silent' }),
    now: () => T0 * 1000,
    updateFrequencyMs: 30_000,
    modelUpdateIntervalMs: 12 * 3600 * 1000,
    coverageMetrics: registerCoverageMetrics(registry),
    ...(o.flag !== undefined ? { acceptExtraCost: o.flag } : {}),
    ...(o.observe ? { enforcePays: false } : {}),
  });
  const gauge = async () => (await registry.getSingleMetric('ehpa_adapter_prediction_pays')!.get()).values.map((v) => v.value);
  const tsp = () => store.read<TimeSeriesPrediction>(`${TSPS(NS)}/ehpa-web`)!;
  return { reconciler, tsp, windows, gauge, key: `${NS}/ehpa-web` };
}

const condition = (t: TimeSeriesPrediction, type: string) => t.status?.conditions?.find((c) => c.type === type);

describe('TspReconciler: does the forecast pay', () => {
  it('a forecast that pays is served: no stepAside, PredictionPays=True with the figures, gauge 1', async () => {
    const t = setup({ pays: true });
    await t.reconciler.reconcile(t.key);
    expect(t.tsp().status?.predictionMetrics?.[0]).to.not.have.property('stepAside');
    expect(condition(t.tsp(), 'PredictionPays')).to.include({ status: 'True', reason: 'ForecastPays' });
    expect(condition(t.tsp(), 'PredictionPays')?.message).to.equal("crane_pod_cpu_usage: pays over the last 160 h replayed: with the forecast the HPA was short 10 min at 1.33× the plain HPA's capacity");
    expect(await t.gauge()).to.deep.equal([1]);
  });

  it('one that does not steps aside: the metric says why (the forecast stays published), PredictionPays=False, gauge 0', async () => {
    const t = setup({ pays: false });
    await t.reconciler.reconcile(t.key);
    const m = t.tsp().status?.predictionMetrics?.[0];
    expect(m?.stepAside).to.equal(verdict(false).reason);
    expect(m?.ready).to.equal(true);
    expect(m?.prediction?.[0]?.samples.length).to.be.above(0);
    expect(condition(t.tsp(), 'PredictionPays')).to.include({ status: 'False', reason: 'SteppedAside' });
    expect(await t.gauge()).to.deep.equal([0]);
  });

  it('not judged (uncalibrated): steps aside until it can be judged; Crane mode: no condition at all', async () => {
    const t = setup({});
    await t.reconciler.reconcile(t.key);
    expect(condition(t.tsp(), 'PredictionPays')).to.include({ status: 'False', reason: 'SteppedAside' });
    expect(t.tsp().status?.predictionMetrics?.[0]?.stepAside).to.equal('not judged (uncalibrated); served from observation until it can be');
    expect(await t.gauge()).to.deep.equal([0]);
    const crane = setup({ pays: false, algorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d', estimators: { maxValue: [{ marginFraction: '0.1' }] } } } });
    await crane.reconciler.reconcile(crane.key);
    expect(condition(crane.tsp(), 'PredictionPays')).to.equal(undefined);
    expect(crane.tsp().status?.predictionMetrics?.[0]).to.not.have.property('stepAside');
  });

  it('--prediction-pays=observe: the verdict is reported (WouldStepAside, NotJudged) and nothing steps aside', async () => {
    const no = setup({ pays: false, observe: true });
    await no.reconciler.reconcile(no.key);
    expect(no.tsp().status?.predictionMetrics?.[0]).to.not.have.property('stepAside');
    expect(condition(no.tsp(), 'PredictionPays')).to.include({ status: 'False', reason: 'WouldStepAside' });
    expect(condition(no.tsp(), 'PredictionPays')?.message).to.match(/^crane_pod_cpu_usage: would step aside \(observe mode: served anyway\) over the last 160 h replayed: /);
    const unjudged = setup({ observe: true });
    await unjudged.reconciler.reconcile(unjudged.key);
    expect(condition(unjudged.tsp(), 'PredictionPays')).to.include({ status: 'Unknown', reason: 'NotJudged' });
    expect(unjudged.tsp().status?.predictionMetrics?.[0]).to.not.have.property('stepAside');
    expect(await unjudged.gauge()).to.deep.equal([]);
  });

  it('the accepted extra cost: the serve flag by default, the annotation over it; an invalid annotation is InvalidSpec', async () => {
    const flag = setup({ pays: true, flag: 0.2 });
    await flag.reconciler.reconcile(flag.key);
    expect(flag.windows[0]?.acceptExtraCost).to.equal(0.2);
    const annotated = setup({ pays: true, flag: 0.2, annotations: { [ACCEPT_EXTRA_COST_ANNOTATION]: '0.5' } });
    await annotated.reconciler.reconcile(annotated.key);
    expect(annotated.windows[0]?.acceptExtraCost).to.equal(0.5);
    for (const bad of ['-1', 'NaN', '11', 'lots']) {
      const t = setup({ pays: true, annotations: { [ACCEPT_EXTRA_COST_ANNOTATION]: bad } });
      await t.reconciler.reconcile(t.key);
      expect(t.windows, bad).to.have.length(0);
      expect(condition(t.tsp(), 'Ready'), bad).to.include({ status: 'False', reason: 'InvalidSpec' });
      expect(condition(t.tsp(), 'Ready')?.message, bad).to.equal(`annotation ${ACCEPT_EXTRA_COST_ANNOTATION} is "${bad}"; it must be a number from 0 to 10 (a share: "0.1" accepts 10 % more cost)`);
    }
  });

  it('the condition names each metric; one metric stepping aside makes it False', () => {
    const m = (rid: string, pays: boolean) => ({ resourceIdentifier: rid, auto: true, series: [{ calibration: summary(verdict(pays)) }] });
    expect(paysCondition([m('a', true), m('b', false)])).to.include({ status: 'False', reason: 'SteppedAside' });
    expect(paysCondition([m('a', true), m('b', false)])?.message).to.match(/^a: pays over the last 160 h replayed: .*; b: steps aside over the last 160 h replayed: /);
    expect(paysCondition([{ resourceIdentifier: 'a', auto: false, series: [{}] }])).to.equal(undefined);
  });
});
