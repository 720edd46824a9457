// The backing HPA an EHPA wants (docs/crane-behaviour.md §B.2, §B.3), built without I/O: the pods'
// requests come in as summaries, so the same EHPA and pods always give the same HPA.
import type { V2HorizontalPodAutoscalerBehavior, V2HPAScalingRules, V2MetricSpec, V2MetricTarget } from '@kubernetes/client-node';
import { HPA_API_VERSION, type HorizontalPodAutoscaler } from '../api/autoscaling.ts';
import { CRON_METRIC, CUSTOM_PODS_PREDICTION_PREFIX, EXTERNAL_PREDICTION_PREFIX, POD_CPU_USAGE_METRIC, PREDICTION_METRIC, ownedObjectName, predictionIdentifier } from '../api/names.ts';
import { predictedMetrics, type PredictedMetric, type UnpredictedMetric } from './predicted-metrics.ts';
import { CRON_TARGET_AVERAGE_VALUE, controllerOwnerReference, cronMetricSelector, ownedLabels } from './naming.ts';
import { EHPA_API_VERSION, EHPA_UID_LABEL, SUBSTITUTE_KIND, predictionEnabled, type EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { formatMilli } from '../quantity/index.ts';

/** Requests of the target's pods for one resource, summed the way Crane's `GetPodsRequests` does (§B.3). */
export interface PodCpuRequests {
  /** Pods the average is taken over. */
  pods: number;
  /** Sum of their containers' requests, milli-units (millicores, milli-bytes). */
  requestMilli: number;
  /** Pods with a (named) container that has no request (the conversion is refused for them). */
  missing: string[];
}
export type PodRequests = PodCpuRequests;
/** Requests of `resource` (of `container` only, when given) over the target's pods. */
export type PodRequestsLookup = (resource: string, container?: string) => PodRequests | undefined;

/**
 * Which Crane generation's HPA the controller writes (--hpa-shape, docs/crane-behaviour.md §C.9): `v0.7`
 * names each prediction as the Crane generation that first predicted that kind of metric did (Pods
 * `crane_pod_cpu_usage` for CPU, served on custom.metrics.k8s.io); `head` writes every prediction as Crane
 * v0.8+'s External `crane_autoscaling_prediction`, so the custom metrics API can stay with another adapter.
 */
export const HPA_SHAPES = ['v0.7', 'head'] as const;
export type HpaShape = (typeof HPA_SHAPES)[number];

export interface MetricProblem {
  reason: 'MissingCPURequests' | 'MissingRequests' | 'NoPodsForConversion' | 'ZeroConvertedTarget';
  message: string;
}

export interface DesiredHpaInput {
  ehpa: EffectiveHorizontalPodAutoscaler;
  /** Needed only when a Resource cpu Utilization metric is converted; undefined means "not looked up". */
  podCpuRequests?: PodCpuRequests;
  /** Requests of any resource, for Utilization targets of memory and ContainerResource metrics. */
  podRequests?: PodRequestsLookup;
  /** Labels/annotations copied from the EHPA (craned's propagation flags, §B.2). */
  propagate?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  /** Crane generation whose metric names the HPA carries (default `v0.7`). */
  shape?: HpaShape;
}

function isCpuResourceMetric(m: V2MetricSpec): boolean {
  return m.type === 'Resource' && m.resource?.name === 'cpu';
}

/** Whether the EHPA gets the predicted-CPU Pods metric (prediction on and a Resource cpu metric). */
export function hasPredictableCpuMetric(ehpa: EffectiveHorizontalPodAutoscaler): boolean {
  return predictionEnabled(ehpa.spec) && (ehpa.spec.metrics ?? []).some(isCpuResourceMetric);
}

/** Whether building the HPA needs the pods' requests (a predicted Resource/ContainerResource Utilization target). */
export function needsPodRequests(ehpa: EffectiveHorizontalPodAutoscaler): boolean {
  return predictedMetrics(ehpa).predicted.some((p) => {
    const m = (ehpa.spec.metrics ?? [])[p.index];
    return (m?.resource ?? m?.containerResource)?.target.averageUtilization != null;
  });
}

/**
 * The AverageValue a Resource/ContainerResource metric's prediction is compared with: its averageValue, or
 * its averageUtilization converted through the pods' requests as Crane does:
 * int64(requests × utilization / 100 / pods), truncated, in milli-units (gocrane/crane
 * pkg/controller/ehpa/hpa.go GetHPAMetrics).
 */
function convertedAverageValue(
  target: { averageValue?: string | number; averageUtilization?: number },
  resource: string,
  requests: PodRequests | undefined,
  label: string,
): { averageValue?: string; problem?: MetricProblem } {
  if (target.averageUtilization == null) return target.averageValue == null ? {} : { averageValue: String(target.averageValue) };
  if (!requests || requests.pods === 0) {
    return { problem: { reason: 'NoPodsForConversion', message: `${label}: no pods of the target to read ${resource} requests from` } };
  }
  if (requests.missing.length > 0) {
    const names = requests.missing.slice(0, 3).join(', ') + (requests.missing.length > 3 ? ', ...' : '');
    const reason = resource === 'cpu' ? 'MissingCPURequests' : 'MissingRequests';
    const message = resource === 'cpu' && label === 'Resource cpu' ? `missing CPU request in pods: ${names}` : `${label}: missing ${resource} request in pods: ${names}`;
    return { problem: { reason, message } };
  }
  const milli = Math.trunc((requests.requestMilli * target.averageUtilization) / 100 / requests.pods);
  if (milli <= 0) {
    const message = resource === 'cpu' && label === 'Resource cpu' ? 'converted CPU target rounds down to 0m' : `${label}: converted target rounds down to 0m`;
    return { problem: { reason: 'ZeroConvertedTarget', message } };
  }
  return { averageValue: formatMilli(milli) };
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
  const r = convertedAverageValue(cpu.resource.target, 'cpu', requests, 'Resource cpu');
  if (r.averageValue == null) return r.problem ? { problem: r.problem } : {};
  return {
    metric: {
      type: 'Pods',
      pods: {
        metric: { name: POD_CPU_USAGE_METRIC, selector: { matchLabels: { [EHPA_UID_LABEL]: ehpa.metadata.uid ?? '' } } },
        target: { type: 'AverageValue', averageValue: r.averageValue },
      },
    },
  };
}

/**
 * Crane HEAD's External `crane_autoscaling_prediction` for one resourceIdentifier of this EHPA's target;
 * `target` as a quantity is HEAD's `{type: AverageValue, averageValue}`.
 */
export function headPredictionMetric(ehpa: EffectiveHorizontalPodAutoscaler, resourceIdentifier: string, target: string | V2MetricTarget): V2MetricSpec {
  return {
    type: 'External',
    external: {
      metric: { name: PREDICTION_METRIC, selector: { matchLabels: { ...cronMetricSelector(ehpa), resourceIdentifier } } },
      target: typeof target === 'string' ? { type: 'AverageValue', averageValue: target } : target,
    },
  };
}

/**
 * The predicted metric beside one original metric, in the v0.7 shape. Names follow the Crane generation
 * that first predicted that kind of metric: Resource cpu the v0.2–v0.7 Pods `crane_pod_cpu_usage`; Pods and
 * External the v0.6–v0.7 `crane_custom.pods_<name>` / `crane_external_<name>` (EHPA uid selector); memory
 * and ContainerResource, which only HEAD predicts, HEAD's External `crane_autoscaling_prediction`. The
 * adapter answers every name for every identifier, so HPAs written by either Crane generation keep working.
 */
function v07MetricSpec(
  ehpa: EffectiveHorizontalPodAutoscaler,
  p: PredictedMetric,
  cpuRequests: PodCpuRequests | undefined,
  lookup: PodRequestsLookup | undefined,
): { metric?: V2MetricSpec; problem?: MetricProblem } {
  const original = (ehpa.spec.metrics ?? [])[p.index] as V2MetricSpec;
  const uidSelector = { matchLabels: { [EHPA_UID_LABEL]: ehpa.metadata.uid ?? '' } };
  switch (p.type) {
    case 'Resource':
    case 'ContainerResource': {
      if (p.type === 'Resource' && p.name === 'cpu') return predictedCpuMetric(ehpa, cpuRequests ?? lookup?.('cpu'));
      const r = resourceAverageValue(original, p, cpuRequests, lookup);
      return r.averageValue == null ? (r.problem ? { problem: r.problem } : {}) : { metric: headPredictionMetric(ehpa, p.resourceIdentifier, r.averageValue) };
    }
    case 'Pods': {
      const averageValue = original.pods?.target.averageValue;
      if (averageValue == null) return {};
      return { metric: { type: 'Pods', pods: { metric: { name: CUSTOM_PODS_PREDICTION_PREFIX + p.name, selector: uidSelector }, target: { type: 'AverageValue', averageValue } } } };
    }
    case 'External': {
      const target = original.external?.target;
      if (!target || (target.averageValue == null && target.value == null)) return {};
      return { metric: { type: 'External', external: { metric: { name: EXTERNAL_PREDICTION_PREFIX + p.name, selector: uidSelector }, target: structuredClone(target) } } };
    }
  }
}

/** The AverageValue a predicted Resource/ContainerResource metric is compared with (converted if Utilization). */
function resourceAverageValue(
  original: V2MetricSpec,
  p: PredictedMetric,
  cpuRequests: PodCpuRequests | undefined,
  lookup: PodRequestsLookup | undefined,
): { averageValue?: string; problem?: MetricProblem } {
  const target = (original.resource ?? original.containerResource)?.target;
  if (!target) return {};
  const label = `${p.type} ${p.name}${p.container ? ` (container ${p.container})` : ''}`;
  const workloadCpu = p.type === 'Resource' && p.name === 'cpu';
  const requests = target.averageUtilization == null ? undefined : workloadCpu ? (cpuRequests ?? lookup?.('cpu')) : lookup?.(p.name, p.container);
  return convertedAverageValue(target, p.name, requests, label);
}

/**
 * The predicted metric beside one original metric, in Crane HEAD's shape (gocrane/crane
 * pkg/controller/ehpa/hpa.go GetHPAMetrics, §B.3): every kind becomes the External
 * `crane_autoscaling_prediction` selected by target and HEAD's resourceIdentifier (`resource.cpu` for
 * workload CPU, which our TSP calls `crane_pod_cpu_usage`; the adapter takes either name), with an
 * AverageValue target: the converted Resource/ContainerResource value, or the original's averageValue.
 * One deliberate difference: an External metric with only a `value` target, for which HEAD writes an
 * AverageValue target without a value (the API server refuses the whole HPA), keeps its Value target here,
 * as the v0.7 shape does; the forecast is of the same total the original measures.
 */
function headMetricSpec(
  ehpa: EffectiveHorizontalPodAutoscaler,
  p: PredictedMetric,
  cpuRequests: PodCpuRequests | undefined,
  lookup: PodRequestsLookup | undefined,
): { metric?: V2MetricSpec; problem?: MetricProblem } {
  const original = (ehpa.spec.metrics ?? [])[p.index] as V2MetricSpec;
  const rid = predictionIdentifier(p.type, p.name);
  switch (p.type) {
    case 'Resource':
    case 'ContainerResource': {
      const r = resourceAverageValue(original, p, cpuRequests, lookup);
      return r.averageValue == null ? (r.problem ? { problem: r.problem } : {}) : { metric: headPredictionMetric(ehpa, rid, r.averageValue) };
    }
    case 'Pods': {
      const averageValue = original.pods?.target.averageValue;
      return averageValue == null ? {} : { metric: headPredictionMetric(ehpa, rid, averageValue) };
    }
    case 'External': {
      const target = original.external?.target;
      if (target?.averageValue != null) return { metric: headPredictionMetric(ehpa, rid, target.averageValue) };
      return target?.value == null ? {} : { metric: headPredictionMetric(ehpa, rid, { type: 'Value', value: target.value }) };
    }
  }
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

/**
 * Original metrics first (the fallback), then one prediction metric per predicted metric (spec order),
 * then the cron metric. `problem` is the first conversion problem (every one is in `problems`); a metric
 * with a problem or without a query (`unpredicted`) runs on its original alone.
 */
export function buildHpaMetrics(
  ehpa: EffectiveHorizontalPodAutoscaler,
  requests: PodCpuRequests | undefined,
  lookup?: PodRequestsLookup,
  shape: HpaShape = 'v0.7',
): { metrics: V2MetricSpec[]; problem?: MetricProblem; problems: MetricProblem[]; unpredicted: UnpredictedMetric[] } {
  const metrics: V2MetricSpec[] = structuredClone(ehpa.spec.metrics ?? []);
  const problems: MetricProblem[] = [];
  // The same defaults as the TSP (desired-tsp.ts), so each predicted metric here has its forecast there.
  const { predicted, unpredicted } = predictedMetrics(ehpa, shape);
  for (const p of predicted) {
    const r = shape === 'head' ? headMetricSpec(ehpa, p, requests, lookup) : v07MetricSpec(ehpa, p, requests, lookup);
    if (r.metric) metrics.push(r.metric);
    if (r.problem) problems.push(r.problem);
  }
  // Both shapes write HEAD's cron metric: this project never wrote the v0.4–v0.7 per-EHPA names (§0.1).
  if ((ehpa.spec.crons ?? []).length > 0) metrics.push(cronMetric(ehpa));
  // autoscaling/v2 defaulting adds 80% CPU to an HPA without metrics; build it ourselves so the stored
  // object equals the desired one.
  if (metrics.length === 0) {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } });
  }
  return { metrics, ...(problems[0] ? { problem: problems[0] } : {}), problems, unpredicted };
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

export function buildDesiredHpa(input: DesiredHpaInput): { hpa: HorizontalPodAutoscaler; problem?: MetricProblem; problems: MetricProblem[]; unpredicted: UnpredictedMetric[] } {
  const { ehpa } = input;
  const name = ownedObjectName(ehpa.metadata.name);
  const { metrics, problem, problems, unpredicted } = buildHpaMetrics(ehpa, input.podCpuRequests, input.podRequests, input.shape);
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
  return { hpa, ...(problem ? { problem } : {}), problems, unpredicted };
}
