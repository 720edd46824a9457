// No 2-hour ceiling (windows over 7200 s on a load without a daily or weekly period once never became
// ready): the TSP controller with the real prediction core, fed Crane's own non-periodic traces
// (test/fixtures/traces/crane input3, input4, input5: gocrane/crane pkg/prediction/dsp/test_data, labelled
// "not periodic" by Crane's signal_test.go; provenance in test/fixtures/README.md), must publish a Ready
// forecast covering [now, now + window] for windows of 3 h, 12 h and 24 h. A TSP that lists its own
// estimators runs Crane's exact DSP, which has no forecast without a period (docs/crane-behaviour.md §D.4).
import { expect } from 'chai';
import { pino } from 'pino';
import { TspReconciler } from '../../src/prediction/controller/tsp-reconciler.ts';
import { CoreForecaster } from '../../src/prediction/controller/core-forecaster.ts';
import { StatusWriter } from '../../src/kube/status-writer.ts';
import { resourcePath } from '../../src/kube/api-client.ts';
import type { PredictionAlgorithm, TimeSeriesPrediction } from '../../src/api/prediction.ts';
import type { HistoryProvider } from '../../src/prometheus/series.ts';
import { InMemoryObjects } from '../helpers/in-memory-objects.ts';
import { craneTraces, loadTrace } from '../helpers/traces.ts';

const TSPS = (ns: string) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns);
const NOW = 1_800_000_030; // half a minute past a step: the history ends before now, as in a real pass

/** Reconciles one TSP over `trace` (moved in time so that its last sample is the query's end). */
async function reconcileOn(traceIndex: number, window: number, algorithm: PredictionAlgorithm) {
  const trace = craneTraces()[traceIndex]!;
  const { timestamps, values } = loadTrace(trace);
  const store = new InMemoryObjects();
  store.seed(TSPS('shop'), {
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      targetRef: { kind: 'Deployment', name: 'web' },
      predictionWindowSeconds: window,
      predictionMetrics: [{ resourceIdentifier: 'resource.cpu', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm }],
    },
  } satisfies TimeSeriesPrediction);
  const history: HistoryProvider = {
    async queryRange(_q, startS, endS) {
      const shift = endS - (timestamps[timestamps.length - 1] as number);
      const ts: number[] = [];
      const vs: number[] = [];
      timestamps.forEach((t, i) => {
        if (t + shift >= startS) {
          ts.push(t + shift);
          vs.push(values[i] as number);
        }
      });
      return [{ labels: {}, timestamps: ts, values: vs }];
    },
  };
  const r = new TspReconciler({
    tsps: store.cache<TimeSeriesPrediction>(TSPS),
    history,
    forecaster: new CoreForecaster(),
    status: new StatusWriter(store),
    log: pino({ level: 'silent' }),
    now: () => NOW * 1000,
    updateFrequencyMs: 30_000,
    modelUpdateIntervalMs: 12 * 3_600_000,
  });
  await r.reconcile('shop/web');
  return { trace: trace.name, status: store.read<TimeSeriesPrediction>(`${TSPS('shop')}/web`)!.status! };
}

describe('TSP windows of 3 h, 12 h and 24 h on non-periodic traces (no 2-hour ceiling)', function () {
  this.timeout(60_000);
  for (const window of [10_800, 43_200, 86_400]) {
    it(`window ${window} s: Ready, with samples from now to at least now + window, on crane input3, input4 and input5`, async () => {
      for (const i of [3, 4, 5]) {
        expect(craneTraces()[i]!.label).to.equal('none');
        const { trace, status } = await reconcileOn(i, window, { algorithmType: 'dsp' });
        const m = status.predictionMetrics![0]!;
        expect(m.ready, `${trace}: ${JSON.stringify(status.conditions)}`).to.equal(true);
        expect(status.conditions!.find((c) => c.type === 'Ready')?.status, trace).to.equal('True');
        const samples = m.prediction![0]!.samples;
        expect(samples[0]!.timestamp, trace).to.be.at.most(NOW + 60);
        expect(samples[samples.length - 1]!.timestamp, trace).to.be.at.least(NOW + window);
        expect(samples.every((s) => Number(s.value) > 0), `${trace}: positive values`).to.equal(true);
      }
    });
  }
  it("a TSP listing its own estimators keeps Crane's behaviour: no forecast without a period, Ready=False", async () => {
    const { status } = await reconcileOn(4, 43_200, { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '15d', estimators: { maxValue: [{ marginFraction: '0.1' }] } } });
    expect(status.predictionMetrics![0]!.ready).to.equal(false);
    expect(status.conditions!.find((c) => c.type === 'Ready')?.message).to.match(/no daily or weekly period/);
  });
});
