import { expect } from 'chai';
import { cachedObservedUsage, ObservedCache, OBSERVED_REFRESH_MS } from '../../../src/adapter/observed-cache.ts';
import { asUser, startTestAdapter } from '../../helpers/adapter-fixture.ts';
import type { AdapterSources } from '../../../src/adapter/providers/sources.ts';
import { ehpa, pod, UID } from './fixtures.ts';
import { observedQueryTotal } from '../../../src/adapter/observed-usage.ts';
import type { HistoryProvider, QueryRangeOptions } from '../../../src/prometheus/series.ts';

/** A Prometheus that counts queries and answers each with the number of queries so far. */
function countingHistory(): HistoryProvider & { queries: { query: string; options?: QueryRangeOptions }[]; fail?: Error } {
  const h = {
    queries: [] as { query: string; options?: QueryRangeOptions }[],
    fail: undefined as Error | undefined,
    async queryRange(query: string, _s: number, end: number, _step: number, options?: QueryRangeOptions) {
      h.queries.push({ query, ...(options ? { options } : {}) });
      await new Promise((r) => setImmediate(r));
      if (h.fail) throw h.fail;
      return [{ labels: {}, timestamps: [end], values: [h.queries.length] }];
    },
  };
  return h;
}

describe('the observed fallback, kept for a refresh interval', () => {
  const Q = 'sum(rate(http_requests_total{namespace="a"}[1m]))';

  it('100 metric requests in one interval cost one Prometheus query; the next interval one more', async () => {
    const start = 1_700_000_000_000;
    let now = start;
    const h = countingHistory();
    const cache = new ObservedCache<number | undefined>(() => now);
    const ask = () => cache.get(['a', Q], () => observedQueryTotal(h, Q, now, { namespace: 'a' }));
    // 50 at once (one query in flight, all wait for it), then 50 spread over the interval.
    const first = await Promise.all(Array.from({ length: 50 }, ask));
    expect(first.every((v) => v === 1)).to.equal(true);
    for (let i = 0; i < 50; i++) {
      now += 299; // 50 × 299 ms: the last one 14.95 s after the first
      expect(await ask()).to.equal(1);
    }
    expect(h.queries).to.have.length(1);
    expect(h.queries[0]!.options).to.deep.equal({ namespace: 'a' });
    now = start + OBSERVED_REFRESH_MS;
    expect(await ask()).to.equal(2);
    expect(h.queries).to.have.length(2);
  });

  it('keys by namespace and query: another query or namespace is its own entry', async () => {
    const now = 0;
    const h = countingHistory();
    const cache = new ObservedCache<number | undefined>(() => now);
    await cache.get(['a', Q], () => observedQueryTotal(h, Q, now));
    await cache.get(['b', Q], () => observedQueryTotal(h, Q, now));
    await cache.get(['a', `${Q} * 2`], () => observedQueryTotal(h, `${Q} * 2`, now));
    await cache.get(['a', Q], () => observedQueryTotal(h, Q, now));
    expect(h.queries).to.have.length(3);
    // Parts are not simply concatenated: ['a', 'bc'] is not ['ab', 'c'].
    await cache.get(['ab', 'c'], () => observedQueryTotal(h, Q, now));
    await cache.get(['a', 'bc'], () => observedQueryTotal(h, Q, now));
    expect(h.queries).to.have.length(5);
  });

  it('keeps a failure as long as a value: a query that timed out is not re-run by every request', async () => {
    let now = 0;
    const h = countingHistory();
    h.fail = new Error('prometheus: query timed out');
    const cache = new ObservedCache<number | undefined>(() => now);
    const ask = () => cache.get(['a', Q], () => observedQueryTotal(h, Q, now));
    for (let i = 0; i < 20; i++) await ask().then(() => expect.fail('answered'), (e: Error) => expect(e.message).to.match(/timed out/));
    expect(h.queries).to.have.length(1);
    h.fail = undefined;
    now += OBSERVED_REFRESH_MS;
    expect(await ask()).to.equal(2);
  });

  it('holds at most maxEntries, dropping expired entries first and then the oldest', async () => {
    let now = 0;
    const cache = new ObservedCache<number>(() => now, { maxEntries: 3, ttlMs: 1000 });
    let loads = 0;
    const load = async () => ++loads;
    await cache.get(['1'], load);
    now = 2000;
    await cache.get(['2'], load);
    await cache.get(['3'], load);
    await cache.get(['4'], load); // '1' has expired: it goes
    expect(cache.size).to.equal(3);
    await cache.get(['5'], load); // none expired: the oldest, '2', goes
    expect(cache.size).to.equal(3);
    expect(await cache.get(['3'], load)).to.equal(3); // still kept
    expect(await cache.get(['2'], load)).to.equal(6); // loaded again
  });

  it('a clock that steps back does not keep a value forever', async () => {
    let now = 10_000;
    const cache = new ObservedCache<number>(() => now);
    let loads = 0;
    await cache.get(['k'], async () => ++loads);
    now = 0;
    expect(await cache.get(['k'], async () => ++loads)).to.equal(2);
  });
});

describe('the observed fallback through the adapter, as serve wires it (cachedObservedUsage)', function () {
  this.timeout(30_000);

  it('20 HPA requests for a metric without a forecast cost one Prometheus query per 15 s; the pod CPU fallback too', async () => {
    const a = await startTestAdapter();
    try {
      a.authorizer.allowedUsers.add('hpa');
      const e = ehpa({ metrics: [{ type: 'Pods', pods: { metric: { name: 'http_requests' }, target: { type: 'AverageValue', averageValue: '10' } } }] });
      e.metadata.annotations = { 'metric-query.autoscaling.crane.io/pods.http_requests': 'sum(rate(http_requests_total[5m]))' };
      a.sources.ehpas.push(e);
      a.sources.pods.push(pod('web-1', a.clock.now), pod('web-2', a.clock.now));
      const h = countingHistory();
      Object.assign(a.sources as AdapterSources, cachedObservedUsage(h, () => a.clock.now));
      const uidSel = `autoscaling.crane.io%2Feffective-hpa-uid%3D${UID}`;
      const custom = `/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/%2A/crane_custom.pods_http_requests?labelSelector=app%3Dweb&metricLabelSelector=${uidSel}`;
      const cpu = `/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/%2A/crane_pod_cpu_usage?labelSelector=app%3Dweb&metricLabelSelector=${uidSel}`;
      const get = (path: string) => a.get(path, { headers: asUser('hpa') });
      const rs = await Promise.all(Array.from({ length: 10 }, () => get(custom)));
      for (let i = 0; i < 10; i++) rs.push(await get(custom));
      expect(rs.map((r) => r.status)).to.deep.equal(new Array(20).fill(200));
      const httpQueries = () => h.queries.filter((q) => q.query.includes('http_requests_total'));
      expect(httpQueries()).to.have.length(1);
      expect(httpQueries()[0]!.query).to.contain('namespace="default"');
      expect(httpQueries()[0]!.options).to.deep.equal({ namespace: 'default' });
      for (let i = 0; i < 20; i++) await get(cpu);
      const cpuQueries = () => h.queries.filter((q) => q.query.includes('container_cpu_usage_seconds_total'));
      expect(cpuQueries()).to.have.length(1);
      a.clock.now += OBSERVED_REFRESH_MS;
      await get(custom);
      await get(cpu);
      expect(httpQueries()).to.have.length(2);
      expect(cpuQueries()).to.have.length(2);
    } finally {
      await a.close();
    }
  });
});
