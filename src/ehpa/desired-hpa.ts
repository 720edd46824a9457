// The backing HPA an EHPA wants (docs/crane-behaviour.md §B.2, §B.3), built without I/O: the pods'
// CPU requests come in as a summary, so the same EHPA and pods always give the same HPA.
import type { V2HorizontalPodAutoscalerBehavior, V2HPAScalingRules, V2MetricSpec } from '@kubernetes/client-node';
import { HPA_API_VERSION, type HorizontalPodAutoscaler } from '../api/autoscaling.ts';
import { CRON_METRIC, POD_CPU_USAGE_METRIC, ownedObjectName } from '../api/names.ts';
import { CRON_TARGET_AVERAGE_VALUE, controllerOwnerReference, cronMetricSelector, ownedLabels } from './naming.ts';
import { EHPA_API_VERSION, EHPA_UID_LABEL, SUBSTITUTE_KIND, predictionEnabled, type EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';

/** CPU requests of the target's pods, summed the way Crane's `GetPodsRequests` does (§B.3). */
export interface PodCpuRequests {
  /** Pods the average is taken over. */
  pods: number;
  /** Sum of their containers' CPU requests, millicores. */
  requestMilli: number;
  /** Pods with a container that has no CPU request (the conversion is refused for them). */
  missing: string[];
}

export interface MetricProblem {
  reason: 'MissingCPURequests' | 'NoPodsForConversion' | 'ZeroConvertedTarget';
  message: string;
}

export interface DesiredHpaInput {
  ehpa: EffectiveHorizontalPodAutoscaler;
  /** Needed only when a Resource cpu Utilization metric is converted; undefined means "not looked up". */
  podCpuRequests?: PodCpuRequests;
  /** Labels/annotations copied from the EHPA (craned's propagation flags, §B.2). */
  propagate?: { labels?: Record<string, string>; annotations?: Record<string, string> };
}

/** Formats millicores as apimachinery's canonical DecimalSI string ("250m", "2", "1500m"). */
export function formatMilli(milli: number): string {
  if (milli % 1000 === 0) return String(milli / 1000);
  return `${milli}m`;
}

function isCpuResourceMetric(m: V2MetricSpec): boolean {
  return m.type === 'Resource' && m.resource?.name === 'cpu';
}

/** Whether the EHPA gets the predicted-CPU Pods metric and a TSP (prediction on and a Resource cpu metric). */
export function hasPredictableCpuMetric(ehpa: EffectiveHorizontalPodAutoscaler): boolean {
  return predictionEnabled(ehpa.spec) && (ehpa.spec.metrics ?? []).some(isCpuResourceMetric);
}

/**
 * The `crane_pod_cpu_usage` Pods metric for the first Resource cpu metric, or a problem that explains why
 * it cannot be built (then the HPA runs on the original metrics alone, which are always kept).
 */
export function predictedCpuMetric(
  ehpa: EffectiveHorizontalPodAutoscaler,
  requests: PodCpuRequests | undefined,
): { metric?: V2MetricSpec; problem?: MetricProblem } {
  const cpu = (ehpa.spec.metrics ?? []).find(isCpuResourceMetric);
  if (!cpu?.resource) return {};
  const target = cpu.resource.target;
  let averageValue: string | undefined = target.averageValue;
  if (target.averageUtilization != null) {
    if (!requests || requests.pods === 0) {
      return { problem: { reason: 'NoPodsForConversion', message: 'no pods of the target to read CPU requests from' } };
    }
    if (requests.missing.length > 0) {
      const names = requests.missing.slice(0, 3).join(', ') + (requests.missing.length > 3 ? ', ...' : '');
      return { problem: { reason: 'MissingCPURequests', message: `missing CPU request in pods: ${names}` } };
    }
    // Crane: int64(requests * utilization / 100 / pods), truncated, in millicores.
    const milli = Math.trunc((requests.requestMilli * target.averageUtilization) / 100 / requests.pods);
    if (milli <= 0) {
      return { problem: { reason: 'ZeroConvertedTarget', message: 'converted CPU target rounds down to 0m' } };
    }
    averageValue = formatMilli(milli);
  }
  if (averageValue == null) return {};
  return {
    metric: {
      type: 'Pods',
      pods: {
        metric: { name: POD_CPU_USAGE_METRIC, selector: { matchLabels: { [EHPA_UID_LABEL]: ehpa.metadata.uid ?? '' } } },
        target: { type: 'AverageValue', averageValue },
      },
    },
  };
}

/** The single External cron metric, however many crons there are (§B.3 step 3). */
export function cronMetric(ehpa: EffectiveHorizontalPodAutoscaler): V2MetricSpec {
  return {
    type: 'External',
    external: {
      metric: { name: CRON_METRIC, selector: { matchLabels: cronMetricSelector(ehpa) } },
      target: { type: 'AverageValue', averageValue: CRON_TARGET_AVERAGE_VALUE },
    },
  };
}

/** Original metrics first (the fallback), then the prediction metric, then the cron metric. */
export function buildHpaMetrics(
  ehpa: EffectiveHorizontalPodAutoscaler,
  requests: PodCpuRequests | undefined,
): { metrics: V2MetricSpec[]; problem?: MetricProblem } {
  const metrics: V2MetricSpec[] = structuredClone(ehpa.spec.metrics ?? []);
  let problem: MetricProblem | undefined;
  if (hasPredictableCpuMetric(ehpa)) {
    const r = predictedCpuMetric(ehpa, requests);
    if (r.metric) metrics.push(r.metric);
    problem = r.problem;
  }
  if ((ehpa.spec.crons ?? []).length > 0) metrics.push(cronMetric(ehpa));
  // autoscaling/v2 defaulting adds 80% CPU to an HPA without metrics; build it ourselves so the stored
  // object equals the desired one.
  if (metrics.length === 0) {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } });
  }
  return { metrics, problem };
}

// autoscaling/v2 SetDefaults_HorizontalPodAutoscalerBehavior: a behavior that is present gets every
// unset rule filled in by the API server. We fill them the same way so comparisons settle.
function defaultRules(given: V2HPAScalingRules | undefined, defaults: V2HPAScalingRules): V2HPAScalingRules {
  if (!given) return defaults;
  const out: V2HPAScalingRules = { ...defaults, ...given };
  if (given.policies == null) out.policies = defaults.policies;
  if (given.selectPolicy == null) out.selectPolicy = defaults.selectPolicy;
  if (given.stabilizationWindowSeconds == null) {
    if (defaults.stabilizationWindowSeconds == null) delete out.stabilizationWindowSeconds;
    else out.stabilizationWindowSeconds = defaults.stabilizationWindowSeconds;
  }
  return out;
}

export function defaultBehavior(b: V2HorizontalPodAutoscalerBehavior | undefined): V2HorizontalPodAutoscalerBehavior | undefined {
  if (!b) return undefined;
  return {
    scaleUp: defaultRules(b.scaleUp, {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    }),
    scaleDown: defaultRules(b.scaleDown, {
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
    }),
  };
}

export function buildDesiredHpa(input: DesiredHpaInput): { hpa: HorizontalPodAutoscaler; problem?: MetricProblem } {
  const { ehpa } = input;
  const name = ownedObjectName(ehpa.metadata.name);
  const { metrics, problem } = buildHpaMetrics(ehpa, input.podCpuRequests);
  const preview = ehpa.spec.scaleStrategy === 'Preview';
  const hpa: HorizontalPodAutoscaler = {
    apiVersion: HPA_API_VERSION,
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name,
      namespace: ehpa.metadata.namespace,
      labels: { ...(input.propagate?.labels ?? {}), ...ownedLabels(ehpa) },
      ...(input.propagate?.annotations && Object.keys(input.propagate.annotations).length
        ? { annotations: { ...input.propagate.annotations } }
        : {}),
      ownerReferences: [controllerOwnerReference(ehpa)],
    },
    spec: {
      scaleTargetRef: preview
        ? { apiVersion: EHPA_API_VERSION, kind: SUBSTITUTE_KIND, name }
        : { ...ehpa.spec.scaleTargetRef },
      minReplicas: ehpa.spec.minReplicas ?? 1,
      maxReplicas: ehpa.spec.maxReplicas,
      metrics,
    },
  };
  const behavior = defaultBehavior(ehpa.spec.behavior);
  if (behavior) hpa.spec.behavior = behavior;
  return { hpa, problem };
}
