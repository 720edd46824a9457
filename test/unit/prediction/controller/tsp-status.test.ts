import { expect } from 'chai';
import { buildTspStatus, metricStatus, statusUpToDate, windowInSamples } from '../../../../src/prediction/controller/tsp-status.ts';
import type { TimeSeriesPrediction } from '../../../../src/api/prediction.ts';

const tsp = (status?: TimeSeriesPrediction['status']): TimeSeriesPrediction => ({
  apiVersion: 'prediction.crane.io/v1alpha1',
  kind: 'TimeSeriesPrediction',
  metadata: { name: 't', namespace: 'n' },
  spec: { targetRef: { kind: 'Deployment', name: 'w' }, predictionWindowSeconds: 600, predictionMetrics: [{ resourceIdentifier: 'crane_pod_cpu_usage', type: 'ResourceQuery', resourceQuery: 'cpu' }] },
  status,
});

describe('TSP status (crane-behaviour.md §D.2, §D.10)', () => {
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
  it('formats the shown samples once per fit: later passes over them slice the same text, another series gets its own', () => {
    const a = { labels: {}, timestamps: [60, 120, 180], values: [0.1, 1 / 3, 2.675] };
    const b = { labels: {}, timestamps: [60, 120, 180], values: [7, 8, 9.000005] };
    const first = metricStatus('cpu', [a], 60, 180, 180).prediction![0]!.samples.map((x) => x.value);
    // "%.5f" of each value, as Go formats it.
    expect(first).to.deep.equal(['0.10000', '0.33333', '2.67500']);
    // A later pass with the window moved on: the same strings for the samples still in it.
    expect(metricStatus('cpu', [a], 120, 180, 180).prediction![0]!.samples.map((x) => x.value)).to.deep.equal(['0.33333', '2.67500']);
    // Same resource, same timestamps, another fit: its own values, not the first fit's (9.000005 is
    // 9.00000499… in binary, so Go's correctly rounded "%.5f" gives 9.00000).
    expect(metricStatus('cpu', [b], 60, 180, 180).prediction![0]!.samples.map((x) => x.value)).to.deep.equal(['7.00000', '8.00000', '9.00000']);
  });

  it('a window sliding over one fit (on, back, past the end) always shows each sample its own text', () => {
    // 841 samples a minute apart (12 h + 2 h at 60 s, what the controller caches); value i + 0.123456 is
    // "i.12346" in %.5f. The memo holds only the stretch last shown: every move must re-use or re-format
    // exactly the right indexes.
    const ts = Array.from({ length: 841 }, (_, i) => 60 * i);
    const s = { labels: {}, timestamps: ts, values: ts.map((_, i) => i + 0.123456) };
    for (const [from, to] of [[0, 7200], [600, 7800], [300, 3000], [7200, 14400], [48_000, 60_000], [0, 60]]) {
      const got = metricStatus('cpu', [s], from as number, to as number, to as number).prediction![0]!.samples;
      const want = ts.filter((t) => t >= (from as number) && t <= Math.min(to as number, 50_400)).map((t) => ({ value: `${t / 60}.12346`, timestamp: t }));
      expect(got, `[${from}, ${to}]`).to.deep.equal(want);
    }
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
