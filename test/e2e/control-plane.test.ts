// The harness itself against the real binaries: kube-apiserver with the aggregation layer configured,
// kube-controller-manager reconciling Deployments, the real HPA acting through RBAC, kube-scheduler and kwok
// playing the nodes (kwok's OOM kill included), garbage collection, and Prometheus serving a backfilled Crane
// trace plus live usage.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createDeployment, createNamespace, parseTraceCsv, podsOf, queryInstant, queryRange, waitFor, waitHpa, waitReplicas } from './harness/index.ts';
import { CRANE_TRACES, sleep, useCluster } from './helpers.ts';

const TRACE = fileURLToPath(new URL('input1.csv', CRANE_TRACES));
const NS = 'smoke';
const MEM_BASE = 200e6;
const MEM_PER_CORE = 50e6;
const CPU_SCALE = 0.01;

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

  it('runs a Deployment to Ready pods: kube-controller-manager makes the ReplicaSet and pods, kube-scheduler binds them, kwok runs them', async () => {
    const c = env.cluster;
    await createNamespace(c, NS);
    await createDeployment(c, NS, 'web', { replicas: 2 });
    await waitReplicas(c, NS, 'web', 2);
    type Pod = { metadata: { name: string; ownerReferences?: { kind: string }[] }; spec: { nodeName?: string }; status: { phase: string; podIP?: string; conditions?: { type: string; status: string }[] } };
    const pods = await c.admin.getJson<{ items: Pod[] }>(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`);
    expect(pods.items).to.have.length(2);
    expect((await podsOf(c, NS, 'app=web')).map((p) => p.name).sort()).to.deep.equal(pods.items.map((p) => p.metadata.name).sort());
    for (const p of pods.items) {
      expect(p.spec.nodeName).to.be.oneOf(c.kwok!.nodeNames);
      expect(p.status.phase).to.equal('Running');
      expect(p.status.podIP).to.be.a('string').and.not.equal('');
      expect(p.status.conditions?.find((x) => x.type === 'Ready')?.status).to.equal('True');
      expect(p.metadata.ownerReferences?.[0]?.kind).to.equal('ReplicaSet');
    }
  });

  it('kwok OOM-kills and restarts a container on demand, once, and the pod stays Ready', async () => {
    const c = env.cluster;
    type Pod = { status: { conditions: { type: string; status: string }[]; containerStatuses: { restartCount: number; lastState: { terminated?: { reason: string; exitCode: number } } }[] } };
    const name = (await podsOf(c, NS, 'app=web'))[0]!.name;
    await c.kwok!.oomKill(NS, name, 'app');
    // oomKill returns once the status shows it; give kwok time to (wrongly) fire its Stage again.
    await sleep(3000);
    const pod = await c.admin.getJson<Pod>(`/api/v1/namespaces/${NS}/pods/${name}`);
    const cs = pod.status.containerStatuses[0]!;
    expect(cs.lastState.terminated).to.include({ reason: 'OOMKilled', exitCode: 137 });
    expect(cs.restartCount).to.equal(1);
    expect(pod.status.conditions.find((x) => x.type === 'Ready')?.status).to.equal('True');
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
    await waitReplicas(c, NS, 'web', 3);
    // Then it asks external.metrics.k8s.io, which no adapter serves yet: the condition names the metric.
    const h = await waitHpa(c, NS, 'web', 'ScalingActive=False', (x) => x.status?.conditions?.some((k) => k.type === 'ScalingActive' && k.status === 'False') ?? false, 60_000);
    const active = h.status!.conditions!.find((k) => k.type === 'ScalingActive');
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
    // A scrape after setUsage has landed by now, so a 5 s window ending 5.5 s later holds only the new
    // slope. Wait until Prometheus holds that window (at least two samples in it), then read the rate there.
    const at = Date.now() / 1000 + 5.5;
    const cpu = `container_cpu_usage_seconds_total{namespace="${NS}",pod="live-pod"}`;
    await waitFor('two CPU samples in the 5 s window after the usage change', async () => {
      if (Date.now() / 1000 < at + 1) return false;
      const n = await queryInstant(c.promUrl, `count_over_time(${cpu}[5s])`, at);
      return n.length === 1 && Number(n[0]!.value[1]) >= 2;
    }, { timeoutMs: 30_000, intervalMs: 250 });
    const rate = await queryInstant(c.promUrl, `rate(${cpu}[5s])`, at);
    expect(Number(rate[0]!.value[1])).to.be.closeTo(0.25, 0.05);
    // The backfilled series continues live with the same labels (job, instance), so it has recent samples.
    const hist = await queryInstant(c.promUrl, `count_over_time(container_memory_working_set_bytes{namespace="${NS}",pod="history-7d9c8b6f5d-abcde"}[10s])`);
    expect(Number(hist[0]!.value[1])).to.be.greaterThan(2);
    expect(hist[0]!.metric).to.include({ job: 'kubelet', instance: 'e2e-node' });
  });

  it('stops and restarts Prometheus on the same data and port', async () => {
    const c = env.cluster;
    const info = c.backfilled[0]!;
    await c.stopPrometheus();
    const down = await fetch(`${c.promUrl}/-/ready`).then(() => 'up', () => 'down');
    expect(down).to.equal('down');
    await c.startPrometheus();
    const r = await queryInstant(c.promUrl, `container_memory_working_set_bytes{namespace="${NS}",pod="history-7d9c8b6f5d-abcde"}`, info.lastTs);
    expect(r).to.have.length(1);
  });

  it('stops and restarts kube-controller-manager', async () => {
    const c = env.cluster;
    await c.stopControllerManager();
    await createDeployment(c, NS, 'later', { replicas: 1 });
    await sleep(3000);
    expect((await podsOf(c, NS, 'app=later')).length).to.equal(0);
    await c.startControllerManager();
    await waitReplicas(c, NS, 'later', 1);
  });

  it('runs bin/ehpa-adapter.js serve as its own process and stops it cleanly', async () => {
    const c = env.cluster;
    const a = await c.startAdapterProcess({ args: ['--log-level=info', '--adapter=false', '--controllers='] });
    expect((await fetch(`${a.metricsUrl}/healthz`)).status).to.equal(200);
    expect(a.running).to.equal(true);
    await a.stop();
    expect(a.running).to.equal(false);
    expect(await a.exited).to.equal(0);
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
