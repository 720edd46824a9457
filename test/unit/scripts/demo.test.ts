// The demo's pure pieces: where the trace is cut and how it is scaled, the cron window it schedules,
// reading the VPA loop from `serve --help`, and the printed line.
import { expect } from 'chai';
import { planTrace, traceValueAt } from '../../../scripts/demo/trace-plan.ts';
import { demoCronWindow, demoEhpa, serveOffersVpaRecommender } from '../../../scripts/demo/scenario.ts';
import { formatTick, hpaReason, tickFrom } from '../../../scripts/demo/observe.ts';
import { cronWindowActive } from '../../../src/cron/cron-window.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';

const DAY = 86_400;
const T0 = 1_700_006_400; // a UTC midnight

/** Three days at one minute: 1 unit all day, 5 units from 10:00 to 11:00. */
function dailyTrace(): { ts: number; value: number }[] {
  const out = [];
  for (let t = T0; t < T0 + 3 * DAY; t += 60) {
    const h = ((t - T0) % DAY) / 3600;
    out.push({ ts: t, value: h >= 10 && h < 11 ? 5 : 1 });
  }
  return out;
}

describe('scripts/demo', () => {
  describe('planTrace', () => {
    it('cuts the lead time before the last day\'s rise and keeps the history before the cut', () => {
      const p = planTrace(dailyTrace(), { historySeconds: 2 * DAY, lookaheadSeconds: 1800, p95Cores: 1.5, leadSeconds: 420 });
      // Candidates run every 5 min; the chosen one is the last before 10:00, whose coming half window is the rise.
      const rise = T0 + 2 * DAY + 10 * 3600;
      expect(p.riseTs).to.be.within(rise - 299, rise - 1);
      expect(p.cutTs).to.equal(p.riseTs - 420);
      expect(p.history[p.history.length - 1]!.ts).to.equal(p.cutTs);
      expect(p.history[0]!.ts).to.equal(p.cutTs - 2 * DAY + 60);
      // Two of the history's 48 hours are at 5 units (4.2 %), so its 95th percentile is 1 unit -> 1.5 cores.
      expect(p.scale).to.equal(1.5);
    });

    it('refuses a trace too short for history, lead and one window', () => {
      const short = dailyTrace().slice(0, 1440);
      expect(() => planTrace(short, { historySeconds: 2 * DAY, lookaheadSeconds: 1800, p95Cores: 1.5, leadSeconds: 420 })).to.throw(/covers 24\.0 h; the demo needs at least 48\.6 h/);
    });

    it('interpolates the live value and holds the ends', () => {
      const pts = [{ ts: 0, value: 1 }, { ts: 60, value: 3 }];
      expect([traceValueAt(pts, -5), traceValueAt(pts, 30), traceValueAt(pts, 90)]).to.deep.equal([1, 2, 3]);
    });
  });

  it('schedules the cron window on whole minutes at least 45 s ahead, open ~40 % of the watch', () => {
    const now = Date.UTC(2026, 10, 22, 9, 59, 20);
    const w = demoCronWindow(now, 5);
    expect([w.start, w.end]).to.deep.equal(['1 10 * * *', '3 10 * * *']);
    const cron = demoEhpa(w).spec.crons![0]!;
    // The adapter's own window logic agrees with the times the demo prints.
    expect(cronWindowActive(cron, (w.startS - 1) * 1000, 'UTC')).to.equal(false);
    expect(cronWindowActive(cron, w.startS * 1000, 'UTC')).to.equal(true);
    expect(cronWindowActive(cron, (w.endS - 1) * 1000, 'UTC')).to.equal(true);
    expect(cronWindowActive(cron, w.endS * 1000, 'UTC')).to.equal(false);
    expect(demoCronWindow(now, 2).endS - demoCronWindow(now, 2).startS).to.equal(60);
  });

  it('finds the VPA recommender only on the --controllers line of serve --help', () => {
    expect(serveOffersVpaRecommender('  --controllers string   comma-separated controllers to run (ehpa, tsp, vpa-recommender)')).to.equal(true);
    expect(serveOffersVpaRecommender('  --controllers string   comma-separated controllers to run (ehpa, tsp)\n  --vpa-recommender-x')).to.equal(false);
  });

  it('reads the forecast maximum over the window from the TSP and prints one line', () => {
    const t = 1_800_000_000;
    const tsp = {
      status: {
        conditions: [{ type: 'Ready', status: 'True', reason: 'PredictSucceed', message: '' }],
        predictionMetrics: [{ resourceIdentifier: 'crane_pod_cpu_usage', ready: true, prediction: [{ labels: [], samples: [
          { timestamp: t - 60, value: '0.20000' }, { timestamp: t, value: '0.25000' }, { timestamp: t + 600, value: '1.50000' }, { timestamp: t + 3600, value: '9.00000' },
        ] }] }],
      },
    } as unknown as TimeSeriesPrediction;
    const k = tickFrom({
      t, pods: 2, cpuCores: 0.36, cronActive: true, windowSeconds: 1800, container: 'app', cronValue: 10, tsp,
      hpa: { status: { desiredReplicas: 10, currentReplicas: 5, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 36 } } }], conditions: [
        { type: 'AbleToScale', status: 'True', reason: 'SucceededRescale' }, { type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound' }, { type: 'ScalingLimited', status: 'False', reason: 'DesiredWithinRange' },
      ] } },
      vpa: { status: { recommendation: { containerRecommendations: [{ containerName: 'app', target: { memory: '250Mi' } }] } } },
    });
    expect([k.forecastNowCores, k.forecastMaxCores, k.tspReady, k.hpaReason]).to.deep.equal([0.25, 1.5, true, 'SucceededRescale']);
    const line = formatTick(k, 30, true);
    expect(line).to.match(/^\d\d:\d\d:\d\d {2}cpu {2}0\.36 c \( 36% of req, {2}2 pods\) \| forecast max 30m {4}1\.50 c \| cron on 10 \| HPA desired 10 current {2}5 SucceededRescale +\| VPA memory 250Mi$/);
  });

  it('names the blocking condition first', () => {
    expect(hpaReason([{ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale' }, { type: 'ScalingActive', status: 'False', reason: 'FailedGetPodsMetric' }])).to.equal('FailedGetPodsMetric');
    expect(hpaReason([{ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale' }, { type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound' }, { type: 'ScalingLimited', status: 'True', reason: 'TooManyReplicas' }])).to.equal('TooManyReplicas');
    expect(hpaReason(undefined)).to.equal('-');
  });
});
