// simulate follows serve's --prediction-pays: by default (enforce) an auto forecast that does not pay on its
// own history steps aside, the predicted metric serves the observed usage, and the EHPA scales as the plain
// HPA at the same target does; observe serves the forecast anyway. The same rule as the TSP controller
// (calibration-status.ts stepAsideReason), so a user's replay shows what serve would do.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { EffectiveHorizontalPodAutoscaler } from '../../../src/api/ehpa.ts';
import { parseSeriesCsv } from '../../../src/prediction/series-csv.ts';
import { simulate, type SimulationOptions } from '../../../src/simulate/simulate.ts';

// Crane's input4 (gocrane/crane pkg/prediction/dsp/test_data, Apache-2.0): aperiodic and bursty; on two days
// of history before its last six hours, its calibrated forecast costs ~3–3.5× a plain HPA's capacity for
// no fewer short minutes than a plain HPA at a lower target gets for less.
const trace = parseSeriesCsv(readFileSync(new URL('../../fixtures/traces/crane/input4.csv', import.meta.url), 'utf8'));
const n = trace.timestamps.length;
const history = { timestamps: trace.timestamps.slice(n - 2 * 1440 - 360), values: trace.values.slice(n - 2 * 1440 - 360) };
const ehpa: EffectiveHorizontalPodAutoscaler = {
  apiVersion: 'autoscaling.crane.io/v1alpha1',
  kind: 'EffectiveHorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', uid: 'u1' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 100,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
    prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d' } } },
  },
};
const start = history.timestamps[2 * 1440] as number;
const base: SimulationOptions = {
  ehpa, history, fromS: start, toS: start + 6 * 3600, stepSeconds: 60, podCpuRequestMilli: 200, tolerance: 0.1,
  downscaleStabilizationSeconds: 300, localZone: 'UTC', seed: 1, predictionFallback: 'error', forecastRetrySeconds: 600,
};

describe('simulate: prediction pays, or steps aside', function () {
  this.timeout(120_000);
  const enforced = simulate(base);
  const observed = simulate({ ...base, predictionPays: 'observe' });

  it('enforce (the default): the forecast steps aside and the EHPA scales as the plain HPA at its target (up to rounding)', () => {
    expect(enforced.summary.stepsSteppedAside).to.equal(enforced.summary.steps);
    const refresh = enforced.steps.find((s) => s.forecastRefresh)?.forecastRefresh;
    expect(refresh?.stepAside).to.be.a('string').and.match(/plain HPA/);
    // Even with Crane's error fallback: stepping aside serves the observed usage, it does not fail the metric.
    // The predicted metric then asks what the CPU metric asks, up to the HPA's rounding of two metrics (a
    // Pods average in millicores beside a utilization): the larger proposal wins, at most one replica apart.
    for (const s of enforced.steps) expect(s.ehpa.replicas - s.plain.replicas, String(s.t)).to.be.within(0, 1);
    expect(enforced.summary.ehpa.replicaHours / enforced.summary.plain.replicaHours).to.be.within(1, 1.1);
  });

  it('observe: the same forecast is served, and costs more', () => {
    expect(observed.summary.stepsSteppedAside).to.equal(0);
    expect(observed.summary.ehpa.replicaHours).to.be.above(enforced.summary.ehpa.replicaHours);
  });
});
