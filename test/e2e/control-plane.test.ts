// The harness itself against the real binaries: kube-apiserver with the aggregation layer configured,
// kube-controller-manager reconciling Deployments, the real HPA acting through RBAC, the kubelet stand-in,
// garbage collection, and Prometheus serving a backfilled Crane trace plus live usage.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseTraceCsv, queryInstant, queryRange, waitFor } from './harness/index.ts';
import { CRANE_TRACES, sleep, useCluster } from './helpers.ts';

const TRACE = fileURLToPath(new URL('input1.csv', CRANE_TRACES));
const NS = 'smoke';
const MEM_BASE = 200e6;
const MEM_PER_CORE = 50e6;
const CPU_SCALE = 0.01;

interface Deployment {
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number };
  spec: { replicas: number };
}

function deployment(name: string, replicas: number) {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
      },
    },
  };
}

describe('e2e: local control plane and Prometheus harness', function () {
  this.timeout(300_000);
  const env = useCluster({
    traces: [{ file: TRACE, namespace: NS, pod: 'history-7d9c8b6f5d-abcde', container: 'app', cpuScale: CPU_SCALE, memBaseBytes: MEM_BASE, memBytesPerCore: MEM_PER_CORE }],
  });

  it('kube-apiserver is ready and publishes the front-proxy settings for aggregated servers', async () => {
    const c = env.cluster;
    console.log(`      harness start: ${JSON.stringify(c.timings)}`);
    expect((await c.admin.get('/readyz')).status).to.equal(200);
    const cm = await c.admin.getJson<{ data: Record<string, string> }>('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
    expect(JSON.parse(cm.data['requestheader-allowed-names']!)).to.deep.equal(['front-proxy-client']);
    expect(JSON.parse(cm.data['requestheader-username-headers']!)).to.deep.equal(['X-Remote-User']);
    expect(cm.data['requestheader-client-ca-file']).to.equal(readFileSync(c.frontProxy.caPath, 'utf8'));
  });

  it('authorizes with RBAC: an unbound user is forbidden, the admin is not', async () => {
    const c = env.cluster;
    const nobody = await c.identity('e2e-nobody');
    expect((await nobody.rest.get('/api/v1/namespaces/default/pods')).status).to.equal(403);
    expect((await c.admin.get('/api/v1/namespaces/default/pods')).status).to.equal(200);
  });

  it('runs a Deployment to Ready pods: kube-controller-manager makes the ReplicaSet and pods, the stand-in readies them', async () => {
    const c = env.cluster;
    expect((await c.admin.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })).status).to.equal(201);
    // The default ServiceAccount must exist before pods are admitted (serviceaccount controller).
    await waitFor('default ServiceAccount', async () => (await c.admin.get(`/api/v1/namespaces/${NS}/serviceaccounts/default`)).status === 200, { timeoutMs: 60_000 });
    const r = await c.admin.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, { body: deployment('web', 2) });
    expect(r.status).to.equal(201);
    await waitFor('web available', async () => {
      const d = await c.admin.getJson<Deployment>(`/apis/apps/v1/namespaces/${NS}/deployments/web`);
      return d.status?.availableReplicas === 2;
    }, { timeoutMs: 120_000 });
    const pods = await c.admin.getJson<{ items: { metadata: { name: string; ownerReferences?: { kind: string }[] }; status: { phase: string; podIP?: string } }[] }>(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`);
    expect(pods.items).to.have.length(2);
    for (const p of pods.items) {
      expect(p.status.phase).to.equal('Running');
      expect(p.status.podIP).to.match(/^10\.244\./);
      expect(p.metadata.ownerReferences?.[0]?.kind).to.equal('ReplicaSet');
    }
  });

  it('the real HPA controller scales through the scale subresource and calls the aggregated metrics API', async () => {
    const c = env.cluster;
    const hpa = {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: NS },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 3, maxReplicas: 5,
        metrics: [{ type: 'External', external: { metric: { name: 'crane_autoscaling_cron', selector: { matchLabels: { a: 'b' } } }, target: { type: 'AverageValue', averageValue: '1' } } }],
      },
    };
    expect((await c.admin.request('POST', `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`, { body: hpa })).status).to.equal(201);
    // Below minReplicas the HPA rescales without reading metrics (upstream horizontal.go
    // "Current number of replicas below Spec.MinReplicas"), which proves its RBAC on deployments/scale.
    await waitFor('web scaled to 3 by the HPA', async () => {
      const d = await c.admin.getJson<Deployment>(`/apis/apps/v1/namespaces/${NS}/deployments/web`);
      return d.spec.replicas === 3 && d.status?.availableReplicas === 3;
    }, { timeoutMs: 120_000 });
    // Then it asks external.metrics.k8s.io, which no adapter serves yet: the condition names the metric.
    type Hpa = { status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } };
    let active: { status: string; reason: string; message: string } | undefined;
    await waitFor('HPA ScalingActive=False', async () => {
      const h = await c.admin.getJson<Hpa>(`/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/web`);
      active = h.status?.conditions?.find((x) => x.type === 'ScalingActive');
      return active?.status === 'False';
    }, { timeoutMs: 60_000 });
    expect(active!.reason).to.equal('FailedGetExternalMetric');
    expect(active!.message).to.contain('crane_autoscaling_cron');
  });

  it('garbage-collects a deleted Deployment\'s ReplicaSets and pods', async () => {
    const c = env.cluster;
    expect((await c.admin.request('DELETE', `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/web`)).status).to.equal(200);
    const del = await c.admin.request('DELETE', `/apis/apps/v1/namespaces/${NS}/deployments/web`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
    expect(del.status).to.equal(200);
    await waitFor('ReplicaSets and pods gone', async () => {
      const rs = await c.admin.getJson<{ items: unknown[] }>(`/apis/apps/v1/namespaces/${NS}/replicasets`);
      const pods = await c.admin.getJson<{ items: unknown[] }>(`/api/v1/namespaces/${NS}/pods`);
      return rs.items.length === 0 && pods.items.length === 0;
    }, { timeoutMs: 120_000 });
  });

  it('Prometheus answers query_range over the backfilled trace with one point per step', async () => {
    const c = env.cluster;
    const trace = parseTraceCsv(readFileSync(TRACE, 'utf8'));
    const step = trace[1]!.ts - trace[0]!.ts;
    const sel = `{namespace="${NS}",pod="history-7d9c8b6f5d-abcde",container="app"}`;
    const info = c.backfilled[0]!;
    expect(info.points).to.equal(trace.length);
    expect(info.step).to.equal(step);
    const firstTs = info.firstTs;
    const lastTraceTs = info.lastTs;
    expect(lastTraceTs - firstTs).to.equal((trace.length - 1) * step);
    // Nothing before the first backfilled sample.
    const before = await queryInstant(c.promUrl, `container_memory_working_set_bytes${sel}`, firstTs - 1);
    expect(before).to.have.length(0);
    // 1-minute steps over 16 days are more than Prometheus allows in one query.
    let refused = '';
    await queryRange(c.promUrl, `container_memory_working_set_bytes${sel}`, firstTs, lastTraceTs, step).catch((e: Error) => {
      refused = e.message;
    });
    expect(refused).to.match(/exceeded maximum resolution of 11,000 points/);
    // Half a day at the trace's own step: exactly one point per sample, values as backfilled.
    const points = 720;
    const start = lastTraceTs - (points - 1) * step;
    const mem = await queryRange(c.promUrl, `container_memory_working_set_bytes${sel}`, start, lastTraceTs, step);
    expect(mem[0]!.values).to.have.length(points);
    const offset = trace.length - points;
    for (const i of [0, 100, points - 1]) {
      const expected = Math.round(MEM_BASE + MEM_PER_CORE * trace[offset + i]!.value * CPU_SCALE);
      expect(Number(mem[0]!.values[i]![1]), `point ${i}`).to.equal(expected);
    }
    // The counter is the integral of the trace: its rate over 10 minutes is the trace's mean there.
    const at = lastTraceTs - 3600;
    const k = trace.length - 1 - 3600 / step;
    const window = trace.slice(k - 10, k + 1);
    let area = 0;
    for (let i = 1; i < window.length; i++) area += ((window[i - 1]!.value + window[i]!.value) / 2) * step;
    const rate = await queryInstant(c.promUrl, `rate(container_cpu_usage_seconds_total${sel}[10m])`, at);
    expect(Number(rate[0]!.value[1])).to.be.closeTo((area / 600) * CPU_SCALE, 1e-6);
  });

  it('Prometheus scrapes live usage from the exporter on the same series', async () => {
    const c = env.cluster;
    c.setUsage(NS, 'live-pod', 'app', { cpuCores: 0.25, memBytes: 123_456_789 });
    await waitFor('live memory sample', async () => {
      const r = await queryInstant(c.promUrl, `container_memory_working_set_bytes{namespace="${NS}",pod="live-pod"}`);
      return r.length === 1 && Number(r[0]!.value[1]) === 123_456_789;
    }, { timeoutMs: 30_000 });
    await sleep(6000);
    const rate = await queryInstant(c.promUrl, `rate(container_cpu_usage_seconds_total{namespace="${NS}",pod="live-pod"}[5s])`);
    expect(Number(rate[0]!.value[1])).to.be.closeTo(0.25, 0.05);
    // The backfilled series continues live with the same labels (job, instance), so it has recent samples.
    const hist = await queryInstant(c.promUrl, `count_over_time(container_memory_working_set_bytes{namespace="${NS}",pod="history-7d9c8b6f5d-abcde"}[10s])`);
    expect(Number(hist[0]!.value[1])).to.be.greaterThan(2);
    expect(hist[0]!.metric).to.include({ job: 'kubelet', instance: 'e2e-node' });
  });

  it('restarts kube-apiserver with nothing lost', async () => {
    const c = env.cluster;
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'survives', namespace: NS }, data: { k: 'v' } };
    expect((await c.admin.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: cm })).status).to.equal(201);
    await c.restartApiserver();
    const got = await c.admin.getJson<{ data: Record<string, string> }>(`/api/v1/namespaces/${NS}/configmaps/survives`);
    expect(got.data.k).to.equal('v');
  });
});
