import { expect } from 'chai';
import { observedCpuQuery, observedPodCpuMillis, observedQueryTotal, podNamesRegex } from '../../../src/adapter/observed-usage.ts';
import type { HistoryProvider, HistorySeries } from '../../../src/prometheus/series.ts';

describe('observed CPU fallback (Prometheus)', () => {
  it('escapes regex metacharacters in pod names and joins them as alternatives', () => {
    expect(podNamesRegex(['web-1', 'a.b'])).to.equal('web-1|a\\.b');
    expect(observedCpuQuery('ns', ['a.b'])).to.equal(
      'sum by (pod) (rate(container_cpu_usage_seconds_total{namespace="ns",pod=~"a\\\\.b",container!="",container!="POD"}[1m]))',
    );
  });
  it('takes the newest finite point per pod, in millicores, over the lookback window', async () => {
    let asked: [string, number, number, number] | undefined;
    const history: HistoryProvider = {
      async queryRange(q, s, e, step): Promise<HistorySeries[]> {
        asked = [q, s, e, step];
        return [
          { labels: { pod: 'p-0' }, timestamps: [1, 2], values: [0.1, 0.2345] },
          { labels: { pod: 'p-1' }, timestamps: [], values: [] },
        ];
      },
    };
    const m = await observedPodCpuMillis(history, 'ns', ['p-0', 'p-1'], 1_000_000);
    expect([...m]).to.deep.equal([['p-0', 235]]);
    expect(asked?.slice(1)).to.deep.equal([820, 1000, 15]);
  });
  it('asks nothing for no pods', async () => {
    const history: HistoryProvider = { queryRange: () => Promise.reject(new Error('must not be called')) };
    expect((await observedPodCpuMillis(history, 'ns', [], 0)).size).to.equal(0);
  });
  it('observedQueryTotal sums the newest finite point of each series of the given query, undefined without data', async () => {
    let asked: [string, number, number, number] | undefined;
    const history: HistoryProvider = {
      async queryRange(q, st, e, step): Promise<HistorySeries[]> {
        asked = [q, st, e, step];
        return [
          { labels: { pod: 'p-0' }, timestamps: [1, 2], values: [5, 7.5] },
          { labels: { pod: 'p-1' }, timestamps: [1], values: [2.5] },
          { labels: { pod: 'p-2' }, timestamps: [1], values: [Number.NaN] },
        ];
      },
    };
    expect(await observedQueryTotal(history, 'sum(x{namespace="ns"})', 1_000_000)).to.equal(10);
    expect(asked).to.deep.equal(['sum(x{namespace="ns"})', 820, 1000, 15]);
    const empty: HistoryProvider = { queryRange: async () => [] };
    expect(await observedQueryTotal(empty, 'q', 0)).to.equal(undefined);
  });
});
