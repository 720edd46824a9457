// Crane's percentile `aggregated` switch (docs/crane-behaviour.md §E.2; gocrane/crane v0.11.0
// pkg/prediction/percentile/prediction.go process/initFromHistory): `true` pools every series of the
// query into one histogram and answers one unlabelled series; `false` answers one series per label set.
//
// The expected numbers are worked out by hand from the VPA histogram rules (k8s.io/autoscaler
// vertical-pod-autoscaler v0.10.0 pkg/recommender/util/histogram.go): a linear histogram of 1.0-wide
// buckets up to 10, each sample weighted max(minSampleWeight, value), Percentile(p) = the END of the first
// bucket where the cumulative weight reaches p * total. (test/oracles/crane-dsp.test.ts checks the same
// cases, and the Crane traces, against Crane's own predictor.)
//   pod a: 1.2, 1.2, 3.5, 3.5  -> bucket 1 weight 2.4, bucket 3 weight 7.0 (total 9.4)
//   pod b: 6.5, 6.5            -> bucket 6 weight 13.0
//   per series, p = 0.5: a needs 4.7 -> bucket 3 -> 4;  b -> bucket 6 -> 7
//   pooled, p = 0.5: total 22.4, needs 11.2: 2.4, 9.4 (< 11.2), 22.4 -> bucket 6 -> 7
//   pooled, p = 0.3: needs 6.72: 2.4, 9.4 (>= 6.72) -> bucket 3 -> 4
import { expect } from 'chai';
import { pino } from 'pino';
import { CoreForecaster } from '../../../../src/prediction/controller/core-forecaster.ts';
import { seriesToFit } from '../../../../src/prediction/controller/algorithm-block.ts';
import { mergeSeries } from '../../../../src/prediction/percentile/aggregate-series.ts';
import { TspReconciler } from '../../../../src/prediction/controller/tsp-reconciler.ts';
import { StatusWriter } from '../../../../src/kube/status-writer.ts';
import { resourcePath } from '../../../../src/kube/api-client.ts';
import type { PercentileSpec, PredictionAlgorithm, TimeSeriesPrediction } from '../../../../src/api/prediction.ts';
import type { HistoryProvider, HistorySeries } from '../../../../src/prometheus/series.ts';
import { InMemoryObjects } from '../../../helpers/in-memory-objects.ts';

const NOW = 1_800_000_000; // a whole minute
const HISTORY: HistorySeries[] = [
  { labels: { pod: 'a' }, timestamps: [NOW - 240, NOW - 180, NOW - 120, NOW - 60], values: [1.2, 1.2, 3.5, 3.5] },
  { labels: { pod: 'b' }, timestamps: [NOW - 180, NOW - 60], values: [6.5, 6.5] },
];
const block = (aggregated: boolean, percentile: string, extra: Partial<PercentileSpec> = {}): PredictionAlgorithm => ({
  algorithmType: 'percentile',
  percentile: { aggregated, sampleInterval: '60s', historyLength: '1d', percentile, histogram: { halfLife: '24h', maxValue: '10', bucketSize: '1' }, ...extra },
});

/** label key -> the forecast's (constant) value */
function estimates(out: readonly HistorySeries[]): Record<string, number> {
  const r: Record<string, number> = {};
  for (const s of out) {
    expect(new Set(s.values).size, 'a percentile forecast is constant').to.equal(1);
    r[JSON.stringify(s.labels)] = s.values[0] as number;
  }
  return r;
}

describe('percentile aggregated (Crane: one histogram over all series of the query)', () => {
  const f = new CoreForecaster();
  const window = { nowS: NOW, horizonSeconds: 1200 };

  it('mergeSeries: every sample once, ordered by time, ties in input order, no labels', () => {
    const m = mergeSeries(HISTORY);
    expect(m.labels).to.deep.equal({});
    expect(m.timestamps).to.deep.equal([NOW - 240, NOW - 180, NOW - 180, NOW - 120, NOW - 60, NOW - 60]);
    expect(m.values).to.deep.equal([1.2, 1.2, 6.5, 3.5, 3.5, 6.5]);
  });

  it('aggregated: true gives one unlabelled series with the pooled estimate (hand-computed 7, and 4 at p = 0.3)', () => {
    expect(estimates(f.forecast(seriesToFit(HISTORY, block(true, '0.5')), block(true, '0.5'), window))).to.deep.equal({ '{}': 7 });
    expect(estimates(f.forecast(seriesToFit(HISTORY, block(true, '0.3')), block(true, '0.3'), window))).to.deep.equal({ '{}': 4 });
  });

  it('aggregated: false gives one series per label set with its own estimate (a: 4, b: 7)', () => {
    expect(estimates(f.forecast(seriesToFit(HISTORY, block(false, '0.5')), block(false, '0.5'), window))).to.deep.equal({ '{"pod":"a"}': 4, '{"pod":"b"}': 7 });
  });

  it('margin and target utilization apply to the pooled estimate: 7 * 1.1 / 0.5', () => {
    const a = block(true, '0.5', { marginFraction: '0.1', targetUtilization: '0.5' });
    const [out] = f.forecast(seriesToFit(HISTORY, a), a, window);
    expect(out!.values[0]).to.be.closeTo((7 * 1.1) / 0.5, 1e-12);
  });

  it("no percentile block, or one that does not parse, is Crane's default: aggregated", () => {
    expect(seriesToFit(HISTORY, { algorithmType: 'percentile' })).to.have.length(1);
    expect(seriesToFit(HISTORY, { algorithmType: 'percentile', percentile: { aggregated: false, sampleInterval: 'soon' } })).to.have.length(1);
    // DSP never aggregates; neither does a single series.
    expect(seriesToFit(HISTORY, { algorithmType: 'dsp' })).to.have.length(2);
    expect(seriesToFit([HISTORY[0]!], { algorithmType: 'percentile' })[0]).to.equal(HISTORY[0]);
  });

  it('through the TSP controller: the status holds one series without labels, value "7.00000"; with aggregated: false two labelled ones', async () => {
    const TSPS = (ns: string) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns);
    for (const [aggregated, want] of [
      [true, [{ labels: [], value: '7.00000' }]],
      [
        false,
        [
          { labels: [{ name: 'pod', value: 'a' }], value: '4.00000' },
          { labels: [{ name: 'pod', value: 'b' }], value: '7.00000' },
        ],
      ],
    ] as const) {
      const store = new InMemoryObjects();
      const tsp: TimeSeriesPrediction = {
        apiVersion: 'prediction.crane.io/v1alpha1',
        kind: 'TimeSeriesPrediction',
        metadata: { name: 'nodes', namespace: 'ops' },
        spec: {
          targetRef: { kind: 'Deployment', name: 'web' },
          predictionWindowSeconds: 600,
          predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ExpressionQuery', expressionQuery: { expression: 'sum by (pod) (x)' }, algorithm: block(aggregated, '0.5') }],
        },
      };
      store.seed(TSPS('ops'), tsp);
      const history: HistoryProvider = { queryRange: async () => HISTORY.map((h) => ({ ...h })) };
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
      await r.reconcile('ops/nodes');
      const m = store.read<TimeSeriesPrediction>(`${TSPS('ops')}/nodes`)!.status!.predictionMetrics![0]!;
      expect(m.ready, `aggregated ${aggregated}`).to.equal(true);
      const got = m.prediction!.map((p) => ({ labels: p.labels, value: p.samples[0]!.value })).sort((x, y) => JSON.stringify(x.labels).localeCompare(JSON.stringify(y.labels)));
      expect(got, `aggregated ${aggregated}`).to.deep.equal(want);
    }
  });
});
