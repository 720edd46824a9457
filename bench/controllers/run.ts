// `npm run bench -- controllers`: EHPA reconcile throughput.
//   1. Pure core: validate + desired HPA + desired TSP + diff against the stored objects + status + status
//      diff, for 1,000 EHPAs of mixed shapes; median of repeated passes.
//   2. With the e2e harness' control plane available (kube-apiserver + etcd, no controller-manager):
//      the real controller converging 1,000 EHPAs, then one steady-state resync pass, with the API
//      requests of each phase by method. Skipped with a note when the binaries are not built.
// There is no Go baseline: Crane's reconcile cannot run outside a cluster (its builders are methods of
// the controller-runtime reconciler), so the steady-state request count is compared with Crane's
// reconcile shape instead (docs/crane-behaviour.md §B.1: GET scale, list HPA, list TSP, update status on every reconcile).
import type { V2MetricSpec } from '@kubernetes/client-node';
import { buildDesiredHpa } from '../../src/ehpa/desired-hpa.ts';
import { buildDesiredTsp } from '../../src/ehpa/desired-tsp.ts';
import { buildStatus } from '../../src/ehpa/status.ts';
import { validateEhpa } from '../../src/ehpa/validation.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../../src/api/ehpa.ts';
import { semanticEqual } from '../../src/kube/semantic-equal.ts';

const N = 1000;

function makeEhpa(i: number): EffectiveHorizontalPodAutoscaler {
  const metrics: V2MetricSpec[] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 + (i % 30) } } }];
  if (i % 3 === 0) metrics.push({ type: 'Pods', pods: { metric: { name: 'http_requests' }, target: { type: 'AverageValue', averageValue: '100' } } });
  if (i % 5 === 0) metrics.push({ type: 'External', external: { metric: { name: 'queue', selector: { matchLabels: { q: `q${i}` } } }, target: { type: 'AverageValue', averageValue: '30' } } });
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name: `app-${i}`, namespace: `ns-${i % 20}`, uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, generation: 1 },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `app-${i}` },
      minReplicas: 1,
      maxReplicas: 10 + (i % 10),
      scaleStrategy: i % 10 === 0 ? 'Preview' : 'Auto',
      metrics,
      crons: i % 2 === 0 ? [{ name: 'peak', timezone: 'Asia/Shanghai', start: '0 9 ? * mon-fri', end: '0 18 ? * mon-fri', targetReplicas: 5 }] : undefined,
      prediction: i % 4 !== 3 ? { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } } } : undefined,
    },
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function pureBench(): void {
  const ehpas = Array.from({ length: N }, (_, i) => makeEhpa(i));
  const now = Date.parse('2026-11-22T08:00:00Z');
  const requests = { pods: 4, requestMilli: 2000, missing: [] };
  // Stored state as the API server would hold it after a first pass.
  const stored = ehpas.map((e) => {
    const { hpa } = buildDesiredHpa({ ehpa: e, podCpuRequests: requests });
    const tsp = buildDesiredTsp(e);
    e.status = buildStatus({ ehpa: e, nowMs: now, hpa });
    return { hpa: structuredClone(hpa), tsp: tsp && structuredClone(tsp) };
  });
  const pass = (): number => {
    let writes = 0;
    for (let i = 0; i < N; i++) {
      const e = ehpas[i] as EffectiveHorizontalPodAutoscaler;
      if (validateEhpa(e).length) throw new Error('bench input invalid');
      const { hpa } = buildDesiredHpa({ ehpa: e, podCpuRequests: requests });
      if (!semanticEqual(hpa.spec, stored[i]!.hpa.spec)) writes++;
      const tsp = buildDesiredTsp(e);
      if (tsp && !semanticEqual(tsp.spec, stored[i]!.tsp?.spec)) writes++;
      const status = buildStatus({ ehpa: e, nowMs: now + 30_000, hpa: stored[i]!.hpa });
      if (!semanticEqual(status, e.status)) writes++;
    }
    return writes;
  };
  for (let i = 0; i < 5; i++) pass(); // warm-up (JIT, Intl time-zone cache)
  const times: number[] = [];
  let writes = 0;
  for (let r = 0; r < 30; r++) {
    const t0 = performance.now();
    writes = pass();
    times.push(performance.now() - t0);
  }
  const m = median(times);
  console.log('\n| pure core, 1,000 EHPAs (validate + HPA + TSP + status + diffs) | value |');
  console.log('|---|---|');
  console.log(`| median pass (30 passes) | ${m.toFixed(2)} ms |`);
  console.log(`| throughput | ${Math.round((N / m) * 1000).toLocaleString('en-US')} EHPAs/s |`);
  console.log(`| p-max pass | ${Math.max(...times).toFixed(2)} ms |`);
  console.log(`| writes needed on an unchanged cluster | ${writes} |`);
}

async function apiserverBench(): Promise<void> {
  let harness: typeof import('../../test/e2e/harness/index.ts');
  try {
    harness = await import('../../test/e2e/harness/index.ts');
    const { existsSync } = await import('node:fs');
    const { homedir } = await import('node:os');
    if (!process.env['KUBEBUILDER_ASSETS'] && !existsSync(`${homedir()}/.cache/ehpa-adapter/control-plane`)) throw new Error('control plane not built (scripts/build-control-plane.sh)');
  } catch (e) {
    console.log(`\n(real apiserver part skipped: ${(e as Error).message})`);
    return;
  }
  const { startControllers, createKubeContext } = await import('../../src/cli/serve-controllers.ts');
  const { parseFlags } = await import('../../src/config/flags.ts');
  const { CONTROLLER_FLAGS, KUBE_FLAGS } = await import('../../src/cli/serve-controllers.ts');
  const { createLogger } = await import('../../src/observability/logger.ts');
  const { Registry } = await import('prom-client');
  const M = Number(process.env['BENCH_EHPAS'] ?? N);
  const DEPLOYMENTS = 50;
  const cluster = await harness.startCluster({ controllerManager: false, kubelet: false, prometheus: false });
  try {
    const c = cluster.admin;
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('yaml');
    for (const f of ['autoscaling.crane.io_effectivehorizontalpodautoscalers.yaml', 'autoscaling.crane.io_substitutes.yaml', 'prediction.crane.io_timeseriespredictions.yaml']) {
      const crd = parse(readFileSync(new URL(`../../crds/${f}`, import.meta.url), 'utf8'));
      await c.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}?fieldManager=bench&force=true`, { body: JSON.stringify(crd), contentType: 'application/apply-patch+yaml' });
      await harness.waitFor('CRD established', async () => {
        const got = await c.getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
        return !!got.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True');
      });
    }
    await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } } });
    for (let d = 0; d < DEPLOYMENTS; d++) {
      await c.request('POST', '/apis/apps/v1/namespaces/bench/deployments', {
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `app-${d}` }, spec: { replicas: 2, selector: { matchLabels: { app: `app-${d}` } }, template: { metadata: { labels: { app: `app-${d}` } }, spec: { containers: [{ name: 'c', image: 'pause', resources: { requests: { cpu: '500m' } } }] } } } },
      });
    }
    for (let i = 0; i < M; i++) {
      const e = makeEhpa(i);
      // Auto only (no pods without a kubelet), prediction only through AverageValue so no pods are needed.
      e.spec.scaleStrategy = 'Auto';
      e.spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '250m' } } }];
      const r = await c.request('POST', '/apis/autoscaling.crane.io/v1alpha1/namespaces/bench/effectivehorizontalpodautoscalers', {
        body: { apiVersion: e.apiVersion, kind: e.kind, metadata: { name: e.metadata.name }, spec: { ...e.spec, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `app-${i % DEPLOYMENTS}` } } },
      });
      if (r.status !== 201) throw new Error(`create EHPA: ${r.status} ${r.body.slice(0, 200)}`);
    }
    const flags = parseFlags([...KUBE_FLAGS, ...CONTROLLER_FLAGS], [`--kubeconfig=${cluster.kubeconfigPath}`, '--controllers=ehpa', '--leader-elect=false', '--ehpa-resync-period=24h', '--ehpa-workers=4']);
    const log = createLogger('warn');
    const ctx = createKubeContext(flags, log);
    const t0 = performance.now();
    const running = startControllers({ flags, ctx, log, registry: new Registry() });
    const ready = async () => {
      const l = await c.getJson<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>('/apis/autoscaling.crane.io/v1alpha1/namespaces/bench/effectivehorizontalpodautoscalers');
      return l.items.length === M && l.items.every((x) => x.status?.conditions?.some((k) => k.type === 'Ready' && k.status === 'True'));
    };
    await harness.waitFor('all EHPAs Ready', ready, { timeoutMs: 600_000, intervalMs: 500 });
    const converge = performance.now() - t0;
    const first = new Map(ctx.client.requestCounts);
    await running.stop();
    // Steady state: a restarted controller lists everything and reconciles every EHPA once on a cluster
    // where nothing needs changing (the same work as one resync pass, plus the initial lists).
    const ctx2 = createKubeContext(flags, log);
    const t2 = performance.now();
    const running2 = startControllers({ flags, ctx: ctx2, log, registry: new Registry() });
    await ctx2.informers.waitForSync();
    const listed = ctx2.client.totalRequests();
    let last = -1;
    while (ctx2.client.totalRequests() !== last) {
      last = ctx2.client.totalRequests();
      await new Promise((r) => setTimeout(r, 2000));
    }
    const steadyMs = performance.now() - t2 - 2000;
    const steady = new Map(ctx2.client.requestCounts);
    await running2.stop();
    const fmt = (m: Map<string, number>) => [...m].map(([k, v]) => `${k} ${v}`).join(', ');
    console.log(`\n| real kube-apiserver, ${M} EHPAs on ${DEPLOYMENTS} Deployments, 4 workers | value |`);
    console.log('|---|---|');
    console.log(`| first convergence (create ${M} HPAs, ${Math.ceil((M * 3) / 4)} TSPs, events, status) | ${(converge / 1000).toFixed(1)} s (${Math.round((M / converge) * 1000)} EHPAs/s) |`);
    console.log(`| API requests, first convergence | ${fmt(first)} (${(([...first.values()].reduce((a, b) => a + b, 0)) / M).toFixed(2)} per EHPA) |`);
    console.log(`| steady-state pass after restart (caches warm, nothing to change) | ${(steadyMs / 1000).toFixed(1)} s |`);
    console.log(`| API requests, steady-state pass | ${fmt(steady)} (${((last - listed) / M).toFixed(2)} per EHPA beyond the ${listed} initial lists) |`);
  } finally {
    await cluster.stop();
  }
}

pureBench();
await apiserverBench();
