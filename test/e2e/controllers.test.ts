// The EHPA and TimeSeriesPrediction controllers (`ehpa-adapter serve`, own processes with the adapter's
// service-account identity and RBAC from manifests/) against the real kube-apiserver, the real HPA and
// garbage collector in kube-controller-manager, and Prometheus with a backfilled Crane trace. kwok plays
// the nodes (kube-scheduler, kwok, the real metrics-server).
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject } from '@kubernetes/client-node';
import { applyObjects, loadKustomization, waitFor, type AdapterProcess } from './harness/index.ts';
import { KubeApiClient } from '../../src/kube/api-client.ts';
import { CRANE_TRACES, sleep, useCluster } from './helpers.ts';

const NS = 'ctrl';
const CRDS_DIR = fileURLToPath(new URL('../../crds/', import.meta.url));
const TRACE = fileURLToPath(new URL('input1.csv', CRANE_TRACES));
const EHPA_PATH = `/apis/autoscaling.crane.io/v1alpha1/namespaces/${NS}/effectivehorizontalpodautoscalers`;
const HPA_PATH = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`;
const TSP_PATH = `/apis/prediction.crane.io/v1alpha1/namespaces/${NS}/timeseriespredictions`;
const LEASE_PATH = '/apis/coordination.k8s.io/v1/namespaces/ehpa-system/leases/ehpa-adapter-controllers';

interface Obj {
  metadata: { name: string; uid: string; generation?: number; resourceVersion?: string; ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[] };
  spec: Record<string, unknown> & { replicas?: number };
  status?: Record<string, unknown> & { conditions?: { type: string; status: string; reason: string; message: string }[] };
}

function deployment(name: string, replicas: number, cpu: string | undefined) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: cpu ? { requests: { cpu } } : {} }] },
      },
    },
  };
}

function ehpa(name: string, target: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name, namespace: NS },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, maxReplicas: 6, ...spec },
  };
}

const cpu50 = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } };

describe('e2e: EHPA and TimeSeriesPrediction controllers', function () {
  this.timeout(300_000);
  const env = useCluster({
    // Two days and a bit of a daily trace for the pods of Deployment "web", so the forecaster has history.
    traces: [{ file: TRACE, namespace: NS, pod: 'web-5f7c9d8b4-hx2lq', container: 'app', cpuScale: 0.01, lastPoints: 2 * 1440 + 120 }],
  });
  const procs: AdapterProcess[] = [];

  async function post(path: string, body: unknown): Promise<void> {
    const r = await env.cluster.admin.request('POST', path, { body });
    expect(r.status, r.body).to.equal(201);
  }
  const get = <T = Obj>(path: string) => env.cluster.admin.getJson<T>(path);
  const exists = async (path: string) => (await env.cluster.admin.get(path)).status === 200;

  async function startControllers(identity: string, extra: string[] = []): Promise<AdapterProcess> {
    const p = await env.cluster.startAdapterProcess({
      name: `controllers-${identity}`,
      args: [
        '--controllers=ehpa,tsp',
        '--secure-port=0',
        `--prometheus-url=${env.cluster.promUrl}`,
        '--leader-election-namespace=ehpa-system',
        `--leader-election-identity=${identity}`,
        '--leader-election-lease-duration=4s',
        '--leader-election-renew-deadline=3s',
        '--leader-election-retry-period=1s',
        '--log-level=debug',
        '--prediction-update-frequency=5s',
        // Whether the forecast pays is prediction-pays.test.ts's question (the default, enforce, there).
        '--prediction-pays=observe',
        ...extra,
      ],
    });
    procs.push(p);
    return p;
  }

  async function events(objName: string): Promise<{ reason: string; message: string; type: string; count?: number }[]> {
    const l = await get<{ items: { reason: string; message: string; type: string; count?: number; involvedObject: { name: string; kind: string } }[] }>(`/api/v1/namespaces/${NS}/events`);
    return l.items.filter((e) => e.involvedObject.name === objName && e.involvedObject.kind === 'EffectiveHorizontalPodAutoscaler');
  }

  before(async function () {
    this.timeout(180_000);
    const c = env.cluster;
    // Server-side apply of the YAML as written: client-node's typed serializer would drop the
    // `x-kubernetes-*` schema keys (validations, list types), so the CRDs go through the raw client.
    const crds = await loadKustomization(CRDS_DIR);
    for (const crd of crds) {
      const name = crd.metadata?.name ?? '';
      const r = await c.admin.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}?fieldManager=ehpa-e2e&force=true`, {
        body: JSON.stringify(crd),
        contentType: 'application/apply-patch+yaml',
      });
      expect(r.status, r.body).to.be.oneOf([200, 201]);
    }
    for (const r of crds) {
      await waitFor(`CRD ${r.metadata?.name} established`, async () => {
        const crd = await c.admin.getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${r.metadata?.name}`);
        return !!crd.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True');
      });
    }
    // The RBAC the manifests ship, so the controllers run with exactly the rights a cluster grants them.
    const rbacKinds = new Set(['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
    const rbac = (await loadKustomization()).filter((o: KubernetesObject) => rbacKinds.has(o.kind ?? ''));
    const applied = await applyObjects(c.kc, rbac);
    expect(applied.filter((r) => !r.ok).map((r) => r.error)).to.deep.equal([]);
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await waitFor('default ServiceAccount', async () => exists(`/api/v1/namespaces/${NS}/serviceaccounts/default`), { timeoutMs: 60_000 });
    await post(`/apis/apps/v1/namespaces/${NS}/deployments`, deployment('web', 2, '500m'));
    await post(`/apis/apps/v1/namespaces/${NS}/deployments`, deployment('preview', 1, '100m'));
    await post(`/apis/apps/v1/namespaces/${NS}/deployments`, deployment('good', 1, '200m'));
    await post(`/apis/apps/v1/namespaces/${NS}/deployments`, deployment('norequests', 1, undefined));
    await waitFor('web pods', async () => ((await get<{ items: unknown[] }>(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`)).items.length === 2), { timeoutMs: 120_000 });
  });

  after(async () => {
    for (const p of procs) await p.stop().catch(() => undefined);
  });

  it('the API server applies the CRD defaults and rejects min > max (CEL)', async () => {
    const c = env.cluster;
    const bad = await c.admin.request('POST', EHPA_PATH, { body: ehpa('minmax', 'web', { minReplicas: 5, maxReplicas: 2 }) });
    expect(bad.status).to.equal(422);
    expect(bad.body).to.contain('minReplicas must not be greater than maxReplicas');
    const dup = await c.admin.request('POST', EHPA_PATH, {
      body: ehpa('dupcron', 'web', { crons: [{ name: 'a', start: '0 9 * * *', end: '0 10 * * *', targetReplicas: 2 }, { name: 'a', start: '0 11 * * *', end: '0 12 * * *', targetReplicas: 2 }] }),
    });
    expect(dup.status).to.equal(422);
    const ok = await c.admin.request('POST', `${EHPA_PATH}?dryRun=All`, { body: ehpa('defaults', 'web', { prediction: { predictionAlgorithm: { algorithmType: 'dsp' } } }) });
    expect(ok.status, ok.body).to.equal(201);
    const spec = (ok.json as Obj).spec as { minReplicas: number; scaleStrategy: string; prediction: { predictionWindowSeconds: number } };
    expect([spec.minReplicas, spec.scaleStrategy, spec.prediction.predictionWindowSeconds]).to.deep.equal([1, 'Auto', 3600]);
  });

  it('accepts upstream manifests unchanged under strict field validation (Crane EHPA and TSP, VPA, checkpoint)', async () => {
    const c = env.cluster;
    const strict = async (path: string, body: unknown) => {
      const r = await c.admin.request('POST', `${path}?dryRun=All&fieldValidation=Strict`, { body });
      expect(r.status, r.body).to.equal(201);
    };
    // The sample EHPA from Crane's EHPA tutorial plus a cron and behavior.
    await strict(EHPA_PATH, {
      apiVersion: 'autoscaling.crane.io/v1alpha1',
      kind: 'EffectiveHorizontalPodAutoscaler',
      metadata: { name: 'php-apache' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'php-apache' },
        minReplicas: 1,
        maxReplicas: 10,
        scaleStrategy: 'Preview',
        specificReplicas: 5,
        metrics: [cpu50, { type: 'Pods', pods: { metric: { name: 'http_requests', selector: { matchLabels: { a: 'b' } } }, target: { type: 'AverageValue', averageValue: '10' } } }],
        crons: [{ name: 'cron1', timezone: 'Asia/Shanghai', description: 'scale up', start: '0 6 ? * *', end: '0 9 ? * *', targetReplicas: 100 }],
        behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } },
        prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d', estimators: { fft: [{ marginFraction: '0.2', lowAmplitudeThreshold: '1.0', highFrequencyThreshold: '0.05', minNumOfSpectrumItems: 10, maxNumOfSpectrumItems: 20 }] } } } },
      },
    });
    await strict(TSP_PATH, {
      apiVersion: 'prediction.crane.io/v1alpha1',
      kind: 'TimeSeriesPrediction',
      metadata: { name: 'node-resource-percentile' },
      spec: {
        targetRef: { kind: 'Node', name: '192.168.56.166' },
        predictionWindowSeconds: 600,
        predictionMetrics: [{ resourceIdentifier: 'node-cpu', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm: { algorithmType: 'percentile', percentile: { sampleInterval: '60s', histogram: { maxValue: '10000.0', epsilon: '1e-10', halfLife: '12h', bucketSize: '10', firstBucketSize: '40', bucketSizeGrowthRatio: '0.05' } } } }],
      },
    });
    await strict(`/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalers`, {
      apiVersion: 'autoscaling.k8s.io/v1',
      kind: 'VerticalPodAutoscaler',
      metadata: { name: 'web-vpa' },
      spec: {
        targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        updatePolicy: { updateMode: 'Off', minReplicas: 2 },
        resourcePolicy: { containerPolicies: [{ containerName: '*', minAllowed: { cpu: '100m', memory: '50Mi' }, maxAllowed: { cpu: 1, memory: '500Mi' }, controlledResources: ['cpu', 'memory'], controlledValues: 'RequestsAndLimits' }] },
        recommenders: [{ name: 'default' }],
      },
    });
    await strict(`/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalercheckpoints`, {
      apiVersion: 'autoscaling.k8s.io/v1',
      kind: 'VerticalPodAutoscalerCheckpoint',
      metadata: { name: 'web-vpa-app' },
      spec: { vpaObjectName: 'web-vpa', containerName: 'app' },
      status: {
        lastUpdateTime: '2026-11-22T08:00:00Z',
        version: 'v3',
        cpuHistogram: { referenceTimestamp: '2026-11-22T00:00:00Z', bucketWeights: { '0': 10000, '3': 512 }, totalWeight: 12.5 },
        memoryHistogram: { referenceTimestamp: null, bucketWeights: {}, totalWeight: 0 },
        firstSampleStart: '2026-11-21T08:00:00Z',
        lastSampleStart: '2026-11-22T07:59:00Z',
        totalSamplesCount: 1440,
      },
    });
  });

  it('creates the backing HPA with a controller ownerReference and converted metrics, and the TSP', async () => {
    await startControllers('ctrl-a');
    await post(
      EHPA_PATH,
      ehpa('web', 'web', {
        minReplicas: 2,
        metrics: [cpu50],
        crons: [{ name: 'never', start: '0 0 1 1 *', end: '1 0 1 1 *', targetReplicas: 4 }],
        prediction: { predictionWindowSeconds: 600, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d' } } },
      }),
    );
    const owner = await get(`${EHPA_PATH}/web`);
    let hpa: Obj | undefined;
    await waitFor('HPA ehpa-web', async () => {
      if (!(await exists(`${HPA_PATH}/ehpa-web`))) return false;
      hpa = await get(`${HPA_PATH}/ehpa-web`);
      return true;
    });
    expect(hpa!.metadata.ownerReferences).to.deep.equal([
      { apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler', name: 'web', uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    // 2 pods × 500m at 50 % → 250m per pod (docs/crane-behaviour.md §B.3), original metric kept first, one cron metric.
    expect(hpa!.spec['metrics']).to.deep.equal([
      cpu50,
      { type: 'Pods', pods: { metric: { name: 'crane_pod_cpu_usage', selector: { matchLabels: { 'autoscaling.crane.io/effective-hpa-uid': owner.metadata.uid } } }, target: { type: 'AverageValue', averageValue: '250m' } } },
      {
        type: 'External',
        external: {
          metric: { name: 'crane_autoscaling_cron', selector: { matchLabels: { resourceIdentifier: 'cron', targetKind: 'Deployment', targetName: 'web', targetNamespace: NS } } },
          target: { type: 'AverageValue', averageValue: '1' },
        },
      },
    ]);
    expect(hpa!.spec['scaleTargetRef']).to.deep.equal({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' });
    // The reconciler writes the HPA first and the TSP after it, so the TSP may not exist yet when the HPA does
    // (a GET right after the HPA appeared found none once, on a loaded machine).
    await waitFor('TSP ehpa-web', () => exists(`${TSP_PATH}/ehpa-web`));
    const tsp = await get(`${TSP_PATH}/ehpa-web`);
    expect(tsp.metadata.ownerReferences?.[0]).to.include({ kind: 'EffectiveHorizontalPodAutoscaler', uid: owner.metadata.uid, controller: true });
    expect(tsp.spec['predictionMetrics']).to.deep.equal([
      { resourceIdentifier: 'crane_pod_cpu_usage', type: 'ResourceQuery', resourceQuery: 'cpu', algorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d' } } },
    ]);
    // Events are written by the recorder after the objects, so poll for them rather than count on their having arrived.
    let reasons: string[] = [];
    await waitFor('HPACreated and PredictionCreated events', async () => {
      reasons = (await events('web')).map((e) => e.reason);
      return reasons.includes('HPACreated') && reasons.includes('PredictionCreated');
    });
    expect(reasons).to.include.members(['HPACreated', 'PredictionCreated']);
  });

  it('fills the TSP status from Prometheus history (Go %.5f samples) and mirrors it as PredictionReady', async () => {
    let tsp: Obj | undefined;
    await waitFor('TSP Ready', async () => {
      const t = await get(`${TSP_PATH}/ehpa-web`);
      tsp = t;
      return !!t.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    }, { timeoutMs: 120_000 });
    const pm = (tsp!.status!['predictionMetrics'] as { resourceIdentifier: string; ready: boolean; prediction: { samples: { value: string; timestamp: number }[] }[] }[])[0]!;
    expect(pm.resourceIdentifier).to.equal('crane_pod_cpu_usage');
    expect(pm.ready).to.equal(true);
    const samples = pm.prediction[0]!.samples;
    const now = Date.now() / 1000;
    expect(samples[0]!.timestamp).to.be.within(now - 120, now + 120);
    expect(samples[samples.length - 1]!.timestamp).to.be.at.least(now + 600 - 120);
    for (const s of samples) expect(s.value).to.match(/^-?\d+\.\d{5}$/);
    await waitFor('EHPA PredictionReady', async () => {
      const e = await get(`${EHPA_PATH}/web`);
      return !!e.status?.conditions?.some((c) => c.type === 'PredictionReady' && c.status === 'True' && c.reason === 'PredictSucceed');
    });
  });

  it('reports Prometheus being down as PredictFailed without stopping, and recovers when it is back', async () => {
    const c = env.cluster;
    await c.stopPrometheus();
    try {
      await post(EHPA_PATH, ehpa('promdown', 'web', { metrics: [cpu50], prediction: { predictionWindowSeconds: 600, predictionAlgorithm: { algorithmType: 'percentile' } } }));
      let cond: { status: string; reason: string; message: string } | undefined;
      await waitFor('TSP PredictFailed', async () => {
        if (!(await exists(`${TSP_PATH}/ehpa-promdown`))) return false;
        cond = (await get(`${TSP_PATH}/ehpa-promdown`)).status?.conditions?.find((x) => x.type === 'Ready');
        return cond?.reason === 'PredictFailed';
      });
      expect(cond!.status).to.equal('False');
      expect(cond!.message).to.contain('prometheus unreachable');
      // The HPA exists all the same; the adapter serves observed usage meanwhile.
      expect(await exists(`${HPA_PATH}/ehpa-promdown`)).to.equal(true);
      expect(procs.every((p) => p.running)).to.equal(true);
    } finally {
      await c.startPrometheus();
    }
    await waitFor('TSP Ready after Prometheus is back', async () => {
      const t = await get(`${TSP_PATH}/ehpa-promdown`);
      return t.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ?? false;
    }, { timeoutMs: 90_000 });
  });

  it('copies the HPA status into the EHPA status (replicas, lastScaleTime in Auto mode, HPA conditions)', async () => {
    await waitFor('EHPA status follows the HPA', async () => {
      const e = await get(`${EHPA_PATH}/web`);
      const h = await get(`${HPA_PATH}/ehpa-web`);
      const types = (e.status?.conditions ?? []).map((c) => c.type);
      return (
        e.status?.['currentReplicas'] === h.status?.['currentReplicas'] &&
        e.status?.['expectReplicas'] === h.status?.['desiredReplicas'] &&
        types.includes('Ready') &&
        types.includes('AbleToScale') &&
        (h.status?.['lastScaleTime'] === undefined || e.status?.['lastScaleTime'] === h.status?.['lastScaleTime'])
      );
    }, { timeoutMs: 90_000 });
    const m = await (await fetch(`${procs[0]!.metricsUrl}/metrics`)).text();
    expect(m).to.match(/^ehpa_adapter_controller_leader 1$/m);
    expect(m).to.match(/^ehpa_adapter_controller_reconcile_total\{controller="ehpa",outcome="success"\} [1-9]/m);
    expect(m).to.match(/^ehpa_adapter_effective_hpa_replicas\{namespace="ctrl",name="web"\} \d+$/m);
    // By resource too: the backing HPA was created (POST) and the EHPA's status patched.
    expect(m).to.match(/^ehpa_adapter_kube_api_requests_total\{method="POST",resource="horizontalpodautoscalers\.autoscaling",subresource=""\} [1-9]/m);
    expect(m).to.match(/^ehpa_adapter_kube_api_requests_total\{method="PATCH",resource="effectivehorizontalpodautoscalers\.autoscaling\.crane\.io",subresource="status"\} [1-9]/m);
    // Crane's names too (gocrane/crane pkg/metrics/autoscaling.go), for its dashboards.
    expect(m).to.match(/^crane_autoscaling_effective_hpa_replicas\{namespace="ctrl",name="web"\} \d+$/m);
    expect(m).to.match(/^crane_autoscaling_hpa_replicas\{namespace="ctrl",name="ehpa-web"\} \d+$/m);
  });

  it('recomputes the converted CPU target when the pods\' requests change (e.g. resized by a VPA)', async () => {
    const c = env.cluster;
    const r = await c.admin.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/web`, {
      body: { spec: { template: { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '1' } } }] } } } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(r.status, r.body).to.equal(200);
    // New pods become available 30 s after Ready (Crane's rule), then the average is 1000m × 50 % = 500m.
    await waitFor('HPA target 500m', async () => {
      const h = await get(`${HPA_PATH}/ehpa-web`);
      const pods = (h.spec['metrics'] as { type: string; pods?: { target: { averageValue: string } } }[]).find((m) => m.type === 'Pods');
      return pods?.pods?.target.averageValue === '500m';
    }, { timeoutMs: 180_000 });
  });

  it('Preview: the HPA targets the Substitute and specificReplicas scales the target through /scale', async () => {
    await post(EHPA_PATH, ehpa('preview', 'preview', { scaleStrategy: 'Preview', specificReplicas: 3, minReplicas: 1, metrics: [cpu50] }));
    await waitFor('preview scaled to 3', async () => {
      const d = await get(`/apis/apps/v1/namespaces/${NS}/deployments/preview`);
      return d.spec.replicas === 3;
    });
    const hpa = await get(`${HPA_PATH}/ehpa-preview`);
    expect(hpa.spec['scaleTargetRef']).to.deep.equal({ apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'Substitute', name: 'ehpa-preview' });
    await waitFor('EHPA reports the manual scale', async () => {
      const e = await get(`${EHPA_PATH}/preview`);
      return typeof e.status?.['lastScaleTime'] === 'string' && e.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    });
    const sub = await get(`/apis/autoscaling.crane.io/v1alpha1/namespaces/${NS}/substitutes/ehpa-preview`);
    expect(sub.status?.['labelSelector']).to.equal('app=preview');
  });

  it('a bad EHPA gets a condition and an event while a good one still reconciles', async () => {
    // A bad zone or cron no longer gets this far: the CRD refuses it at admission, as Crane's webhook did
    // (docs/crane-behaviour.md §A.4; the InvalidTimeZone/InvalidCron conditions stay for objects stored
    // under other CRDs, test/unit/ehpa). The refusal names the field.
    const refused = await env.cluster.admin.request('POST', EHPA_PATH, { body: ehpa('badcron', 'good', { crons: [{ name: 'x', timezone: 'Mars/Olympus', start: '0 9 * * 7', end: '0 10 * * *', targetReplicas: 2 }] }) });
    expect(refused.status, refused.body).to.equal(422);
    expect(refused.body).to.contain('spec.crons[0].timezone').and.to.contain('Mars/Olympus');
    await post(EHPA_PATH, { ...ehpa('badkind', 'good', {}), spec: { scaleTargetRef: { apiVersion: 'example.com/v1', kind: 'Nope', name: 'x' }, maxReplicas: 3 } });
    await post(EHPA_PATH, ehpa('norequests', 'norequests', { metrics: [cpu50], prediction: { predictionWindowSeconds: 600, predictionAlgorithm: { algorithmType: 'percentile' } } }));
    await post(EHPA_PATH, ehpa('good', 'good', { metrics: [cpu50] }));
    const ready = async (n: string) => (await get(`${EHPA_PATH}/${n}`)).status?.conditions?.find((c) => c.type === 'Ready');
    await waitFor('bad EHPAs flagged', async () => (await ready('badkind'))?.reason === 'FailedGetScale' && (await ready('norequests'))?.reason === 'MissingCPURequests');
    await waitFor('events for the bad EHPAs', async () => {
      const [b, c] = await Promise.all([events('badkind'), events('norequests')]);
      return b.some((e) => e.reason === 'FailedGetScale' && e.type === 'Warning') && c.some((e) => e.reason === 'MissingCPURequests');
    });
    // The good one, queued after the bad ones, has its HPA; the one without requests still gets an HPA on
    // its original metric (the fallback).
    await waitFor('good reconciled', async () => (await exists(`${HPA_PATH}/ehpa-good`)) && (await ready('good'))?.status === 'True');
    const fallback = await get(`${HPA_PATH}/ehpa-norequests`);
    expect(fallback.spec['metrics']).to.deep.equal([cpu50]);
    expect(await exists(`${HPA_PATH}/ehpa-badcron`)).to.equal(false);
  });

  it('fails over to a second instance without duplicate writes', async () => {
    const b = await startControllers('ctrl-b');
    const lease = await get<{ spec: { holderIdentity: string; leaseTransitions: number } }>(LEASE_PATH);
    expect(lease.spec.holderIdentity).to.equal('ctrl-a');
    // Writes to an HPA's spec or metadata show up in its managedFields (operation Update, no subresource).
    const specWrites = (o: Obj) =>
      ((o.metadata as { managedFields?: { manager: string; operation: string; subresource?: string; time: string }[] }).managedFields ?? [])
        .filter((f) => !f.subresource)
        .map((f) => `${f.manager}/${f.operation}/${f.time}`);
    const before = await get(`${HPA_PATH}/ehpa-web`);
    const a = procs.find((p) => p.name === 'controllers-ctrl-a')!;
    await a.kill();
    await waitFor('ctrl-b holds the lease', async () => (await get<{ spec: { holderIdentity: string } }>(LEASE_PATH)).spec.holderIdentity === 'ctrl-b', { timeoutMs: 30_000, process: b });
    const after = await get<{ spec: { leaseTransitions: number } }>(LEASE_PATH);
    expect(after.spec.leaseTransitions).to.equal(lease.spec.leaseTransitions + 1);
    // The new leader reconciles the new object...
    await post(EHPA_PATH, ehpa('afterfailover', 'good', { metrics: [cpu50] }));
    await waitFor('HPA by the new leader', async () => exists(`${HPA_PATH}/ehpa-afterfailover`), { process: b });
    // The recorder writes the event after the HPA: wait for it, then give a duplicate time to show.
    await waitFor('HPACreated for afterfailover', async () => (await events('afterfailover')).some((e) => e.reason === 'HPACreated'), { process: b });
    // ...and leaves what is already right alone: the HPA's spec and metadata were not written again,
    // and "HPACreated" was recorded once per EHPA.
    await sleep(3000);
    const again = await get(`${HPA_PATH}/ehpa-web`);
    expect(again.metadata.uid).to.equal(before.metadata.uid);
    expect(specWrites(again)).to.deep.equal(specWrites(before));
    expect(specWrites(before).length).to.equal(1);
    expect((await events('web')).filter((e) => e.reason === 'HPACreated')).to.have.length(1);
    expect((await events('afterfailover')).filter((e) => e.reason === 'HPACreated')).to.have.length(1);
    // Graceful shutdown (SIGTERM) gives the Lease up, so a standby would not wait out the lease duration.
    await b.stop();
    expect(await b.exited).to.equal(0);
    expect((await get<{ spec: { holderIdentity?: string } }>(LEASE_PATH)).spec.holderIdentity ?? '').to.equal('');
  });

  it('our API client holds to --kube-api-qps/--kube-api-burst against the real kube-apiserver (watches aside)', async () => {
    const timed = async (client: KubeApiClient) => {
      const t0 = Date.now();
      for (let i = 0; i < 7; i++) await client.get('/api/v1/namespaces?limit=1');
      return Date.now() - t0;
    };
    // qps 5, burst 2: two requests at once, then one every 200 ms: the seven take at least 1 s.
    const limited = new KubeApiClient(env.cluster.kc, 'ehpa-adapter-e2e', { qps: 5, burst: 2 });
    const limitedMs = await timed(limited);
    expect(limitedMs).to.be.at.least(950);
    // throttledMs sums the waits the bucket computed, which shrink by however long the requests
    // themselves took (on a loaded machine, a lot); so only bounds that hold at any latency: some wait
    // happened, and no more than the 1 s schedule (plus timer rounding) nor the wall time.
    expect(limited.throttledMs).to.be.greaterThan(0);
    expect(limited.throttledMs).to.be.at.most(Math.min(1000 + 5, limitedMs));
    const free = new KubeApiClient(env.cluster.kc, 'ehpa-adapter-e2e', { qps: 0, burst: 1 });
    await timed(free);
    expect(free.throttledMs).to.equal(0);
    expect(free.requestCounts.get('GET')).to.equal(7);
  });

  it('deleting the EHPA garbage-collects its HPA and TSP', async () => {
    const r = await env.cluster.admin.request('DELETE', `${EHPA_PATH}/web`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
    expect(r.status).to.equal(200);
    await waitFor('HPA and TSP gone', async () => !(await exists(`${HPA_PATH}/ehpa-web`)) && !(await exists(`${TSP_PATH}/ehpa-web`)), { timeoutMs: 120_000 });
  });
});
