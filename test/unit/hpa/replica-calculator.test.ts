// Worked examples from docs/metrics-api.md §4 (transcribed from kubernetes/kubernetes
// pkg/controller/podautoscaler/replica_calculator.go behaviour).
import { expect } from 'chai';
import {
  externalAverageValueReplicas,
  normalizeDesiredReplicas,
  podsAverageValueReplicas,
  resourceUtilizationReplicas,
  withinTolerance,
} from '../../../src/hpa/replica-calculator.ts';

describe('HPA replica calculator', () => {
  it('tolerance is inclusive at 0.9 and 1.1', () => {
    expect(withinTolerance(0.9)).to.equal(true);
    expect(withinTolerance(1.1)).to.equal(true);
    expect(withinTolerance(1.1000001)).to.equal(false);
    expect(withinTolerance(0.8999)).to.equal(false);
  });
  it('Pods averageValue: target 500m, pods 1, 1200m, 800m → usage 1000m, 6 replicas (docs/metrics-api.md §4.1 example)', () => {
    expect(podsAverageValueReplicas({ currentReplicas: 3, podMilli: [1000, 1200, 800], targetMilli: 500 })).to.deep.equal({
      replicas: 6,
      usageMilli: 1000,
    });
  });
  it('Pods averageValue uses integer division for the average and keeps current within tolerance', () => {
    // 1001+1000+1000 = 3001 / 3 = 1000 (floor); ratio 1.0 → current
    expect(podsAverageValueReplicas({ currentReplicas: 3, podMilli: [1001, 1000, 1000], targetMilli: 1000 }).replicas).to.equal(3);
    expect(() => podsAverageValueReplicas({ currentReplicas: 3, podMilli: [], targetMilli: 1000 })).to.throw(/did not receive metrics/);
  });
  it('External averageValue: target 30, sum 250, status 4 → ceil(250/30) = 9 (docs/metrics-api.md §4.3 example)', () => {
    expect(externalAverageValueReplicas({ statusReplicas: 4, sumMilli: 250_000, targetMilli: 30_000 })).to.equal(9);
  });
  it('External averageValue with target 1 turns the cron value into the replica count', () => {
    expect(externalAverageValueReplicas({ statusReplicas: 2, sumMilli: 7000, targetMilli: 1000 })).to.equal(7);
    expect(externalAverageValueReplicas({ statusReplicas: 7, sumMilli: 7000, targetMilli: 1000 })).to.equal(7);
  });
  it('Resource utilization: 2 pods at 900m of 1000m requests vs 60% → ceil(1.5×2) = 3', () => {
    expect(resourceUtilizationReplicas({ currentReplicas: 2, podUsageMilli: [900, 900], podRequestMilli: [1000, 1000], targetUtilization: 60 })).to.deep.equal({
      replicas: 3,
      utilization: 90,
    });
  });
  it('normalize: downscale stabilization keeps the window maximum, then limits scale-up to max(2×current, 4)', () => {
    let r = normalizeDesiredReplicas({ nowMs: 0, currentReplicas: 2, proposal: 10, minReplicas: 1, maxReplicas: 20, history: [] });
    expect(r.replicas).to.equal(4);
    expect(r.limitedBy).to.equal('ScaleUpLimit');
    r = normalizeDesiredReplicas({ nowMs: 60_000, currentReplicas: 4, proposal: 2, minReplicas: 1, maxReplicas: 20, history: r.history });
    expect(r.replicas).to.equal(8); // the 10 from a minute ago still stands, limited to 2×4
    r = normalizeDesiredReplicas({ nowMs: 400_000, currentReplicas: 8, proposal: 2, minReplicas: 1, maxReplicas: 20, history: r.history });
    expect(r.replicas).to.equal(2); // both older proposals left the 5-minute window
    r = normalizeDesiredReplicas({ nowMs: 500_000, currentReplicas: 2, proposal: 0, minReplicas: 1, maxReplicas: 20, history: [] });
    expect(r).to.include({ replicas: 1, limitedBy: 'TooFewReplicas' });
    r = normalizeDesiredReplicas({ nowMs: 0, currentReplicas: 10, proposal: 50, minReplicas: 1, maxReplicas: 12, history: [] });
    expect(r).to.include({ replicas: 12, limitedBy: 'TooManyReplicas' });
  });
});

describe('HPA resource utilization rounding', () => {
  it('compares the truncated integer utilization (utilization.go), not the exact fraction', () => {
    // usage 1099m of 1000m → 109% (not 109.9%); vs target 100 → ratio 1.09, within tolerance
    const r = resourceUtilizationReplicas({ currentReplicas: 1, podUsageMilli: [1099], podRequestMilli: [1000], targetUtilization: 100 });
    expect(r).to.deep.equal({ replicas: 1, utilization: 109 });
    // 1119m → 111% → ratio 1.11 → ceil(1.11) = 2
    expect(resourceUtilizationReplicas({ currentReplicas: 1, podUsageMilli: [1119], podRequestMilli: [1000], targetUtilization: 100 }).replicas).to.equal(2);
  });
});
