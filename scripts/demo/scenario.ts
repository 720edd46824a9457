// The demo's objects (pure): a Deployment with CPU and memory requests, an EHPA with DSP prediction, a
// cron window that opens shortly after start, min/max, and a VPA in updateMode Off for memory.
import type { EffectiveHorizontalPodAutoscaler } from '../../src/api/ehpa.ts';

export const NAMESPACE = 'demo';
export const WORKLOAD = 'web';
export const CONTAINER = 'app';
export const CPU_REQUEST_MILLI = 500;
export const CPU_TARGET_UTILIZATION = 50;
export const MIN_REPLICAS = 2;
export const MAX_REPLICAS = 12;
export const CRON_TARGET_REPLICAS = 10;
export const PREDICTION_WINDOW_SECONDS = 1800;
export const HISTORY_LENGTH = '2d';
/** A history pod name Crane's default query matches for Deployment "web" (`^web-[a-z0-9]+-[a-z0-9]{5}$`). */
export const HISTORY_POD = 'web-5d8f7c9b6-h1st0';
export const MEMORY_BASE_BYTES = 180 * 2 ** 20;
export const MEMORY_BYTES_PER_CORE = 300 * 2 ** 20;

export interface CronWindow {
  name: string;
  /** Unix seconds, whole minutes. */
  startS: number;
  endS: number;
  start: string;
  end: string;
  targetReplicas: number;
}

/**
 * A daily UTC cron window that opens at the first whole minute at least 45 s after `nowMs` (time for the
 * HPA to act on the forecast first: the adapter counts a pod 30 s after it is Ready, as Crane does) and
 * stays open for about 40 % of the demo, at least one minute.
 */
export function demoCronWindow(nowMs: number, watchMinutes: number): CronWindow {
  const startS = Math.ceil((nowMs / 1000 + 45) / 60) * 60;
  const endS = startS + Math.max(1, Math.round(watchMinutes * 0.4)) * 60;
  const expr = (s: number) => {
    const d = new Date(s * 1000);
    return `${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
  };
  return { name: 'demo-burst', startS, endS, start: expr(startS), end: expr(endS), targetReplicas: CRON_TARGET_REPLICAS };
}

export function demoEhpa(cron: CronWindow): EffectiveHorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name: WORKLOAD, namespace: NAMESPACE },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: WORKLOAD },
      minReplicas: MIN_REPLICAS,
      maxReplicas: MAX_REPLICAS,
      scaleStrategy: 'Auto',
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: CPU_TARGET_UTILIZATION } } }],
      prediction: {
        predictionWindowSeconds: PREDICTION_WINDOW_SECONDS,
        predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: HISTORY_LENGTH } },
      },
      crons: [{ name: cron.name, timezone: 'UTC', description: 'a burst the demo schedules a minute ahead', start: cron.start, end: cron.end, targetReplicas: cron.targetReplicas }],
    },
  } as EffectiveHorizontalPodAutoscaler;
}

export function demoVpa(): Record<string, unknown> {
  return {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: { name: `${WORKLOAD}-memory`, namespace: NAMESPACE },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: WORKLOAD },
      updatePolicy: { updateMode: 'Off' },
      // HPA scales on CPU, VPA sizes memory only, so the two do not fight over the same resource.
      resourcePolicy: { containerPolicies: [{ containerName: '*', controlledResources: ['memory'] }] },
      // ehpa-adapter's recommender takes only VPAs that name it (an upstream recommender keeps the others).
      recommenders: [{ name: 'ehpa-adapter' }],
    },
  };
}

/** Whether `ehpa-adapter serve --help` offers the VPA recommender loop as a controller. */
export function serveOffersVpaRecommender(serveHelp: string): boolean {
  const line = serveHelp.split('\n').find((l) => l.includes('--controllers'));
  return !!line && /\bvpa-recommender\b/.test(line);
}
