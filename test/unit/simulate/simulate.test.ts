// The replay core on small crafted inputs whose answers can be worked out by hand.
import { expect } from 'chai';
import type { EffectiveHorizontalPodAutoscaler } from '../../../src/api/ehpa.ts';
import { simulate, perPodTargetCores, type SimulationOptions } from '../../../src/simulate/simulate.ts';
import { replayableMetrics, HpaReplay } from '../../../src/simulate/hpa-replay.ts';
import { rangeQuery, forecastPlan } from '../../../src/simulate/tsp-replay.ts';
import { parseEhpaYaml, podCpuRequestFromAnnotation, SimulationInputError } from '../../../src/simulate/ehpa-input.ts';

const DAY = 86_400;
// 2023-11-20 00:00:00 UTC, a Monday.
const T0 = 1_700_438_400;

function ehpa(spec: Partial<EffectiveHorizontalPodAutoscaler['spec']>): EffectiveHorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default', uid: 'u1' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 50,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
      ...spec,
    },
  };
}

function series(from: number, to: number, step: number, f: (t: number) => number) {
  const timestamps: number[] = [];
  const values: number[] = [];
  for (let t = from; t <= to; t += step) {
    timestamps.push(t);
    values.push(f(t));
  }
  return { timestamps, values };
}

function options(o: Partial<SimulationOptions> & Pick<SimulationOptions, 'ehpa' | 'history' | 'fromS' | 'toS'>): SimulationOptions {
  return {
    stepSeconds: 60,
    podCpuRequestMilli: 1000,
    tolerance: 0.1,
    downscaleStabilizationSeconds: 300,
    localZone: 'UTC',
    seed: 1,
    predictionFallback: 'observed',
    forecastRetrySeconds: 600,
    ...o,
  };
}

describe('simulate core', function () {
  this.timeout(120_000);

  describe('a cron window forces replicas', () => {
    // Constant 1 core, 1-core requests at 50%: 0.5 core per pod, so the CPU metric alone wants 2 pods.
    const e = ehpa({ crons: [{ name: 'peak', timezone: 'UTC', start: '0 10 * * *', end: '0 11 * * *', targetReplicas: 7 }] });
    const history = series(T0, T0 + DAY, 60, () => 1);
    const { steps, summary } = simulate(options({ ehpa: e, history, fromS: T0 + 9 * 3600, toS: T0 + 12 * 3600 }));
    const at = (hhmm: string) => {
      const [h, m] = hhmm.split(':').map(Number) as [number, number];
      const s = steps.find((x) => x.t === T0 + h * 3600 + m * 60);
      if (!s) throw new Error(`no step at ${hhmm}`);
      return s;
    };

    it('before the window both autoscalers hold 2 replicas (50% of 2 cores is exactly the target)', () => {
      expect(summary.initialReplicas).to.equal(2);
      expect(at('09:59').ehpa.replicas).to.equal(2);
      expect(at('09:59').cronReplicas).to.equal(1); // no cron active, other metrics present: minReplicas
    });
    it('at 10:00 the cron asks for 7 but one sync may only reach max(2×2, 4) = 4; 10:01 reaches 7', () => {
      expect(at('10:00').cronReplicas).to.equal(7);
      expect(at('10:00').ehpa.replicas).to.equal(4);
      expect(at('10:00').ehpa.limitedBy).to.equal('ScaleUpLimit');
      expect(at('10:01').ehpa.replicas).to.equal(7);
      expect(at('10:59').ehpa.replicas).to.equal(7);
    });
    // Upstream (horizontal.go stabilizeRecommendation, no behavior) drops a past proposal only once it is
    // Before(now - 5 min): at 11:04 the 10:59 proposal is exactly 5 minutes old and still counts.
    it('the window closes at 11:00 and the 5-minute stabilization keeps 7 until the 10:59 proposal leaves it (11:05)', () => {
      expect(at('11:00').cronReplicas).to.equal(1);
      // CPU: trunc(1000·100/7000) = 14% → ceil(0.28·7) = 2; cron: ceil(1/1) = 1.
      expect(at('11:00').ehpa.proposals).to.deep.equal({ 'cpu 50%': 2, crane_autoscaling_cron: 1 });
      expect(at('11:04').ehpa.replicas).to.equal(7);
      expect(at('11:05').ehpa.replicas).to.equal(2);
    });
    it('the plain HPA never moves and nobody is under-provisioned', () => {
      expect(steps.every((s) => s.plain.replicas === 2)).to.equal(true);
      expect(summary.plain.replicaChanges).to.equal(0);
      expect(summary.ehpa.replicaChanges).to.equal(3); // 2→4, 4→7, 7→2
      expect(summary.ehpa.underProvisionedMinutes).to.equal(0);
      expect(summary.plain.underProvisionedMinutes).to.equal(0);
      expect(summary.steps).to.equal(181);
    });
  });

  describe('prediction leads the plain HPA on a daily ramp', () => {
    // 2 cores at night; from 08:00 a linear ramp to 20 cores at 10:00; flat until 18:00; back to 2 by 19:00.
    const daily = (t: number) => {
      const h = ((t - T0) % DAY) / 3600;
      if (h < 8) return 2;
      if (h < 10) return 2 + 9 * (h - 8);
      if (h < 18) return 20;
      if (h < 19) return 20 - 18 * (h - 18);
      return 2;
    };
    const e = ehpa({
      prediction: {
        predictionWindowSeconds: 3600,
        predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '300s', historyLength: '3d' } },
      },
    });
    const history = series(T0, T0 + 4 * DAY, 60, daily);
    const day4 = T0 + 3 * DAY;
    const { steps, summary } = simulate(options({ ehpa: e, history, fromS: day4 + 6 * 3600, toS: day4 + 10 * 3600 }));
    const at = (h: number, m = 0) => steps.find((s) => s.t === day4 + h * 3600 + m * 60)!;

    it('the desired HPA carries the predicted-CPU metric with the converted 500m target', () => {
      expect(summary.ehpaMetrics).to.deep.equal(['cpu 50%', 'crane_pod_cpu_usage 500m/pod']);
      expect(summary.forecast?.failedRefreshes).to.equal(0);
      expect(summary.forecast?.refreshes).to.be.within(3, 5); // about once per window over 4 hours
    });
    it('at 07:30 the EHPA already provisions for the coming ramp; the plain HPA sits at 2 cores / 0.5 = 4', () => {
      expect(at(7, 30).plain.replicas).to.equal(4);
      // The forecast max over [07:30, 08:30] is about 2 + 9·0.5 = 6.5 cores → ~13 pods.
      expect(at(7, 30).forecastWindowMaxCores).to.be.within(5.5, 8);
      expect(at(7, 30).ehpa.replicas).to.be.within(11, 17);
    });
    it('the plain HPA is under-provisioned through most of the ramp (08:00-10:00), the EHPA hardly at all', () => {
      // Plain: after each scale-up usage grows 0.15 core/min and it waits for 10% tolerance: short most minutes.
      // (On the flat top both sit inside the 10% tolerance band just under the target: the HPA's dead band.)
      expect(summary.plain.underProvisionedMinutes).to.be.greaterThan(60);
      expect(summary.ehpa.underProvisionedMinutes).to.be.lessThan(summary.plain.underProvisionedMinutes / 4);
      expect(summary.ehpa.averageReplicas).to.be.greaterThan(summary.plain.averageReplicas);
    });
  });

  describe('forecast refreshes follow the TSP controller\'s freshness rule', () => {
    // Percentile over a constant 3 cores: a constant forecast. Status covers [t, t + 2w]; it is stale once
    // the last sample is before now + w, i.e. refreshes at t0, t0 + w + 60, t0 + 2w + 120.
    const e = ehpa({
      prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'percentile', percentile: { sampleInterval: '60s', historyLength: '1h', histogram: { halfLife: '24h' } } } },
    });
    const history = series(T0, T0 + 6 * 3600, 60, () => 3);
    const from = T0 + 2 * 3600;
    const { steps, summary } = simulate(options({ ehpa: e, history, fromS: from, toS: from + 3 * 3600 - 60 }));
    it('refreshes at the start, after one window and one minute, and again', () => {
      const refreshed = steps.filter((s) => s.forecastRefresh).map((s) => s.t - from);
      expect(refreshed).to.deep.equal([0, 3660, 7320]);
      expect(summary.forecast?.refreshes).to.equal(3);
    });
    it('the adapter value is the window max split over the pods', () => {
      const s = steps[10]!;
      expect(s.forecastWindowMaxCores).to.be.greaterThan(3);
      const perPod = Math.round((s.forecastWindowMaxCores! * 1000) / s.ehpa.replicas);
      // The step's proposal is ceil(perPod·n / 500m) unless within tolerance.
      const proposal = s.ehpa.proposals['crane_pod_cpu_usage 500m/pod'] as number;
      expect(proposal === s.ehpa.replicas || proposal === Math.ceil((perPod / 500) * s.ehpa.replicas)).to.equal(true);
    });
  });

  describe('without a forecast', () => {
    const e = ehpa({ prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'nope' } } });
    const history = series(T0, T0 + 3 * 3600, 60, (t) => (t < T0 + 3600 ? 10 : 1));
    it('observed fallback: the predicted metric follows usage, so the EHPA scales down like the plain HPA', () => {
      const { summary } = simulate(options({ ehpa: e, history, fromS: T0 + 1800, toS: T0 + 3 * 3600 }));
      expect(summary.stepsWithoutForecast).to.equal(summary.steps);
      expect(summary.ehpa.minReplicas).to.equal(2);
      expect(summary.plain.minReplicas).to.equal(2);
    });
    it('error fallback (Crane): a failing metric blocks scale-down, so the EHPA stays at 20', () => {
      const { steps } = simulate(options({ ehpa: e, history, fromS: T0 + 1800, toS: T0 + 3 * 3600, predictionFallback: 'error' }));
      expect(steps[0]!.ehpa.replicas).to.equal(20);
      expect(steps.every((s) => s.ehpa.replicas === 20)).to.equal(true);
      expect(steps[steps.length - 1]!.ehpa.limitedBy).to.equal('FailedGetMetrics');
      expect(steps[steps.length - 1]!.plain.replicas).to.equal(2);
    });
  });

  describe('pieces', () => {
    it('replayableMetrics keeps CPU, predicted CPU and cron metrics and names the rest', () => {
      const r = replayableMetrics([
        { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 60 } } },
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '750m' } } },
        { type: 'External', external: { metric: { name: 'qps' }, target: { type: 'Value', value: '10' } } },
      ]);
      expect(r.metrics).to.deep.equal([{ kind: 'cpu-average-value', label: 'cpu 750m/pod', targetMilli: 750 }]);
      expect(r.skipped).to.deep.equal(['Resource memory', 'External qps']);
    });
    it('the per-pod target is utilization × request, or the average value', () => {
      expect(perPodTargetCores(ehpa({}).spec.metrics!, 4000)).to.equal(2);
      expect(perPodTargetCores([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '1500m' } } }], 4000)).to.equal(1.5);
      expect(perPodTargetCores([], 1000)).to.equal(0.8);
    });
    it('an HPA out of range is brought into range before metrics are read', () => {
      const h = new HpaReplay({ metrics: [], minReplicas: 3, maxReplicas: 5, podCpuRequestMilli: 1000, tolerance: 0.1, downscaleStabilizationMs: 0, initialReplicas: 9, predictionFallback: 'observed' });
      expect(h.sync({ nowMs: 0, usageCores: 1 })).to.deep.equal({ replicas: 5, proposals: {}, limitedBy: 'TooManyReplicas' });
    });
    it('rangeQuery returns the newest sample within 5 minutes of each grid time, none across a hole', () => {
      const s = { timestamps: [0, 60, 120, 1000], values: [1, 2, 3, 4] };
      expect(rangeQuery(s, 0, 1200, 300)).to.deep.equal({ timestamps: [0, 300, 1200], values: [1, 3, 4] });
    });
    it('forecastPlan: Crane estimators when the EHPA lists them, auto otherwise, none for unknown types', () => {
      expect(forecastPlan({ algorithmType: 'dsp' })?.config.estimators).to.equal('auto');
      expect(forecastPlan({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d', estimators: { maxValue: [{ marginFraction: '0.1' }] } } })?.config.estimators).to.equal('crane');
      expect(forecastPlan({ algorithmType: 'dsp', dsp: { sampleInterval: '2h', historyLength: '3d' } })?.settingsError).to.match(/too long/);
      expect(forecastPlan({ algorithmType: 'lstm' })).to.equal(undefined);
    });
    it('parseEhpaYaml picks the EHPA from a multi-document file and refuses invalid ones', () => {
      const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\napiVersion: autoscaling.crane.io/v1alpha1\nkind: EffectiveHorizontalPodAutoscaler\nmetadata:\n  name: a\n  annotations: {simulate.ehpa-adapter.io/pod-cpu-request: 1500m}\nspec:\n  scaleTargetRef: {kind: Deployment, name: a}\n  maxReplicas: 3\n`;
      const e = parseEhpaYaml(text);
      expect(e.metadata).to.include({ name: 'a', namespace: 'default' });
      expect(podCpuRequestFromAnnotation(e)).to.equal(1500);
      expect(() => parseEhpaYaml('kind: ConfigMap\n')).to.throw(SimulationInputError, /no document of kind/);
      expect(() => parseEhpaYaml(text.replace('maxReplicas: 3', 'maxReplicas: 0'))).to.throw(SimulationInputError, /InvalidReplicaRange/);
      expect(() => parseEhpaYaml('a: [1,\n')).to.throw(SimulationInputError, /not YAML/);
    });
  });
});
