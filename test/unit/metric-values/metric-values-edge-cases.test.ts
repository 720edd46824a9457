// Edge cases of the metric values we serve. Sources: docs/metrics-api.md §3.5 (milli-quantities),
// docs/crane-behaviour.md §B.3 and §C.3 (Crane's GetReadyPredictionMetric and crane_pod_cpu_usage messages),
// docs/components.md and docs/forecast-evaluation.md (the forecast window), docs/operations.md
// ("PredictionFallback" reasons).
import { expect } from 'chai';
import { EHPA_API_VERSION, EHPA_KIND, type EffectiveHorizontalPodAutoscaler } from '../../../src/api/ehpa.ts';
import { TSP_API_VERSION, TSP_KIND, type PredictionMetricStatus, type TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import { readyPredictionSeries } from '../../../src/metric-values/forecast-window.ts';
import { MAX_MILLI, toMilli } from '../../../src/metric-values/milli-quantity.ts';
import { ehpaForecastValue } from '../../../src/metric-values/forecast-value.ts';
import { POD_CPU_USAGE_IDENTIFIER } from '../../../src/api/names.ts';

const forecastFor = (tsps: Parameters<typeof ehpaForecastValue>[0], e: Parameters<typeof ehpaForecastValue>[1], nowMs: number) => ehpaForecastValue(tsps, e, POD_CPU_USAGE_IDENTIFIER, nowMs);

describe('toMilli: values whose milli-units do not fit an int64', () => {
  // docs/metrics-api.md §3.5: "Milli-values from about 9.2e15 up no longer fit an int64: we clamp to the
  // int64 maximum." 1e16 is 1e19 milli-units, past 9223372036854775807.
  it('clamps 1e16 to the int64 maximum', () => {
    expect(toMilli(1e16)).to.equal(MAX_MILLI);
    expect(toMilli(1e300)).to.equal(MAX_MILLI);
  });
});

const NOW_S = 1_700_000_000;
const NOW_MS = NOW_S * 1000;

const cpuSeries = (samples: [offsetS: number, value: string][], ready = true, resourceIdentifier = 'crane_pod_cpu_usage'): PredictionMetricStatus => ({
  resourceIdentifier,
  ready,
  prediction: [{ labels: [], samples: samples.map(([offset, value]) => ({ timestamp: NOW_S + offset, value })) }],
});

function tsp(metrics: PredictionMetricStatus[], spec: { predictionWindowSeconds?: number } | null = { predictionWindowSeconds: 3600 }): TimeSeriesPrediction {
  return {
    apiVersion: TSP_API_VERSION,
    kind: TSP_KIND,
    metadata: { namespace: 'shop', name: 'ehpa-web' },
    ...(spec === null ? {} : { spec: { targetRef: { kind: 'Deployment', name: 'web' }, predictionMetrics: [], ...spec } }),
    status: { predictionMetrics: metrics },
  } as unknown as TimeSeriesPrediction;
}

function ehpa(predictionWindowSeconds?: number): EffectiveHorizontalPodAutoscaler {
  return {
    apiVersion: EHPA_API_VERSION,
    kind: EHPA_KIND,
    metadata: { namespace: 'shop', name: 'web' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      maxReplicas: 10,
      ...(predictionWindowSeconds === undefined ? {} : { prediction: { predictionWindowSeconds } }),
    },
  };
}

describe('readyPredictionSeries: Crane’s GetReadyPredictionMetric messages', () => {
  // docs/crane-behaviour.md §B.3: errors with "TimeSeries is not ready, …" or "TimeSeries not matched, …".
  it('names the identifier when no entry matches', () => {
    const r = readyPredictionSeries(tsp([]), 'crane_pod_cpu_usage');
    expect(r.ok).to.equal(false);
    if (!r.ok) {
      expect(r.problem.message).to.match(/^TimeSeries not matched, /);
      expect(r.problem.message).to.contain('crane_pod_cpu_usage');
    }
  });
  it('names the identifier when the entry is not ready', () => {
    const r = readyPredictionSeries(tsp([cpuSeries([], false)]), 'crane_pod_cpu_usage');
    expect(r.ok).to.equal(false);
    if (!r.ok) {
      expect(r.problem.message).to.match(/^TimeSeries is not ready, /);
      expect(r.problem.message).to.contain('crane_pod_cpu_usage');
    }
  });
});

describe('ehpaForecastValue (workload CPU): why a forecast cannot be used (docs/operations.md, PredictionFallback)', () => {
  // "PredictionMissing (no TSP, or more than one, or no series), PredictionNotReady (the TSP status is not
  // ready), PredictionOutdated (no forecast point in [now, now + window])".
  const cases: [what: string, tsps: TimeSeriesPrediction[], reason: string][] = [
    ['no TSP', [], 'PredictionMissing'],
    ['two TSPs', [tsp([cpuSeries([[0, '1.00000']])]), tsp([cpuSeries([[0, '1.00000']])])], 'PredictionMissing'],
    ['a TSP without a CPU series', [tsp([])], 'PredictionMissing'],
    ['a TSP whose CPU series is not ready', [tsp([cpuSeries([[0, '1.00000']], false)])], 'PredictionNotReady'],
    ['a TSP with no point in the window', [tsp([cpuSeries([[-60, '1.00000']])])], 'PredictionOutdated'],
  ];
  for (const [what, tsps, reason] of cases) {
    it(`${what} → ${reason}`, () => {
      const r = forecastFor(tsps, ehpa(3600), NOW_MS);
      expect(r.ok).to.equal(false);
      if (!r.ok) expect(r.reason).to.equal(reason);
    });
  }
  it('says "only one TimeSeriesPrediction should match" when there are two', () => {
    // docs/crane-behaviour.md §C.3: anything but exactly one → "only one TimeSeriesPrediction should match …".
    const r = forecastFor([tsp([]), tsp([])], ehpa(3600), NOW_MS);
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.message).to.match(/^only one TimeSeriesPrediction should match/);
  });
});

describe('ehpaForecastValue (workload CPU): the window is the TSP’s predictionWindowSeconds, else the EHPA’s, else 3600', () => {
  // docs/forecast-evaluation.md: "The window the target is about is the TSP's predictionWindowSeconds";
  // docs/components.md: the largest forecast over [now, now + predictionWindowSeconds]; the CRD default is
  // 3600 (docs/crane-behaviour.md §A.1). Samples: 1 core now, 5 cores at +1200 s, 9 cores at +3601 s.
  const samples: [number, string][] = [[0, '1.00000'], [1200, '5.00000'], [3601, '9.00000']];
  const cases: [what: string, t: TimeSeriesPrediction, e: EffectiveHorizontalPodAutoscaler, largest: number][] = [
    ['TSP window 600 s (EHPA says 3600 s)', tsp([cpuSeries(samples)], { predictionWindowSeconds: 600 }), ehpa(3600), 1],
    ['TSP window 3600 s (EHPA says 600 s)', tsp([cpuSeries(samples)], { predictionWindowSeconds: 3600 }), ehpa(600), 5],
    ['no TSP window, EHPA window 600 s', tsp([cpuSeries(samples)], {}), ehpa(600), 1],
    ['a TSP without spec, EHPA window 600 s', tsp([cpuSeries(samples)], null), ehpa(600), 1],
    ['no window anywhere → 3600 s', tsp([cpuSeries(samples)], {}), ehpa(), 5],
  ];
  for (const [what, t, e, largest] of cases) {
    it(`${what} → largest ${largest}`, () => {
      expect(forecastFor([t], e, NOW_MS)).to.deep.equal({ ok: true, largest });
    });
  }
});
