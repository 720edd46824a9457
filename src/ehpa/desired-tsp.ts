// The TimeSeriesPrediction an EHPA wants (docs/crane-behaviour.md §B.4, in its v0.2–v0.7 shape:
// one `crane_pod_cpu_usage` metric that the adapter's Pods metric reads, §C.3).
import { LABEL_MANAGED_BY, LABEL_NAME, LABEL_PART_OF, LABEL_TARGET_KIND, LABEL_TARGET_NAME, LABEL_TARGET_NAMESPACE, MANAGED_BY, controllerOwnerReference } from './naming.ts';
import { POD_CPU_USAGE_IDENTIFIER, ownedObjectName } from '../api/names.ts';
import { hasPredictableCpuMetric } from './desired-hpa.ts';
import { EHPA_UID_LABEL, type EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { TSP_GROUP, TSP_KIND, TSP_VERSION, type PredictionMetricSpec, type TimeSeriesPrediction } from '../api/prediction.ts';

/** User PromQL override, Crane's `metric-query.autoscaling.crane.io/<metricIdentifier>` (§B.3). */
export const METRIC_QUERY_ANNOTATION_PREFIX = 'metric-query.autoscaling.crane.io/';

function cpuQueryOverride(ehpa: EffectiveHorizontalPodAutoscaler): string | undefined {
  const a = ehpa.metadata.annotations ?? {};
  // Our own identifier first, then Crane v0.8+'s name for the same metric.
  return a[METRIC_QUERY_ANNOTATION_PREFIX + POD_CPU_USAGE_IDENTIFIER] ?? a[METRIC_QUERY_ANNOTATION_PREFIX + 'resource.cpu'];
}

/** Undefined when the EHPA needs no TSP (prediction off, or nothing predictable). */
export function buildDesiredTsp(ehpa: EffectiveHorizontalPodAutoscaler): TimeSeriesPrediction | undefined {
  if (!hasPredictableCpuMetric(ehpa)) return undefined;
  const ref = ehpa.spec.scaleTargetRef;
  const ns = ehpa.metadata.namespace;
  const override = cpuQueryOverride(ehpa);
  const metric: PredictionMetricSpec = override
    ? { resourceIdentifier: POD_CPU_USAGE_IDENTIFIER, type: 'ExpressionQuery', expressionQuery: { expression: override } }
    : { resourceIdentifier: POD_CPU_USAGE_IDENTIFIER, type: 'ResourceQuery', resourceQuery: 'cpu' };
  metric.algorithm = structuredClone(ehpa.spec.prediction?.predictionAlgorithm ?? {});
  return {
    apiVersion: `${TSP_GROUP}/${TSP_VERSION}`,
    kind: TSP_KIND,
    metadata: {
      name: ownedObjectName(ehpa.metadata.name),
      namespace: ns,
      labels: {
        [LABEL_NAME]: ownedObjectName(ehpa.metadata.name),
        [LABEL_PART_OF]: ehpa.metadata.name,
        [LABEL_MANAGED_BY]: MANAGED_BY,
        [LABEL_TARGET_KIND]: ref.kind,
        [LABEL_TARGET_NAMESPACE]: ns,
        [LABEL_TARGET_NAME]: ref.name,
        [EHPA_UID_LABEL]: ehpa.metadata.uid ?? '',
      },
      ownerReferences: [controllerOwnerReference(ehpa)],
    },
    spec: {
      targetRef: { kind: ref.kind, namespace: ns, name: ref.name, ...(ref.apiVersion ? { apiVersion: ref.apiVersion } : {}) },
      predictionWindowSeconds: ehpa.spec.prediction?.predictionWindowSeconds as number,
      predictionMetrics: [metric],
    },
  };
}
