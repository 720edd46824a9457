import { expect } from 'chai';
import { maxForecastInWindow, perPodMillis, readyPredictionSeries } from '../../../src/metric-values/forecast-window.ts';
import { cronReplicas } from '../../../src/metric-values/cron-replicas.ts';
import type { PredictionMetricStatus, TimeSeriesPrediction } from '../../../src/api/prediction.ts';

const series = (samples: [number, string][], ready = true): PredictionMetricStatus => ({
  resourceIdentifier: 'crane_pod_cpu_usage',
  ready,
  prediction: [{ labels: [], samples: samples.map(([timestamp, value]) => ({ timestamp, value })) }],
});

describe('maxForecastInWindow (crane-behaviour.md §C.2/§C.3)', () => {
  const now = 1_000_000;
  it('takes the largest sample in [now, now+window], both ends inclusive', () => {
    const m = series([[now - 60, '9.00000'], [now, '1.50000'], [now + 1800, '2.25000'], [now + 3600, '3.00000'], [now + 3601, '8.00000']]);
    expect(maxForecastInWindow(m, now * 1000 + 999, 3600)).to.deep.equal({ ok: true, largest: 3 });
  });
  it('reads values at float32 precision like ParseFloat(s, 32)', () => {
    const r = maxForecastInWindow(series([[now, '0.10000']]), now * 1000, 60);
    expect(r).to.deep.equal({ ok: true, largest: Math.fround(0.1) });
    expect(Math.fround(0.1)).to.not.equal(0.1);
  });
  it('a window whose samples are all negative or zero yields 0, never a negative usage', () => {
    // First principles: usage cannot be negative, and a negative per-pod value would make the HPA's ratio
    // negative. A forecast of 0 is still a forecast (not "outdated"), so the window max is clamped at 0.
    expect(maxForecastInWindow(series([[now, '-0.50000'], [now + 60, '-2.00000']]), now * 1000, 3600)).to.deep.equal({ ok: true, largest: 0 });
    expect(maxForecastInWindow(series([[now, '-0.50000'], [now + 60, '0.00000']]), now * 1000, 3600)).to.deep.equal({ ok: true, largest: 0 });
    expect(maxForecastInWindow(series([[now, '-0.50000'], [now + 60, '0.25000']]), now * 1000, 3600)).to.deep.equal({ ok: true, largest: 0.25 });
  });
  it('reports an outdated forecast when no point is in the window', () => {
    const r = maxForecastInWindow(series([[now - 1, '1.00000']]), now * 1000, 3600);
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.problem.reason).to.equal('Outdated');
  });
  it('accepts only a ready metric with exactly one series', () => {
    const tsp = (metrics: PredictionMetricStatus[]) => ({ status: { predictionMetrics: metrics } }) as unknown as TimeSeriesPrediction;
    expect(readyPredictionSeries(tsp([series([], false)]), 'crane_pod_cpu_usage')).to.deep.include({ ok: false });
    const notReady = readyPredictionSeries(tsp([series([], false)]), 'crane_pod_cpu_usage');
    if (!notReady.ok) expect(notReady.problem.reason).to.equal('NotReady');
    const two = { ...series([]), prediction: [{ labels: [], samples: [] }, { labels: [], samples: [] }] };
    const r = readyPredictionSeries(tsp([two]), 'crane_pod_cpu_usage');
    if (!r.ok) expect(r.problem.reason).to.equal('NoSeries');
    else expect.fail('two series must be refused');
    expect(readyPredictionSeries(tsp([series([])]), 'crane_pod_cpu_usage').ok).to.equal(true);
    expect(readyPredictionSeries(tsp([series([])]), 'resource.cpu').ok).to.equal(false);
  });
  it('splits the total evenly over available pods in millicores, rounded', () => {
    expect(perPodMillis(0.7, 3)).to.equal(233);
    expect(perPodMillis(2, 1)).to.equal(2000);
    expect(perPodMillis(1, 6)).to.equal(167);
    expect(() => perPodMillis(1, 0)).to.throw(/no available pods/);
  });
});

describe('cronReplicas (Crane EHPA tutorial, "Mechanism")', () => {
  it('uses the largest targetReplicas among active crons', () => {
    expect(cronReplicas({ activeTargets: [3, 80, 10], hasOtherMetrics: true, minReplicas: 5 })).to.deep.equal({ ok: true, replicas: 80, why: 'active' });
  });
  it('falls to minReplicas with other metrics, else to the current replicas', () => {
    expect(cronReplicas({ activeTargets: [], hasOtherMetrics: true, minReplicas: 2, currentReplicas: 7 })).to.deep.equal({ ok: true, replicas: 2, why: 'min' });
    expect(cronReplicas({ activeTargets: [], hasOtherMetrics: false, minReplicas: 2, currentReplicas: 7 })).to.deep.equal({ ok: true, replicas: 7, why: 'current' });
    expect(cronReplicas({ activeTargets: [], hasOtherMetrics: false, minReplicas: 2 }).ok).to.equal(false);
  });
});
