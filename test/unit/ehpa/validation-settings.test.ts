// Settings are never silently replaced (https://github.com/gocrane/crane/issues/352): each setting Crane would drop or replace
// with its defaults, and each cron or zone Crane's webhook refuses, is flagged with a message that names
// the field. EHPA problems become Ready=False plus an event in the controller (reconciler.test.ts) and a
// 422 on the metrics (adapter/invalid-ehpa-status.test.ts); a TSP's become InvalidSpec (below).
import { expect } from 'chai';
import { pino } from 'pino';
import { validateEhpa } from '../../../src/ehpa/validation.ts';
import { algorithmSettingsProblems } from '../../../src/prediction/crane-config.ts';
import { tspBoundsProblems } from '../../../src/prediction/spec-bounds.ts';
import { TspReconciler } from '../../../src/prediction/controller/tsp-reconciler.ts';
import { StatusWriter } from '../../../src/kube/status-writer.ts';
import { resourcePath } from '../../../src/kube/api-client.ts';
import type { PredictionAlgorithm, TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import { InMemoryObjects } from '../../helpers/in-memory-objects.ts';
import { ehpa } from './fixtures.ts';

const A = 'spec.prediction.predictionAlgorithm';
const withAlgorithm = (predictionAlgorithm: PredictionAlgorithm) => ehpa({ prediction: { predictionWindowSeconds: 3600, predictionAlgorithm } });
const messages = (e: ReturnType<typeof ehpa>) => validateEhpa(e).map((p) => `${p.reason}: ${p.message}`);

describe('flagged settings name their field', () => {
  it('an unknown algorithmType (a typo, the wrong case, empty) instead of running DSP', () => {
    for (const t of ['DSP', 'arima', '']) {
      expect(messages(withAlgorithm({ algorithmType: t })), t).to.deep.equal([`InvalidPrediction: ${A}.algorithmType is ${JSON.stringify(t)}; it must be dsp or percentile`]);
    }
    // Absent means dsp, as before; dsp and percentile pass.
    expect(messages(withAlgorithm({ dsp: { sampleInterval: '60s', historyLength: '3d' } }))).to.deep.equal([]);
    expect(messages(withAlgorithm({ algorithmType: 'percentile' }))).to.deep.equal([]);
  });
  it("a dsp block Crane's makeInternalConfig refuses: history under 48 h (the \"1d\" a Crane user reported), an empty duration", () => {
    expect(messages(withAlgorithm({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '1d' } }))).to.deep.equal([
      `InvalidPrediction: ${A}.dsp.historyLength is not valid (historyDuration is too short); Crane would silently run its defaults instead (1m samples, 15d history)`,
    ]);
    expect(messages(withAlgorithm({ algorithmType: 'dsp', dsp: { historyLength: '3d' } }))[0]).to.match(new RegExp(`^InvalidPrediction: ${A.replace(/\./g, '\\.')}\\.dsp\\.sampleInterval is not valid \\(.*invalid duration`));
  });
  it('a percentile block Crane discards is not flagged: Crane\'s defaults run, said on the TSP (crane-defaults.test.ts)', () => {
    // A missing historyLength (Crane's own tsp-nodes-percent example), a non-positive histogram size.
    const noHistory = withAlgorithm({ algorithmType: 'percentile', percentile: { sampleInterval: '1m', minSampleWeight: '1.0', histogram: { maxValue: '10000.0', epsilon: '1e-10', halfLife: '12h' } } });
    expect(messages(noHistory)).to.deep.equal([]);
    const zero = withAlgorithm({ algorithmType: 'percentile', percentile: { sampleInterval: '1m', historyLength: '7d', histogram: { halfLife: '24h', maxValue: '10', bucketSize: '0' } } });
    expect(messages(zero)).to.deep.equal([]);
    // A bound still refuses what is over it, defaults or not.
    const huge = withAlgorithm({ algorithmType: 'percentile', percentile: { sampleInterval: '1m', historyLength: '365d', histogram: { halfLife: '24h' } } });
    expect(messages(huge)[0]).to.match(/^InvalidPrediction: .*percentile\.historyLength is 31536000s; it must be positive and at most 90d/);
  });
  it('only the block the type selects is read, as in Crane', () => {
    expect(algorithmSettingsProblems({ algorithmType: 'percentile', dsp: { historyLength: '1d' } }, 'a')).to.deep.equal([]);
    expect(algorithmSettingsProblems({ algorithmType: 'dsp', percentile: { sampleInterval: 'x' } }, 'a')).to.deep.equal([]);
  });
  it('a bad cron names the cron and the field; a bad zone names the cron and the zone', () => {
    const e = ehpa({
      crons: [
        { name: 'morning', start: '61 * * * *', end: '0 10 * * *', targetReplicas: 2 },
        { name: 'evening', timezone: 'Mars/Olympus', start: '0 18 * * *', end: '0 19 * * 8', targetReplicas: 2 },
      ],
    });
    expect(messages(e)).to.deep.equal([
      'InvalidCron: spec.crons[0] (morning): start "61 * * * *": "61 * * * *": minute value 61 is above the maximum 59',
      'InvalidTimeZone: spec.crons[1] (evening): timezone: unknown time zone "Mars/Olympus"',
      'InvalidCron: spec.crons[1] (evening): end "0 19 * * 8": "0 19 * * 8": day-of-week value 8 is above the maximum 6',
    ]);
  });
});

describe('a TSP with a setting Crane would replace: InvalidSpec naming the metric and the field', () => {
  const TSPS = (ns: string) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns);
  const tsp = (algorithm: PredictionAlgorithm): TimeSeriesPrediction => ({
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: { name: 't', namespace: 'shop', generation: 1 },
    spec: { targetRef: { kind: 'Deployment', name: 'web' }, predictionWindowSeconds: 3600, predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm }] },
  });

  it('tspBoundsProblems names spec.predictionMetrics[i].algorithm', () => {
    expect(tspBoundsProblems(tsp({ algorithmType: 'Percentile' }))).to.deep.equal(['spec.predictionMetrics[0].algorithm.algorithmType is "Percentile"; it must be dsp or percentile']);
    expect(tspBoundsProblems(tsp({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '24h' } }))[0]).to.match(/^spec\.predictionMetrics\[0\]\.algorithm\.dsp\.historyLength is not valid \(historyDuration is too short\)/);
    expect(tspBoundsProblems(tsp({ algorithmType: 'dsp', dsp: { sampleInterval: '2h', historyLength: '3d' } }))[0]).to.match(/^spec\.predictionMetrics\[0\]\.algorithm\.dsp\.sampleInterval is not valid \(historyResolution is too long\)/);
    expect(tspBoundsProblems(tsp({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d', estimators: { fft: [{ marginFraction: 'x' }] } } }))[0]).to.match(/^spec\.predictionMetrics\[0\]\.algorithm\.dsp\.estimators\.fft\[0\] is not valid/);
    expect(tspBoundsProblems(tsp({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } }))).to.deep.equal([]);
  });

  it('the controller sets Ready=False/InvalidSpec with that message and one Warning event, and queries nothing', async () => {
    const store = new InMemoryObjects();
    store.seed(TSPS('shop'), tsp({ algorithmType: 'arima' }));
    let queries = 0;
    const events: string[] = [];
    const r = new TspReconciler({
      tsps: store.cache<TimeSeriesPrediction>(TSPS),
      history: {
        queryRange: async () => {
          queries++;
          return [];
        },
      },
      forecaster: { historyWindow: () => ({ lengthSeconds: 86_400, stepSeconds: 60 }), forecast: () => [] },
      status: new StatusWriter(store),
      log: pino({ level: 'silent' }),
      now: () => 1_800_000_000_000,
      updateFrequencyMs: 30_000,
      modelUpdateIntervalMs: 12 * 3_600_000,
      events: { event: (_o, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
    });
    await r.reconcile('shop/t');
    const ready = store.read<TimeSeriesPrediction>(`${TSPS('shop')}/t`)!.status!.conditions!.find((c) => c.type === 'Ready');
    const want = 'spec.predictionMetrics[0].algorithm.algorithmType is "arima"; it must be dsp or percentile';
    expect(ready).to.include({ status: 'False', reason: 'InvalidSpec', message: want });
    expect(events).to.deep.equal([`Warning InvalidSpec: ${want}`]);
    expect(queries).to.equal(0);
  });
});
