// Pure pieces of the recommender's inputs: selectors from targets, history attribution by pod name,
// Prometheus answers into samples, and the serve flags.
import { expect } from 'chai';
import { parseFlags, UsageError } from '../../../../src/config/flags.ts';
import { parseLabelSelector } from '../../../../src/selectors/label-selector.ts';
import { historyPodLabelsByName } from '../../../../src/vpa/input/history-attribution.ts';
import { VPA_RECOMMENDER_FLAGS, recommenderConfigFromFlags } from '../../../../src/vpa/routines/recommender-flags.ts';
import { equalityLabels } from '../../../../src/vpa/input/target-selectors.ts';
import { vpaSelectedByRecommender } from '../../../../src/vpa/input/vpa-filter.ts';
import { formatLabelSelector } from '../../../../src/selectors/label-selector.ts';
import { AutoUsage, MetricsApiUsage, PrometheusCurrentUsage, podHistoriesFromSeries, prometheusPodHistory, promTimeToInstant } from '../../../../src/vpa/input/usage-sources.ts';
import { PrometheusClient } from '../../../../src/prometheus/client.ts';
import { KubeApiError, type KubeApiClient } from '../../../../src/kube/api-client.ts';
import { historyQueries, podLabelsFromSeries, type PrometheusHistoryConfig } from '../../../../src/vpa/input/prometheus-history.ts';
import { vpaObj } from '../routines/fixtures.ts';

const labels: PrometheusHistoryConfig = {
  cadvisorMetricsJobName: 'kubelet',
  ctrPodNameLabel: 'pod',
  ctrNameLabel: 'container',
  ctrNamespaceLabel: 'namespace',
  historyResolution: '3600s',
  cpuMetricName: 'container_cpu_usage_seconds_total',
  memoryMetricName: 'container_memory_working_set_bytes',
  podLabelsMetricName: '',
  podNamespaceLabel: 'kubernetes_namespace',
  podNameLabel: 'kubernetes_pod_name',
  podLabelPrefix: 'pod_label_',
};

describe('vpa routines: inputs', () => {
  it('turns a LabelSelector into the string form /scale reports, and reads its equality labels', () => {
    // Sorted by key across matchLabels and matchExpressions, as apimachinery's Selector.Add sorts them.
    const s = formatLabelSelector({ matchLabels: { tier: 'web', app: 'shop' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'canary'] }, { key: 'old', operator: 'DoesNotExist' }] });
    expect(s).to.equal('app=shop,env in (canary,prod),!old,tier=web');
    const parsed = parseLabelSelector(s);
    const sel = (l: Record<string, string>) => parsed.matches(l);
    expect(sel({ app: 'shop', tier: 'web', env: 'prod' })).to.equal(true);
    expect(sel({ app: 'shop', tier: 'web', env: 'dev' })).to.equal(false);
    expect(equalityLabels(s)).to.deep.equal({ app: 'shop', tier: 'web' });
    expect(equalityLabels('app==x,zone in (a),b notin (c)')).to.deep.equal({ app: 'x', zone: 'a' });
    expect(() => formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Gt' }] })).to.throw('unknown label selector operator');
  });

  it('attributes a dead pod to the VPA whose target it is named after (Crane\'s pod-name patterns)', () => {
    const web = vpaObj('web', 'web');
    const sts = { ...vpaObj('db', 'db'), spec: { targetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' } } };
    const target = (app: string, sel = `app=${app}`) => ({ selector: (l: Record<string, string> | undefined) => parseLabelSelector(sel).matches(l), selectorKey: sel, equalityLabels: equalityLabels(sel) });
    const vpas = [
      { obj: web, target: target('web') },
      { obj: sts, target: target('db') },
    ];
    expect(historyPodLabelsByName('ns', 'web-5f7c9d8b4-hx2lq', vpas)).to.deep.equal({ app: 'web' });
    expect(historyPodLabelsByName('ns', 'db-3', vpas)).to.deep.equal({ app: 'db' });
    expect(historyPodLabelsByName('ns', 'web-api-5f7c9d8b4-hx2lq', vpas)).to.equal(undefined);
    expect(historyPodLabelsByName('other', 'web-5f7c9d8b4-hx2lq', vpas)).to.equal(undefined);
    // A selector the equality labels cannot satisfy: no attribution rather than a wrong one.
    expect(historyPodLabelsByName('ns', 'web-5f7c9d8b4-hx2lq', [{ obj: web, target: target('web', 'app=web,track') }])).to.equal(undefined);
  });

  it('groups history series per pod and container, converting like upstream (CPU cores to truncated millicores)', () => {
    const s = (pod: string, container: string, ts: number[], vs: number[]) => ({ labels: { namespace: 'ns', pod, container }, timestamps: ts, values: vs });
    const h = podHistoriesFromSeries([s('b', 'app', [200, 100], [0.0699, 0.5])], [s('b', 'app', [100], [3e8 + 0.7]), s('a', 'side', [100], [1e8])], labels);
    expect(h.map((x) => x.pod)).to.deep.equal(['a', 'b']);
    expect(h[1]!.containers.get('app')).to.deep.equal({ cpu: [[100_000_000, 500], [200_000_000, 69]], memory: [[100_000_000, 300000000]] });
    expect(promTimeToInstant(1700000000.123)).to.equal(1700000000123000);
  });

  it("pod labels from the pod-labels series (upstream readLastLabels): prefix stripped, the series with the latest sample wins", () => {
    const cfg = { podNamespaceLabel: 'kubernetes_namespace', podNameLabel: 'kubernetes_pod_name', podLabelPrefix: 'pod_label_' };
    const s = (pod: string | undefined, extra: Record<string, string>, ts: number[]) => ({
      labels: { __name__: 'up', job: 'kubernetes-pods', kubernetes_namespace: 'ns', ...(pod ? { kubernetes_pod_name: pod } : {}), ...extra },
      timestamps: ts,
    });
    const got = podLabelsFromSeries([
      s('web-0', { pod_label_app: 'web', pod_label_version: 'v1' }, [100, 300]),
      s('web-0', { pod_label_app: 'web', pod_label_version: 'v2' }, [200]), // older last sample: v1 stays
      s('web-1', { pod_label_app: 'web', pod_label_version: 'v1' }, [100]),
      s('web-1', { pod_label_app: 'web', pod_label_version: 'v2' }, [400]), // relabelled later: v2 wins
      s(undefined, { pod_label_app: 'nameless' }, [500]), // no pod name label: skipped
      s('empty', { pod_label_app: 'x' }, []),
    ], cfg);
    expect([...got]).to.deep.equal([
      ['ns/web-0', { app: 'web', version: 'v1' }],
      ['ns/web-1', { app: 'web', version: 'v2' }],
    ]);
    // kube-state-metrics' kube_pod_labels works the same way with its own label names.
    expect(podLabelsFromSeries([{ labels: { namespace: 'ns', pod: 'db-0', label_app: 'db' }, timestamps: [1] }], { podNamespaceLabel: 'namespace', podNameLabel: 'pod', podLabelPrefix: 'label_' }).get('ns/db-0')).to.deep.equal({ app: 'db' });
  });

  it('the pod-labels query runs over the history window; upstream-style range selectors are dropped; a failing one only loses the labels', async () => {
    expect(historyQueries({ ...labels, podLabelsMetricName: 'up{job="kubernetes-pods"}[8d]' }).labels).to.equal('up{job="kubernetes-pods"}');
    expect(historyQueries({ ...labels, podLabelsMetricName: ' kube_pod_labels ' }).labels).to.equal('kube_pod_labels');
    const asked: string[] = [];
    const matrix = (result: unknown[]) => new Response(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } }));
    const fetchFn = (async (_url: string, init: { body: string }) => {
      const q = new URLSearchParams(init.body).get('query')!;
      asked.push(q);
      if (q.startsWith('rate(')) return matrix([{ metric: { namespace: 'ns', pod: 'old-web-0', container: 'app' }, values: [[1000, '0.5']] }]);
      if (q.startsWith('container_memory')) return matrix([{ metric: { namespace: 'ns', pod: 'old-web-0', container: 'app' }, values: [[1000, '1000']] }]);
      if (q === 'broken') return new Response(JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error' }), { status: 400 });
      return matrix([{ metric: { kubernetes_namespace: 'ns', kubernetes_pod_name: 'old-web-0', pod_label_app: 'web' }, values: [[900, '1']] }]);
    }) as unknown as typeof fetch;
    const history = new PrometheusClient({ url: 'http://prometheus.invalid', fetch: fetchFn });
    const run = (query: string, onLabelsError?: (e: Error) => void) =>
      prometheusPodHistory({ history, labels: { ...labels, podLabelsMetricName: query }, lengthMs: 86_400_000, resolutionMs: 3_600_000, now: () => 2_000_000, ...(onLabelsError ? { onLabelsError } : {}) });
    const withLabels = await run('up{job="kubernetes-pods"}[8d]');
    expect(withLabels.map((h) => [h.pod, h.labels])).to.deep.equal([['old-web-0', { app: 'web' }]]);
    expect(asked).to.include('up{job="kubernetes-pods"}');
    const errors: string[] = [];
    const without = await run('broken', (e) => errors.push(e.message));
    expect(without.map((h) => [h.pod, h.labels, h.containers.get('app')!.memory.length])).to.deep.equal([['old-web-0', undefined, 1]]);
    expect(errors).to.have.length(1);
    asked.length = 0;
    await run('');
    expect(asked).to.have.length(2); // no labels query at all
  });

  it('current usage from Prometheus: upstream\'s selector with today\'s kubelet labels, one sample per series', async () => {
    const queries: string[] = [];
    const fake = (async (_url: string, init: { body: string }) => {
      const q = new URLSearchParams(init.body).get('query')!;
      queries.push(q);
      const value = q.startsWith('rate(') ? '0.25' : '123456789';
      return new Response(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ metric: { namespace: 'ns', pod: 'p', container: 'app' }, value: [1700000000.5, value] }, { metric: { namespace: 'ns', pod: 'q', container: 'app' }, value: [1700000000.5, 'NaN'] }] } }));
    }) as unknown as typeof fetch;
    const u = new PrometheusCurrentUsage({ prometheus: new PrometheusClient({ url: 'http://prom', timeoutMs: 1000, fetch: fake }), labels, rateWindow: '60s' });
    const samples = await u.current();
    expect(queries).to.deep.equal([
      'rate(container_cpu_usage_seconds_total{job="kubelet", pod=~".+", container!="POD", container!=""}[60s])',
      'container_memory_working_set_bytes{job="kubelet", pod=~".+", container!="POD", container!=""}',
    ]);
    expect(samples).to.deep.equal([
      { namespace: 'ns', pod: 'p', container: 'app', cpuMillicores: 250, time: 1700000000500000 },
      { namespace: 'ns', pod: 'p', container: 'app', memoryBytes: 123456789, time: 1700000000500000 },
    ]);
  });

  it('metrics.k8s.io: MilliValue and Value round up, like upstream (metrics-server 123456789n is 124m); auto falls back to Prometheus when it is not served', async () => {
    const pods = {
      items: [{ metadata: { name: 'p', namespace: 'ns' }, timestamp: '2026-11-22T09:00:00Z', window: '15s', containers: [{ name: 'app', usage: { cpu: '123456789n', memory: '1025Ki' } }] }],
    };
    let served = true;
    const paths: string[] = [];
    const client = {
      get: async (path: string) => {
        paths.push(path);
        if (!served) throw new KubeApiError(404, 'NotFound', 'not found');
        return path.endsWith('/pods') ? pods : { resources: [{ name: 'pods' }, { name: 'nodes' }] };
      },
    } as unknown as KubeApiClient;
    const api = new MetricsApiUsage(client, 'ns');
    expect(await api.current()).to.deep.equal([{ namespace: 'ns', pod: 'p', container: 'app', cpuMillicores: 124, memoryBytes: 1049600, time: Date.UTC(2026, 10, 22, 9) * 1000 }]);
    expect(paths).to.deep.equal(['/apis/metrics.k8s.io/v1beta1/namespaces/ns/pods']);
    let clock = 0;
    const prom = { name: 'prometheus', current: async () => [] };
    const auto = new AutoUsage(api, prom, () => clock, 1000);
    expect(await auto.current()).to.have.length(1);
    expect(auto.name).to.equal('metrics-api');
    served = false;
    expect(await auto.current().catch(() => 'failed')).to.equal('failed'); // within the recheck period: still the API
    clock = 1000;
    expect(await auto.current()).to.deep.equal([]);
    expect(auto.name).to.equal('prometheus');
  });

  it('serve flags: upstream defaults, namespace filters, and a bad quantity is a usage error', () => {
    const c = recommenderConfigFromFlags(parseFlags(VPA_RECOMMENDER_FLAGS, ['--ignored-vpa-object-namespaces=kube-system, ops', '--vpa-object-namespace=team']));
    // Its own name, not upstream's `default`: beside the upstream recommender it takes no VPA by default.
    expect(c.filter).to.deep.equal({ recommenderName: 'ehpa-adapter', vpaObjectNamespace: 'team', ignoredNamespaces: ['kube-system', 'ops'] });
    expect(recommenderConfigFromFlags(parseFlags(VPA_RECOMMENDER_FLAGS, ['--recommender-name=default'])).filter.recommenderName).to.equal('default');
    expect(c.settings.aggregations.memoryAggregationInterval).to.equal(24 * 3600 * 1e6);
    expect(c.settings.aggregations.oomBumpUpRatio).to.equal(1.2);
    expect(c.settings.globalMaxAllowed).to.equal(undefined);
    expect(c.labels).to.include({ historyResolution: '3600s', ctrPodNameLabel: 'pod', namespace: 'team' });
    const max = recommenderConfigFromFlags(parseFlags(VPA_RECOMMENDER_FLAGS, ['--container-recommendation-max-allowed-memory=2Gi']));
    expect(max.settings.globalMaxAllowed!.get('memory')!.value()).to.equal(2 * 1024 ** 3);
    expect(() => recommenderConfigFromFlags(parseFlags(VPA_RECOMMENDER_FLAGS, ['--container-recommendation-max-allowed-cpu=lots']))).to.throw(UsageError, 'not a quantity');
  });

  it('under the default name, only VPAs naming ehpa-adapter are taken; under "default", those naming none too', () => {
    const own = recommenderConfigFromFlags(parseFlags(VPA_RECOMMENDER_FLAGS, [])).filter;
    const upstream = recommenderConfigFromFlags(parseFlags(VPA_RECOMMENDER_FLAGS, ['--recommender-name=default'])).filter;
    const vpas = {
      none: { namespace: 'a' },
      empty: { namespace: 'a', recommenders: [] },
      ours: { namespace: 'a', recommenders: [{ name: 'ehpa-adapter' }] },
      upstreams: { namespace: 'a', recommenders: [{ name: 'default' }] },
      both: { namespace: 'a', recommenders: [{ name: 'default' }, { name: 'ehpa-adapter' }] },
    };
    const taken = (f: typeof own) => Object.entries(vpas).filter(([, v]) => vpaSelectedByRecommender(v, f)).map(([k]) => k);
    expect(taken(own)).to.deep.equal(['ours', 'both']);
    expect(taken(upstream)).to.deep.equal(['none', 'empty', 'upstreams', 'both']);
  });
});
