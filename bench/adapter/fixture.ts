// The benchmark's cluster: 1,000 EHPAs in 100 namespaces, 10 pods each (10,000 pods), and a 2-hour forecast
// per EHPA at one-minute resolution. Written as JSON so our adapter and the Go reference load the same data.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MetricsAdapterOptions } from '../../src/adapter/server.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../../src/api/ehpa.ts';
import type { TimeSeriesPrediction } from '../../src/api/prediction.ts';
import type { AdapterSources } from '../../src/adapter/providers/sources.ts';
import type { PodLike } from '../../src/api/pod.ts';
import type { LabelSelector } from '../../src/selectors/label-selector.ts';

export interface BenchFixture {
  ehpas: { name: string; namespace: string; uid: string; windowSeconds: number; samples: { timestamp: number; value: string }[] }[];
  pods: { name: string; namespace: string; labels: Record<string, string>; available: boolean }[];
}

export const EHPAS = 1000;
export const NAMESPACES = 100;
export const PODS_PER_EHPA = 10;

export function makeFixture(nowMs: number): BenchFixture {
  const now = Math.floor(nowMs / 1000);
  const fx: BenchFixture = { ehpas: [], pods: [] };
  for (let i = 0; i < EHPAS; i++) {
    const namespace = `ns-${String(i % NAMESPACES).padStart(3, '0')}`;
    const name = `app-${String(i).padStart(4, '0')}`;
    const samples = Array.from({ length: 120 }, (_, k) => ({ timestamp: now - 600 + k * 60, value: (1 + Math.sin((i + k) / 7) * 0.5).toFixed(5) }));
    fx.ehpas.push({ name, namespace, uid: `uid-${i}`, windowSeconds: 3600, samples });
    for (let k = 0; k < PODS_PER_EHPA; k++) {
      fx.pods.push({ name: `${name}-${k}`, namespace, labels: { app: name, 'pod-template-hash': 'abc123' }, available: k !== 9 });
    }
  }
  return fx;
}

/** AdapterSources over the fixture, indexed by namespace like an informer cache with a namespace index. */
export function fixtureSources(fx: BenchFixture, nowMs: number): AdapterSources {
  const ehpas = new Map<string, EffectiveHorizontalPodAutoscaler[]>();
  const tsps = new Map<string, TimeSeriesPrediction[]>();
  const pods = new Map<string, PodLike[]>();
  const readySince = new Date(nowMs - 3_600_000).toISOString();
  for (const e of fx.ehpas) {
    const ehpa: EffectiveHorizontalPodAutoscaler = {
      apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler',
      metadata: { name: e.name, namespace: e.namespace, uid: e.uid },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: e.name }, minReplicas: 1, maxReplicas: 50, prediction: { predictionWindowSeconds: e.windowSeconds, predictionAlgorithm: { algorithmType: 'dsp' } } },
    };
    const tsp: TimeSeriesPrediction = {
      apiVersion: 'prediction.crane.io/v1alpha1', kind: 'TimeSeriesPrediction',
      metadata: { name: `ehpa-${e.name}`, namespace: e.namespace, labels: { 'autoscaling.crane.io/effective-hpa-uid': e.uid } },
      spec: { targetRef: { kind: 'Deployment', name: e.name, namespace: e.namespace }, predictionWindowSeconds: e.windowSeconds, predictionMetrics: [{ resourceIdentifier: 'crane_pod_cpu_usage' }] },
      status: { predictionMetrics: [{ resourceIdentifier: 'crane_pod_cpu_usage', ready: true, prediction: [{ labels: [], samples: e.samples }] }] },
    };
    (ehpas.get(e.namespace) ?? ehpas.set(e.namespace, []).get(e.namespace)!).push(ehpa);
    (tsps.get(e.namespace) ?? tsps.set(e.namespace, []).get(e.namespace)!).push(tsp);
  }
  for (const p of fx.pods) {
    const pod: PodLike = {
      metadata: { name: p.name, namespace: p.namespace, labels: p.labels },
      status: { phase: p.available ? 'Running' : 'Pending', conditions: [{ type: 'Ready', status: p.available ? 'True' : 'False', lastTransitionTime: readySince }] },
    };
    (pods.get(p.namespace) ?? pods.set(p.namespace, []).get(p.namespace)!).push(pod);
  }
  return {
    getEhpa: (ns, name) => ehpas.get(ns)?.find((e) => e.metadata.name === name),
    listEhpas: (ns) => (ns === undefined ? [...ehpas.values()].flat() : (ehpas.get(ns) ?? [])),
    listTsps: (ns) => (ns === undefined ? [...tsps.values()].flat() : (tsps.get(ns) ?? [])),
    listPods: (ns, selector: LabelSelector) => (pods.get(ns) ?? []).filter((p) => selector.matches(p.metadata?.labels)),
    getScaleReplicas: () => 3,
    observedPodCpuMillis: () => new Map(),
  };
}

/** The adapter's options in every benchmark server: TLS and front-proxy trust from `certDir` (tls.crt,
 *  tls.key, front-proxy-ca.crt); the load generator sends system:masters, so no SubjectAccessReview. */
export async function benchAdapterOptions(certDir: string): Promise<MetricsAdapterOptions> {
  return {
    securePort: 0,
    bindAddress: '127.0.0.1',
    tlsCertFile: join(certDir, 'tls.crt'),
    tlsKeyFile: join(certDir, 'tls.key'),
    certDir,
    predictionFallback: 'observed',
    requestHeader: {
      caPem: await readFile(join(certDir, 'front-proxy-ca.crt'), 'utf8'),
      allowedNames: ['front-proxy-client'],
      usernameHeaders: ['X-Remote-User'],
      uidHeaders: [],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
    },
    authorizer: { authorize: async () => ({ allowed: false, reason: 'bench sends system:masters' }) },
    authzCacheTtlMs: 10_000,
    now: Date.now,
    localZone: 'UTC',
  };
}
