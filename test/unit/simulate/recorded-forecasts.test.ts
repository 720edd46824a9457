// simulate with recordedForecasts: a replay fed the forecasts an earlier replay served is the same replay
// (the forecast depends on the history only), so start-up variants can share one set of fits.
import { expect } from 'chai';
import type { EffectiveHorizontalPodAutoscaler } from '../../../src/api/ehpa.ts';
import { simulate, type SimulationOptions } from '../../../src/simulate/simulate.ts';

const DAY = 86_400;
const T0 = 1_700_438_400;

const daily = (t: number) => {
  const h = ((t - T0) % DAY) / 3600;
  if (h < 8) return 2;
  if (h < 10) return 2 + 9 * (h - 8);
  if (h < 18) return 20;
  if (h < 19) return 20 - 18 * (h - 18);
  return 2;
};
const history = { timestamps: [] as number[], values: [] as number[] };
for (let t = T0; t <= T0 + 4 * DAY; t += 60) {
  history.timestamps.push(t);
  history.values.push(daily(t));
}
const ehpa: EffectiveHorizontalPodAutoscaler = {
  apiVersion: 'autoscaling.crane.io/v1alpha1',
  kind: 'EffectiveHorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', uid: 'u1' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 50,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
    prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '300s', historyLength: '3d' } } },
  },
};
const day4 = T0 + 3 * DAY;
const base: SimulationOptions = {
  ehpa,
  history,
  fromS: day4 + 6 * 3600,
  toS: day4 + 10 * 3600,
  stepSeconds: 60,
  podCpuRequestMilli: 1000,
  tolerance: 0.1,
  downscaleStabilizationSeconds: 300,
  localZone: 'UTC',
  seed: 1,
  predictionFallback: 'observed',
  forecastRetrySeconds: 600,
};

describe('simulate: recorded forecasts', function () {
  this.timeout(120_000);
  const live = simulate(base);

  it('replaying the recorded forecasts gives the very same steps and summary', () => {
    const again = simulate({ ...base, recordedForecasts: live.steps });
    expect(again.steps).to.deep.equal(live.steps);
    expect(again.summary).to.deep.equal(live.summary);
    expect(live.summary.forecast?.refreshes).to.be.greaterThan(2);
  });

  it('a start-up variant on the recorded forecasts equals the same variant fitted afresh', () => {
    const fitted = simulate({ ...base, podStartupSeconds: 180 });
    const reused = simulate({ ...base, podStartupSeconds: 180, recordedForecasts: live.steps });
    expect(reused.steps).to.deep.equal(fitted.steps);
    expect(reused.summary).to.deep.equal(fitted.summary);
    expect(reused.summary.ehpa.underProvisionedMinutes).to.be.at.least(live.summary.ehpa.underProvisionedMinutes);
  });

  it('a record that misses a step is refused', () => {
    expect(() => simulate({ ...base, recordedForecasts: live.steps.slice(1) })).to.throw(RangeError, /no step at/);
  });
});
