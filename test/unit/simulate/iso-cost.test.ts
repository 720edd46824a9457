// src/simulate/iso-cost.ts: the EHPA and the plain HPAs at lower targets on one synthetic history (no
// prediction here, so no fitting: the replays are the HPA's alone; the forecast side is simulate's own tests).
import { expect } from 'chai';
import type { EffectiveHorizontalPodAutoscaler } from '../../../src/api/ehpa.ts';
import { SimulationInputError } from '../../../src/simulate/ehpa-input.ts';
import { FRONTIER_SHARES, isoCost, isoCostTable } from '../../../src/simulate/iso-cost.ts';
import type { SimulationOptions } from '../../../src/simulate/simulate.ts';

// One day at one-minute steps: a 4-core base with a ramp to 12 cores every 30 minutes (rises a reactive HPA lags).
const history = { timestamps: [] as number[], values: [] as number[] };
for (let i = 0; i < 1440; i++) {
  history.timestamps.push(1_700_000_000 + 60 * i);
  history.values.push(4 + 8 * ((i % 30) / 29));
}

function ehpa(target: Record<string, unknown>): EffectiveHorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 100,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target } }],
    },
  } as unknown as EffectiveHorizontalPodAutoscaler;
}

const options = (e: EffectiveHorizontalPodAutoscaler, podStartupSeconds = 120): SimulationOptions => ({
  ehpa: e,
  history,
  fromS: history.timestamps[60] as number,
  toS: history.timestamps[1439] as number,
  stepSeconds: 60,
  podCpuRequestMilli: 1000,
  tolerance: 0.1,
  downscaleStabilizationSeconds: 300,
  localZone: 'UTC',
  seed: 1,
  predictionFallback: 'observed',
  forecastRetrySeconds: 600,
  podStartupSeconds,
});

describe('iso-cost comparison (src/simulate/iso-cost.ts)', function () {
  this.timeout(120_000);

  it('replays a plain HPA per lower target; lower targets cost more and are short less', () => {
    const r = isoCost(options(ehpa({ type: 'Utilization', averageUtilization: 50 })));
    expect(r.frontier).to.have.length(FRONTIER_SHARES.length);
    expect(r.frontierTargets.slice(0, 3)).to.deep.equal(['50%', '49%', '48%']);
    expect(r.frontierTargets[r.frontierTargets.length - 1]).to.equal('20%');
    expect(r.perPodCores).to.equal(0.5);
    const first = r.frontier[0]!;
    const last = r.frontier[r.frontier.length - 1]!;
    expect(last.replicaHours).to.be.greaterThan(first.replicaHours);
    expect(first.shortMinutes).to.be.greaterThan(last.shortMinutes);
    // Without prediction the EHPA IS the plain HPA at its own target: a tie, which does not pay.
    expect(r.ehpa).to.deep.equal({ shortMinutes: first.shortMinutes, replicaHours: first.replicaHours });
    expect(r.verdict.pays).to.equal(false);
    const table = isoCostTable(r);
    expect(table.split('\n').filter((l) => l.startsWith('| plain HPA |'))).to.have.length(FRONTIER_SHARES.length);
    expect(table).to.match(/^\| EHPA as written \| 50% \| \d+ \| [\d.]+ \| 1\.00 \|$/m).and.match(/^Verdict: prediction does not pay \(/m);
  });

  it('lowers an AverageValue target the same way, in the unit the user wrote', () => {
    const r = isoCost(options(ehpa({ type: 'AverageValue', averageValue: '500m' }), 0));
    expect(r.ownTarget).to.equal('500m/pod');
    expect(r.frontierTargets.slice(0, 2)).to.deep.equal(['500m/pod', '490m/pod']);
    expect(r.frontier[1]!.replicaHours).to.be.at.least(r.frontier[0]!.replicaHours);
  });

  it('refuses an EHPA without a CPU target to lower, with the reason', () => {
    const e = ehpa({ type: 'Utilization', averageUtilization: 50 });
    e.spec.metrics = [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } }];
    expect(() => isoCost(options(e))).to.throw(SimulationInputError, /needs a Resource cpu metric with a Utilization or AverageValue target/);
  });
});
