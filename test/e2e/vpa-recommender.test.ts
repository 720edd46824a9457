// Scenario 5: VPA memory + EHPA CPU on one Deployment, with `ehpa-adapter serve` as its own process
// (the adapter's service-account identity and the RBAC of manifests/), the real kube-apiserver, and
// Prometheus holding two days of backfilled cAdvisor history plus live usage. The VPA gets a memory-only
// recommendation (an EHPA scales the Deployment on CPU), an OOMKilled container status raises it, and
// after a restart the model resumes from the checkpoints, not from scratch.
// The nodes are real projects (the harness' kwok nodes): kube-scheduler binds the pods, kwok runs them and reports
// the OOM kill (the harness' e2e-oom-kill Stage), and the real metrics-server serves the live usage the
// recommender reads (metrics.k8s.io is served, so its `auto` usage source takes it over Prometheus).
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import {
  createDeployment, createNamespace, followWorkloadUsage, installManifestRbac, loadKustomization, podsOf, recordEviction, waitFor, type AdapterProcess, type Cluster,
} from './harness/index.ts';
import { CRANE_TRACES, useCluster } from './helpers.ts';

const NS = 'vpa';
const CRDS_DIR = fileURLToPath(new URL('../../crds/', import.meta.url));
const TRACE = fileURLToPath(new URL('input1.csv', CRANE_TRACES));
const VPA_PATH = `/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalers`;
const CP_PATH = `/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalercheckpoints`;
const EHPA_PATH = `/apis/autoscaling.crane.io/v1alpha1/namespaces/${NS}/effectivehorizontalpodautoscalers`;
// The pod minimum the model falls back to with one container (--pod-recommendation-min-memory-mb=250).
const POD_MIN_MEMORY = 250 * 1024 * 1024;
const LIVE_MEMORY = 100e6;
const HISTORY_MEMORY = 400e6;
// Deployment "api": its only history is a pod whose name follows no workload pattern, so only the
// pod-labels series (kube-state-metrics' kube_pod_labels here) can tie it to the VPA.
const API_HISTORY_POD = 'legacy-api-instance-7';
const API_HISTORY_MEMORY = 600e6;

interface Rec {
  containerName: string;
  target: Record<string, string>;
  lowerBound?: Record<string, string>;
  upperBound?: Record<string, string>;
  uncappedTarget?: Record<string, string>;
}
interface Vpa {
  status?: { recommendation?: { containerRecommendations?: Rec[] }; conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[] };
}
interface Checkpoint {
  metadata: { name: string };
  spec: { vpaObjectName: string; containerName: string };
  status: { lastUpdateTime: string; version: string; totalSamplesCount?: number; firstSampleStart: string; memoryHistogram: { bucketWeights?: Record<string, number> } };
}

function bytes(q: string | undefined): number {
  expect(q, 'memory quantity').to.be.a('string');
  const m = /^(\d+)(Ki|Mi|Gi|k|M|G)?$/.exec(q!);
  expect(m, `plain quantity ${q}`).to.not.equal(null);
  const mult: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 };
  return Number(m![1]) * mult[m![2] ?? '']!;
}

/**
 * crds/ through its kustomization, server-side applied as raw YAML (the harness' installCrds reads every
 * file of the directory, kustomization.yaml included).
 */
async function installCrds(c: Cluster): Promise<void> {
  for (const crd of await loadKustomization(CRDS_DIR)) {
    const name = crd.metadata?.name ?? '';
    const r = await c.admin.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}?fieldManager=ehpa-e2e&force=true`, {
      body: JSON.stringify(crd),
      contentType: 'application/apply-patch+yaml',
    });
    expect(r.status, r.body).to.be.oneOf([200, 201]);
    const spec = (crd as unknown as { spec: { group: string; names: { plural: string }; versions: { name: string }[] } }).spec;
    const path = `/apis/${spec.group}/${spec.versions[0]!.name}/${spec.names.plural}?limit=1`;
    await waitFor(`${name} served`, async () => (await c.admin.get(path)).status === 200, { timeoutMs: 60_000 });
  }
}

describe('e2e: VPA recommender loop (scenario 5: VPA on memory, EHPA on CPU)', function () {
  this.timeout(300_000);
  const env = useCluster({
    // Two days of a real CPU trace under a pod name of Deployment "web" that no longer exists, with a
    // steady 400 MB working set: four times what the live pods use (100 MB).
    traces: [
      { file: TRACE, namespace: NS, pod: 'web-5f7c9d8b4-hx2lq', container: 'app', cpuScale: 0.01, memBaseBytes: HISTORY_MEMORY, memBytesPerCore: 0, lastPoints: 2 * 1440 + 60, continueLive: false },
      { file: TRACE, namespace: NS, pod: API_HISTORY_POD, container: 'app', cpuScale: 0.01, memBaseBytes: API_HISTORY_MEMORY, memBytesPerCore: 0, lastPoints: 2 * 1440 + 60, continueLive: false },
    ],
  });
  let proc: AdapterProcess | undefined;
  let stopUsage: (() => void) | undefined;

  const get = <T>(path: string) => env.cluster.admin.getJson<T>(path);
  async function post(path: string, body: unknown): Promise<void> {
    const r = await env.cluster.admin.request('POST', path, { body });
    expect(r.status, r.body).to.equal(201);
  }
  function serve(name: string, extra: string[]): Promise<AdapterProcess> {
    return env.cluster.startAdapterProcess({
      name,
      args: [
        '--controllers=ehpa,vpa-recommender',
        `--prometheus-url=${env.cluster.promUrl}`,
        '--leader-election-namespace=ehpa-system',
        '--leader-election-lease-duration=4s',
        '--leader-election-renew-deadline=3s',
        '--leader-election-retry-period=1s',
        '--recommender-interval=2s',
        '--history-length=3d',
        // kube-state-metrics' pod-labels series instead of upstream's `up{job="kubernetes-pods"}` scrape labels.
        '--metric-for-pod-labels=kube_pod_labels', '--pod-namespace-label=namespace', '--pod-name-label=pod', '--pod-label-prefix=label_',
        '--log-level=debug',
        ...extra,
      ],
    });
  }
  async function vpa(): Promise<Vpa> {
    return get<Vpa>(`${VPA_PATH}/web`);
  }
  function rec(v: Vpa): Rec | undefined {
    return v.status?.recommendation?.containerRecommendations?.find((r) => r.containerName === 'app');
  }
  async function checkpoint(): Promise<Checkpoint | undefined> {
    const r = await env.cluster.admin.get(`${CP_PATH}/web-app`);
    return r.status === 200 ? (r.json as Checkpoint) : undefined;
  }

  before(async function () {
    this.timeout(180_000);
    const c = env.cluster;
    await installCrds(c);
    await installManifestRbac(c);
    await createNamespace(c, NS);
    // Requests 1Gi: an OOM kill then means at least 1.2Gi (upstream OOMBumpUpRatio 1.2, min bump 100Mi).
    await createDeployment(c, NS, 'web', { replicas: 2, cpuRequest: '100m', memoryRequest: '1Gi' });
    await waitFor('web pods running', async () => {
      const l = await c.admin.getJson<{ items: { status?: { phase?: string } }[] }>(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`);
      return l.items.length === 2 && l.items.every((p) => p.status?.phase === 'Running');
    }, { timeoutMs: 120_000 });
    // Live usage through kwok's usage annotations: its kubelet endpoint reports it to metrics-server and to
    // Prometheus alike.
    stopUsage = followWorkloadUsage(c, NS, 'app=web', 'app', () => ({ cpuCores: 0.05, memBytes: LIVE_MEMORY }));
    await post(VPA_PATH, {
      apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler',
      metadata: { name: 'web', namespace: NS },
      // Named for this recommender: under its default name (ehpa-adapter) it takes only VPAs that ask for it.
      spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, updatePolicy: { updateMode: 'Off' }, recommenders: [{ name: 'ehpa-adapter' }] },
    });
    await createDeployment(c, NS, 'api', { replicas: 1, cpuRequest: '100m', memoryRequest: '1Gi' });
    await post(VPA_PATH, {
      apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler',
      metadata: { name: 'api', namespace: NS },
      spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' }, updatePolicy: { updateMode: 'Off' }, recommenders: [{ name: 'ehpa-adapter' }] },
    });
    // What kube-state-metrics exported while the old pod lived (it still does here, so the series is in range).
    c.setGauge('kube_pod_labels', { namespace: NS, pod: API_HISTORY_POD, label_app: 'api', label_pod_template_hash: 'abc' }, 1);
    await waitFor('kube_pod_labels scraped', async () => {
      const r = (await (await fetch(`${c.promUrl}/api/v1/query?query=kube_pod_labels`)).json()) as { data: { result: unknown[] } };
      return r.data.result.length > 0;
    });
    // A VPA for another recommender: this one must leave it alone.
    await post(VPA_PATH, {
      apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler',
      metadata: { name: 'other', namespace: NS },
      spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, recommenders: [{ name: 'someone-else' }] },
    });
    // A VPA naming no recommender is the upstream recommender's: left to it unless --recommender-name=default.
    await post(VPA_PATH, {
      apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler',
      metadata: { name: 'upstreams', namespace: NS },
      spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, updatePolicy: { updateMode: 'Off' } },
    });
    await post(EHPA_PATH, {
      apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: NS },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 4,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
      },
    });
  });

  after(async () => {
    stopUsage?.();
    await proc?.stop().catch(() => undefined);
  });

  let fromHistory = 0;
  let oomTarget = 0;

  it('writes a memory-only recommendation from the Prometheus history, with a condition and an event saying why', async () => {
    proc = await serve('serve-1', []);
    let v: Vpa = {};
    await waitFor('VPA recommendation', async () => {
      v = await vpa();
      return !!rec(v)?.target['memory'];
    }, { timeoutMs: 90_000 });
    const r = rec(v)!;
    // The HPA owns CPU: no cpu in any part of the recommendation.
    for (const part of [r.target, r.lowerBound, r.upperBound, r.uncappedTarget]) expect(Object.keys(part ?? {})).to.deep.equal(['memory']);
    fromHistory = bytes(r.target['memory']);
    // p90 of the memory peaks is the history's 400 MB (upstream answers with the end of its histogram
    // bucket, at most 5% higher), plus the 15% margin: far above the live 100 MB and the 250Mi pod minimum.
    expect(fromHistory).to.be.within(HISTORY_MEMORY * 1.15, HISTORY_MEMORY * 1.05 * 1.15);
    const conds = v.status!.conditions!;
    expect(conds.find((c) => c.type === 'RecommendationProvided')).to.include({ status: 'True' });
    expect(conds.find((c) => c.type === 'ResourcesSplitWithHPA')).to.include({ status: 'True', reason: 'HPAScalesOnCPU' });
    expect(conds.find((c) => c.type === 'ResourcesSplitWithHPA')!.message).to.contain('EffectiveHorizontalPodAutoscaler web');
    expect(conds.some((c) => c.type === 'NoPodsMatched')).to.equal(false);
    await waitFor('ResourcesSplitWithHPA event', async () => {
      const l = await get<{ items: { reason: string; involvedObject: { kind: string; name: string } }[] }>(`/api/v1/namespaces/${NS}/events`);
      return l.items.some((e) => e.reason === 'ResourcesSplitWithHPA' && e.involvedObject.kind === 'VerticalPodAutoscaler' && e.involvedObject.name === 'web');
    });
    // The other recommender's VPA is untouched.
    expect((await get<Vpa>(`${VPA_PATH}/other`)).status).to.equal(undefined);
    expect((await get<Vpa>(`${VPA_PATH}/upstreams`)).status).to.equal(undefined);
  });

  it("matches a history pod named unlike its workload through the pod-labels series (kube-state-metrics' kube_pod_labels)", async () => {
    let target: string | undefined;
    await waitFor('VPA api recommendation', async () => {
      target = (await get<Vpa>(`${VPA_PATH}/api`)).status?.recommendation?.containerRecommendations?.find((r) => r.containerName === 'app')?.target['memory'];
      return !!target;
    }, { timeoutMs: 90_000 });
    // Only the legacy pod's 600 MB history can put it here (the live api pod reports kwok's default 1Mi): p90 of its
    // peaks (histogram bucket end, at most 5% higher) plus the 15% margin.
    expect(bytes(target)).to.be.within(API_HISTORY_MEMORY * 1.15, API_HISTORY_MEMORY * 1.05 * 1.15);
  });

  it('writes a checkpoint per container with the model state (v3, history samples, memory peaks)', async () => {
    let cp: Checkpoint | undefined;
    await waitFor('checkpoint web-app', async () => !!(cp = await checkpoint()));
    expect(cp!.spec).to.deep.equal({ vpaObjectName: 'web', containerName: 'app' });
    expect(cp!.status.version).to.equal('v3');
    // ~49 hourly history CPU samples plus the live ones.
    expect(cp!.status.totalSamplesCount).to.be.greaterThan(45);
    expect(Object.keys(cp!.status.memoryHistogram.bucketWeights ?? {}).length).to.be.greaterThan(0);
    expect(Date.parse(cp!.status.firstSampleStart)).to.be.below(Date.now() - 24 * 3600_000);
  });

  it('after a restart without history, resumes from the checkpoints (same target, counters carried on)', async () => {
    const before = await checkpoint();
    const target = rec(await vpa())!.target['memory'];
    await proc!.stop();
    const stoppedAt = Date.now();
    // No Prometheus history this time: only the checkpoints can bring the past back.
    proc = await serve('serve-2', ['--recommender-prometheus-history=false']);
    let after: Checkpoint | undefined;
    await waitFor('a checkpoint written by the new process', async () => {
      after = await checkpoint();
      return !!after && Date.parse(after.status.lastUpdateTime) >= Math.floor(stoppedAt / 1000) * 1000 + 1000;
    }, { timeoutMs: 60_000 });
    // Started from the checkpoint: its sample count and first sample carry on, not from zero.
    expect(after!.status.totalSamplesCount).to.be.at.least(before!.status.totalSamplesCount!);
    expect(after!.status.firstSampleStart).to.equal(before!.status.firstSampleStart);
    const v = await vpa();
    expect(rec(v)!.target['memory']).to.equal(target);
    // From scratch it would be the 250Mi pod minimum (the live pods use 100 MB).
    expect(bytes(rec(v)!.target['memory'])).to.not.equal(POD_MIN_MEMORY);
    expect(bytes(rec(v)!.target['memory'])).to.equal(fromHistory);
  });

  it('an OOMKilled container raises the memory target above the bumped-up request', async () => {
    const pods = await podsOf(env.cluster, NS, 'app=web');
    // What the kubelet reports after the kernel OOM-killed the container and it restarted (kwok's Stage).
    const cs = await env.cluster.kwok!.oomKill(NS, pods[0]!.name, 'app');
    expect(cs.restartCount).to.equal(1);
    expect(cs.lastState?.terminated).to.include({ reason: 'OOMKilled', exitCode: 137 });
    // Only the annotated pod: the Stage leaves the other one alone.
    const other = await env.cluster.admin.getJson<{ status: { containerStatuses: { restartCount: number }[] } }>(`/api/v1/namespaces/${NS}/pods/${pods[1]!.name}`);
    expect(other.status.containerStatuses[0]!.restartCount).to.equal(0);
    let mem = 0;
    await waitFor('memory target raised by the OOM', async () => {
      mem = bytes(rec(await vpa())?.target['memory']);
      return mem > fromHistory;
    }, { timeoutMs: 60_000 });
    // OOM peak = max(1Gi × 1.2, 1Gi + 100Mi) = 1288490188 bytes; p90 lands on it and the margin adds 15%.
    expect(mem).to.be.at.least(1288490188);
    const r = rec(await vpa())!;
    expect(Object.keys(r.target)).to.deep.equal(['memory']);
    oomTarget = mem;
  });

  it("a kubelet's memory-pressure eviction event counts as an OOM at the container's usage; a CPU one does not", async () => {
    const pods = await podsOf(env.cluster, NS, 'app=web');
    // The Event a kubelet's eviction manager records (kwok has none, and its Stage events carry no
    // annotations: the harness writes it as the kubelet does, harness/kubelet-events.ts).
    // Starved on CPU only: upstream's OnEvent ignores it, so nothing moves (checked after the memory one).
    await recordEviction(env.cluster.admin, NS, pods[1]!.name, [{ container: 'app', usage: '3Gi', starved: 'cpu' }]);
    await recordEviction(env.cluster.admin, NS, pods[1]!.name, [{ container: 'app', usage: '2Gi', starved: 'memory' }]);
    let mem = 0;
    await waitFor('memory target raised by the eviction', async () => {
      mem = bytes(rec(await vpa())?.target['memory']);
      return mem > oomTarget;
    }, { timeoutMs: 60_000 });
    // OOM peak = max(2Gi × 1.2, 2Gi + 100Mi) = 2576980377.6 bytes (upstream RecordOOM from the usage).
    expect(mem).to.be.at.least(2576980377);
    // Had the 3Gi CPU eviction counted, the peak would be 3.6Gi before the 15% margin.
    expect(mem).to.be.below(3 * 2 ** 30 * 1.2);
  });

  it('under older RBAC that cannot watch events, the eviction feed retries on its own: controllers run, the process is ready', async () => {
    type ClusterRole = { metadata: { resourceVersion?: string }; rules: { apiGroups?: string[]; resources?: string[]; verbs: string[] }[] };
    const rolePath = '/apis/rbac.authorization.k8s.io/v1/clusterroles/ehpa-adapter:controllers';
    const original = await get<ClusterRole>(rolePath);
    const put = async (rules: ClusterRole['rules']) => {
      const cur = await get<ClusterRole>(rolePath);
      const r = await env.cluster.admin.request('PUT', rolePath, { body: { ...cur, rules } });
      expect(r.status, r.body).to.equal(200);
    };
    await put(original.rules.filter((r) => !(r.resources?.includes('events') && r.verbs.includes('watch'))));
    try {
      await proc!.stop();
      const restartedAt = Date.now();
      proc = await serve('serve-3', ['--recommender-prometheus-history=false']);
      // The recommender's term started (it waits only for required caches) and writes checkpoints again.
      await waitFor('a checkpoint written under the old RBAC', async () => {
        const cp = await checkpoint();
        return !!cp && Date.parse(cp.status.lastUpdateTime) >= Math.floor(restartedAt / 1000) * 1000 + 1000;
      }, { timeoutMs: 60_000 });
      const ready = await fetch(`${proc.metricsUrl}/readyz`);
      expect(ready.status, await ready.text()).to.equal(200);
    } finally {
      await put(original.rules);
    }
  });
});
