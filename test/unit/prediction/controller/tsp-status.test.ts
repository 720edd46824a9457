import { expect } from 'chai';
import { goFixed } from '../../../../src/prediction/controller/go-format.ts';
import { buildTspStatus, metricStatus, statusUpToDate, windowInSamples } from '../../../../src/prediction/controller/tsp-status.ts';
import { InterimSeasonalForecaster } from '../../../../src/prediction/controller/interim-forecaster.ts';
import type { TimeSeriesPrediction } from '../../../../src/prediction/types.ts';

describe('goFixed: Go %.5f', () => {
  it('matches Go on ordinary values (Crane example "1.23457")', () => {
    expect(goFixed(1.234567, 5)).to.equal('1.23457');
    expect(goFixed(2, 5)).to.equal('2.00000');
    expect(goFixed(-0.5, 5)).to.equal('-0.50000');
    expect(goFixed(1e-7, 5)).to.equal('0.00000');
  });
  it('rounds exact binary ties to even as Go does, where toFixed rounds up', () => {
    // 1/64 = 0.015625 exactly: Go prints 0.01562, JavaScript's toFixed(5) prints 0.01563.
    expect((1 / 64).toFixed(5)).to.equal('0.01563');
    expect(goFixed(1 / 64, 5)).to.equal('0.01562');
    expect(goFixed(3 / 64, 5)).to.equal('0.04688'); // 0.046875: tie, 4687 is odd → 4688
    expect(goFixed(-1 / 64, 5)).to.equal('-0.01562');
  });
});

const tsp = (status?: TimeSeriesPrediction['status']): TimeSeriesPrediction => ({
  apiVersion: 'prediction.crane.io/v1alpha1',
  kind: 'TimeSeriesPrediction',
  metadata: { name: 't', namespace: 'n' },
  spec: { targetRef: { kind: 'Deployment', name: 'w' }, predictionWindowSeconds: 600, predictionMetrics: [{ resourceIdentifier: 'crane_pod_cpu_usage', type: 'ResourceQuery', resourceQuery: 'cpu' }] },
  status,
});

describe('TSP status (spec §D.2, §D.10)', () => {
  const now = 1_700_000_030;
  it('windowInSamples compares against the window end truncated to the minute', () => {
    // window end 1700000630 truncates to 1700000580
    expect(windowInSamples([now + 550], now + 600)).to.equal(true);
    expect(windowInSamples([now + 549], now + 600)).to.equal(false);
    expect(windowInSamples([], now)).to.equal(false);
  });
  it('keeps samples in [start, end], formats values, and is ready when the window is covered', () => {
    const series = [{ labels: { b: '2', a: '1' }, timestamps: [now - 60, now, now + 600, now + 1200, now + 1260], values: [9, 1 / 64, 2, 3, 4] }];
    const st = metricStatus('crane_pod_cpu_usage', series, now, now + 1200, now + 600);
    expect(st).to.deep.equal({
      resourceIdentifier: 'crane_pod_cpu_usage',
      ready: true,
      prediction: [
        {
          labels: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }],
          samples: [{ value: '0.01562', timestamp: now }, { value: '2.00000', timestamp: now + 600 }, { value: '3.00000', timestamp: now + 1200 }],
        },
      ],
    });
    expect(metricStatus('x', [], now, now + 1200, now + 600).ready).to.equal(false);
  });
  it('sets Ready with PredictSucceed, PredictPartial or PredictFailed', () => {
    const ok = metricStatus('crane_pod_cpu_usage', [{ labels: {}, timestamps: [now, now + 600], values: [1, 1] }], now, now + 1200, now + 600);
    const s = buildTspStatus(tsp(), [{ status: ok }], now * 1000);
    expect(s.conditions?.[0]).to.include({ type: 'Ready', status: 'True', reason: 'PredictSucceed', message: '' });
    const failed = buildTspStatus(tsp(), [{ status: { resourceIdentifier: 'crane_pod_cpu_usage', ready: false, prediction: [] }, error: 'prometheus unreachable' }], now * 1000);
    expect(failed.conditions?.[0]).to.include({ status: 'False', reason: 'PredictFailed' });
    expect(failed.conditions?.[0]?.message).to.equal('not all metric predicted; crane_pod_cpu_usage: prometheus unreachable');
    const two = tsp();
    two.spec.predictionMetrics.push({ resourceIdentifier: 'mem', type: 'ResourceQuery', resourceQuery: 'memory' });
    const partial = buildTspStatus(two, [{ status: ok }, { status: { resourceIdentifier: 'mem', ready: false } }], now * 1000);
    expect(partial.conditions?.[0]?.reason).to.equal('PredictPartial');
  });
  it('is up to date only while every metric still covers [now, now + window]', () => {
    const st = buildTspStatus(tsp(), [{ status: metricStatus('crane_pod_cpu_usage', [{ labels: {}, timestamps: [now, now + 1200], values: [1, 1] }], now, now + 1200, now + 600) }], now * 1000);
    expect(statusUpToDate(tsp(st), now)).to.equal(true);
    expect(statusUpToDate(tsp(st), now + 700)).to.equal(false);
    expect(statusUpToDate(tsp(), now)).to.equal(false);
  });
});

describe('InterimSeasonalForecaster (interim stand-in for the DSP/percentile forecasters)', () => {
  const f = new InterimSeasonalForecaster();
  it('follows Crane config fallbacks for the history window', () => {
    expect(f.historyWindow({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } })).to.deep.equal({ lengthSeconds: 3 * 86_400, stepSeconds: 60 });
    // historyLength < 48 h: Crane silently uses the defaults (issue #352).
    expect(f.historyWindow({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '1d' } })).to.deep.equal({ lengthSeconds: 15 * 86_400, stepSeconds: 60 });
    expect(f.historyWindow({ algorithmType: 'percentile' })).to.deep.equal({ lengthSeconds: 7 * 86_400, stepSeconds: 60 });
  });
  it('dsp: repeats the daily pattern (max over past days) and needs two days', () => {
    const step = 3600;
    const ts: number[] = [];
    const vs: number[] = [];
    for (let t = 0; t < 3 * 86_400; t += step) {
      ts.push(t);
      vs.push((t / 3600) % 24);
    }
    const [out] = f.forecast([{ labels: {}, timestamps: ts, values: vs }], { algorithmType: 'dsp', dsp: { sampleInterval: '1h', historyLength: '3d' } }, { nowS: 3 * 86_400, horizonSeconds: 6 * 3600 });
    expect(out!.timestamps[0]).to.equal(3 * 86_400);
    expect(out!.values.slice(0, 6)).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect(f.forecast([{ labels: {}, timestamps: ts.slice(0, 24), values: vs.slice(0, 24) }], { algorithmType: 'dsp' }, { nowS: 86_400, horizonSeconds: 3600 })).to.deep.equal([]);
  });
  it('percentile: a constant at the percentile times margin over target utilization', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    const [out] = f.forecast([{ labels: {}, timestamps: values.map((v) => v * 60), values }], { algorithmType: 'percentile', percentile: { percentile: '0.9', marginFraction: '0.1', targetUtilization: '0.5' } }, { nowS: 6000, horizonSeconds: 600 });
    expect(out!.values[0]).to.be.closeTo((90 * 1.1) / 0.5, 1e-9);
    expect(out!.timestamps).to.deep.equal([6000, 6060, 6120, 6180, 6240, 6300, 6360, 6420, 6480, 6540]);
  });
});
