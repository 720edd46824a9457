// Pod start-up in the replay: a pod added at t serves only from t + d; removals take effect at once, starting
// pods first; starting pods count in the HPA's replicas and in replica-hours but not in capacity.
import { expect } from 'chai';
import type { EffectiveHorizontalPodAutoscaler } from '../../../src/api/ehpa.ts';
import { simulate, type SimulationOptions } from '../../../src/simulate/simulate.ts';
import { HpaReplay } from '../../../src/simulate/hpa-replay.ts';

// 2023-11-20 00:00:00 UTC.
const T0 = 1_700_438_400;
const RISE = T0 + 3600;

function ehpa(): EffectiveHorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default', uid: 'u1' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 50,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
    },
  };
}

// 2 cores, then 10 cores from RISE on: 4 pods of 1 core at 50 % before, 20 after.
const history = { timestamps: [] as number[], values: [] as number[] };
for (let t = T0; t <= T0 + 2 * 3600; t += 60) {
  history.timestamps.push(t);
  history.values.push(t < RISE ? 2 : 10);
}

function run(podStartupSeconds?: number) {
  const o: SimulationOptions = {
    ehpa: ehpa(),
    history,
    fromS: RISE - 600,
    toS: RISE + 1800,
    stepSeconds: 60,
    podCpuRequestMilli: 1000,
    tolerance: 0.1,
    downscaleStabilizationSeconds: 300,
    localZone: 'UTC',
    seed: 1,
    predictionFallback: 'observed',
    forecastRetrySeconds: 600,
    ...(podStartupSeconds !== undefined ? { podStartupSeconds } : {}),
  };
  return simulate(o);
}

describe('simulate: pod start-up', () => {
  const none = run();
  const zero = run(0);
  const slow = run(180);
  const at = (r: ReturnType<typeof run>, dt: number) => r.steps.find((s) => s.t === RISE + dt)!;

  it('default and 0 are the same replay; ready replicas are the previous step\'s replicas', () => {
    expect(zero.summary).to.deep.equal(none.summary);
    expect(zero.summary.podStartupSeconds).to.equal(0);
    let previous = zero.summary.initialReplicas;
    for (const s of zero.steps) {
      expect(s.plain.readyReplicas).to.equal(previous);
      previous = s.plain.replicas;
    }
  });

  it('without start-up the HPA climbs 4 → 8 → 16 → 20 (scale-up limit) and is short for 3 minutes', () => {
    expect([0, 60, 120, 180].map((dt) => at(zero, dt).plain.replicas)).to.deep.equal([8, 16, 20, 20]);
    expect([0, 60, 120, 180].map((dt) => at(zero, dt).plain.readyReplicas)).to.deep.equal([4, 8, 16, 20]);
    expect(zero.summary.plain.underProvisionedMinutes).to.equal(3);
    // (10 − 4·0.5) + (10 − 8·0.5) + (10 − 16·0.5) = 8 + 6 + 2.
    expect(zero.summary.plain.unmetCoreMinutes).to.equal(16);
  });

  it('with 180 s start-up the same decisions serve 4 minutes later: short for 6 minutes', () => {
    // The HPA divides the load over all its pods, ready or not, so it decides exactly as without start-up.
    expect(slow.steps.map((s) => s.plain.replicas)).to.deep.equal(zero.steps.map((s) => s.plain.replicas));
    // Pods added at RISE are ready at RISE + 180, so capacity for the interval (RISE + 180, RISE + 240].
    expect([0, 60, 120, 180, 240, 300, 360].map((dt) => at(slow, dt).plain.readyReplicas)).to.deep.equal([4, 4, 4, 4, 8, 16, 20]);
    expect(slow.summary.plain.underProvisionedMinutes).to.equal(6);
    expect(slow.summary.plain.unmetCoreMinutes).to.equal(8 * 4 + 6 + 2);
    expect(slow.summary.plain.underProvisionedMinutes).to.be.greaterThan(zero.summary.plain.underProvisionedMinutes);
    expect(slow.summary.podStartupSeconds).to.equal(180);
  });

  it('replica-hours count starting pods: the same as without start-up', () => {
    const sum = slow.steps.reduce((a, s) => a + s.plain.replicas, 0);
    expect(slow.summary.plain.replicaHours).to.equal(Number(((sum * 60) / 3600).toFixed(3)));
    expect(slow.summary.plain.replicaHours).to.equal(zero.summary.plain.replicaHours);
    expect(slow.summary.ehpa.replicaHours).to.equal(zero.summary.ehpa.replicaHours);
  });

  it('a start-up shorter than a step still costs one step: the pod is not ready for the whole interval', () => {
    const r = run(30);
    expect(r.summary.plain.underProvisionedMinutes).to.equal(4);
  });

  it('refuses a negative start-up', () => {
    expect(() => run(-1)).to.throw(RangeError, /start-up/);
  });

  describe('HpaReplay', () => {
    const replay = () =>
      new HpaReplay({
        metrics: [{ kind: 'cpu-utilization', label: 'cpu 50%', targetUtilization: 50 }],
        minReplicas: 1,
        maxReplicas: 50,
        podCpuRequestMilli: 1000,
        tolerance: 0.1,
        downscaleStabilizationMs: 0,
        initialReplicas: 4,
        predictionFallback: 'observed',
        podStartupMs: 300_000,
      });
    it('new pods are ready after the start-up; the initial ones at once', () => {
      const h = replay();
      expect(h.readyReplicas(0)).to.equal(4);
      expect(h.sync({ nowMs: 0, usageCores: 4 }).replicas).to.equal(8);
      expect(h.readyReplicas(0)).to.equal(4);
      expect(h.readyReplicas(299_999)).to.equal(4);
      expect(h.readyReplicas(300_000)).to.equal(8);
    });
    it('a removal takes effect at once and removes starting pods first', () => {
      const h = replay();
      h.sync({ nowMs: 0, usageCores: 4 }); // 8: 4 ready, 4 starting
      expect(h.sync({ nowMs: 60_000, usageCores: 2.5 }).replicas).to.equal(5);
      expect(h.readyReplicas(60_000)).to.equal(4);
      expect(h.readyReplicas(300_000)).to.equal(5);
      expect(h.sync({ nowMs: 120_000, usageCores: 1 }).replicas).to.equal(2);
      expect(h.readyReplicas(120_000)).to.equal(2);
      expect(h.readyReplicas(300_000)).to.equal(2);
    });
  });
});
