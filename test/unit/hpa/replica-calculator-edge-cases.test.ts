// Edge cases of the HPA replica arithmetic. Expected values follow kubernetes/kubernetes
// pkg/controller/podautoscaler/replica_calculator.go (calcPlainMetricReplicas, GetResourceReplicas,
// GetExternalPerPodMetricReplicas), metrics/utilization.go (GetMetricUsageRatio, GetResourceUtilizationRatio)
// and horizontal.go (convertDesiredReplicasWithRules, calculateScaleUpLimit), as summarised in
// docs/metrics-api.md §4.
import { expect } from 'chai';
import {
  externalAverageValueReplicas,
  normalizeDesiredReplicas,
  podsAverageValueReplicas,
  resourceUtilizationReplicas,
} from '../../../src/hpa/replica-calculator.ts';

describe('podsAverageValueReplicas: inside the tolerance the current count stays', () => {
  it('keeps 2 replicas when two pods report 1050m against 1000m (ratio 1.05), rather than ceil(1.05 × 2) = 3', () => {
    // calcPlainMetricReplicas: usage = 2100 / 2 = 1050, |1 − 1.05| ≤ 0.1 → currentReplicas.
    expect(podsAverageValueReplicas({ currentReplicas: 2, podMilli: [1050, 1050], targetMilli: 1000 })).to.deep.equal({
      replicas: 2,
      usageMilli: 1050,
    });
  });
});

describe('externalAverageValueReplicas: the ratio is sum / (target × status replicas)', () => {
  it('keeps 10 status replicas for sum 10.5 against 1 per pod (ratio 1.05), rather than ceil(10.5) = 11', () => {
    // GetExternalPerPodMetricReplicas: usageRatio = 10500 / (1000 × 10) = 1.05 → within tolerance → statusReplicas.
    expect(externalAverageValueReplicas({ statusReplicas: 10, sumMilli: 10_500, targetMilli: 1000 })).to.equal(10);
  });
  it('scales to ceil(sum / target) once the ratio leaves the tolerance', () => {
    // 12500 / (1000 × 10) = 1.25 → ceil(12500 / 1000) = 13.
    expect(externalAverageValueReplicas({ statusReplicas: 10, sumMilli: 12_500, targetMilli: 1000 })).to.equal(13);
  });
});

describe('resourceUtilizationReplicas: errors', () => {
  it('reports missing metrics before looking at requests', () => {
    // GetResourceReplicas: len(metrics) == 0 → "did not receive metrics for targeted pods (pods might be
    // unready)", checked before calculatePodRequests and GetResourceUtilizationRatio.
    const message = /^did not receive metrics for targeted pods \(pods might be unready\)$/;
    expect(() => resourceUtilizationReplicas({ currentReplicas: 1, podUsageMilli: [], podRequestMilli: [], targetUtilization: 50 })).to.throw(message);
    expect(() => resourceUtilizationReplicas({ currentReplicas: 1, podUsageMilli: [], podRequestMilli: [1000], targetUtilization: 50 })).to.throw(message);
  });
  it('fails rather than dividing by zero when the requests sum to 0', () => {
    // GetResourceUtilizationRatio: requestsTotal == 0 is an error, no replica count is proposed.
    expect(() => resourceUtilizationReplicas({ currentReplicas: 2, podUsageMilli: [100, 100], podRequestMilli: [0, 0], targetUtilization: 50 })).to.throw(Error);
  });
});

describe('normalizeDesiredReplicas: limits are strict (convertDesiredReplicasWithRules)', () => {
  const base = { nowMs: 0, history: [] };
  it('a proposal equal to the scale-up limit is within range, not limited', () => {
    // current 5 → scaleUpLimit max(2 × 5, 4) = 10 < max 20; desired 10 is not > 10 → DesiredWithinRange.
    const r = normalizeDesiredReplicas({ ...base, currentReplicas: 5, proposal: 10, minReplicas: 1, maxReplicas: 20 });
    expect(r.replicas).to.equal(10);
    expect(r.limitedBy).to.equal(undefined);
  });
  it('when maxReplicas equals the scale-up limit the reason is TooManyReplicas', () => {
    // hpaMaxReplicas > scaleUpLimit is false for 10 vs 10 → maximumAllowedReplicas = max, "TooManyReplicas".
    const r = normalizeDesiredReplicas({ ...base, currentReplicas: 5, proposal: 15, minReplicas: 1, maxReplicas: 10 });
    expect(r.replicas).to.equal(10);
    expect(r.limitedBy).to.equal('TooManyReplicas');
  });
  it('a proposal equal to minReplicas is within range, not TooFewReplicas', () => {
    // desiredReplicas < minimumAllowedReplicas is false for 3 vs 3.
    const r = normalizeDesiredReplicas({ ...base, currentReplicas: 3, proposal: 3, minReplicas: 3, maxReplicas: 10 });
    expect(r.replicas).to.equal(3);
    expect(r.limitedBy).to.equal(undefined);
  });
});

describe('normalizeDesiredReplicas: the downscale-stabilization window includes its boundary (horizontal.go stabilizeRecommendation)', () => {
  // Upstream skips a past recommendation only when rec.timestamp.Before(now - window).
  const step = { currentReplicas: 8, proposal: 2, minReplicas: 1, maxReplicas: 20, stabilizationWindowMs: 300_000 };
  it('a recommendation exactly one window old still holds the replicas up', () => {
    const r = normalizeDesiredReplicas({ ...step, nowMs: 300_000, history: [{ timestampMs: 0, replicas: 10 }] });
    expect(r.replicas).to.equal(10);
    expect(r.history.map((h) => h.timestampMs)).to.deep.equal([0, 300_000]);
  });
  it('one a millisecond older no longer does, and leaves the window', () => {
    const r = normalizeDesiredReplicas({ ...step, nowMs: 300_001, history: [{ timestampMs: 0, replicas: 10 }] });
    expect(r.replicas).to.equal(2);
    expect(r.history.map((h) => h.timestampMs)).to.deep.equal([300_001]);
  });
});
