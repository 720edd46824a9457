// Cluster objects for adapter tests: an EHPA with prediction and crons over a 3-pod Deployment.
import type { EffectiveHorizontalPodAutoscaler } from '../../../src/api/ehpa.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import type { MapSources } from '../../helpers/adapter-fixture.ts';

export const UID = 'f9b92249-eab9-4671-afe0-17925e5987b8';

export function ehpa(over: Partial<EffectiveHorizontalPodAutoscaler['spec']> = {}, name = 'web', uid = UID, ns = 'default'): EffectiveHorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name, namespace: ns, uid },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 2,
      maxReplicas: 20,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
      prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp' } },
      ...over,
    },
  };
}

export function tsp(nowMs: number, values: number[], opts: { ready?: boolean; rid?: string; name?: string; uid?: string; stepSec?: number } = {}): TimeSeriesPrediction {
  const now = Math.floor(nowMs / 1000);
  return {
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: {
      name: opts.name ?? 'ehpa-web',
      namespace: 'default',
      labels: {
        'autoscaling.crane.io/effective-hpa-uid': opts.uid ?? UID,
        'app.kubernetes.io/managed-by': 'effective-hpa-controller',
        'app.kubernetes.io/target-kind': 'Deployment',
        'app.kubernetes.io/target-name': 'web',
        'app.kubernetes.io/target-namespace': 'default',
      },
    },
    spec: { targetRef: { kind: 'Deployment', name: 'web', namespace: 'default' }, predictionWindowSeconds: 3600, predictionMetrics: [{ resourceIdentifier: opts.rid ?? 'crane_pod_cpu_usage' }] },
    status: {
      predictionMetrics: [
        {
          resourceIdentifier: opts.rid ?? 'crane_pod_cpu_usage',
          ready: opts.ready ?? true,
          prediction: [{ labels: [], samples: values.map((v, i) => ({ timestamp: now + i * (opts.stepSec ?? 600), value: v.toFixed(5) })) }],
        },
      ],
    },
  };
}

export function pod(name: string, nowMs: number, over: { ready?: boolean; phase?: string; readyForMs?: number; labels?: Record<string, string>; ns?: string } = {}) {
  return {
    metadata: { name, namespace: over.ns ?? 'default', labels: over.labels ?? { app: 'web' } },
    status: {
      phase: over.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: over.ready === false ? 'False' : 'True', lastTransitionTime: new Date(nowMs - (over.readyForMs ?? 600_000)).toISOString() }],
    },
  };
}

/** web: 3 available pods + 1 pod ready only 10 s + 1 pod of another app. */
export function seed(s: MapSources, nowMs: number): void {
  s.ehpas.push(ehpa());
  s.tsps.push(tsp(nowMs, [0.5, 0.7, 0.6]));
  s.pods.push(pod('web-1', nowMs), pod('web-2', nowMs), pod('web-3', nowMs), pod('web-new', nowMs, { readyForMs: 10_000 }), pod('db-1', nowMs, { labels: { app: 'db' } }));
  s.scale.set('default/Deployment/web', 4);
}
