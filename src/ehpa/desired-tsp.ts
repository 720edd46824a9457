// The TimeSeriesPrediction an EHPA wants (docs/crane-behaviour.md §B.4): one TSP per EHPA with one
// predictionMetrics entry per predicted metric (predicted-metrics.ts). Resource cpu keeps the v0.2–v0.7
// entry `crane_pod_cpu_usage` that the adapter's Pods metric reads (§C.3); the others use Crane HEAD's
// identifiers (`resource.memory`, `container-resource.<r>`, `pods.<name>`, `external.<name>`). Under
// --hpa-shape=head workload CPU is HEAD's `resource.cpu` too (§C.9), so the series craned's exporter
// publishes carry the identifier the head-shaped HPA selects; the adapter answers either name from either.
// Under head, a Pods/External metric without a metric-query annotation is predicted on HEAD's default
// query, confined to the EHPA's namespace (default-metric-query.ts), under `pods.<name>`/`external.<name>`.
import { LABEL_MANAGED_BY, LABEL_NAME, LABEL_PART_OF, LABEL_TARGET_KIND, LABEL_TARGET_NAME, LABEL_TARGET_NAMESPACE, MANAGED_BY, controllerOwnerReference } from './naming.ts';
import { ownedObjectName, predictionIdentifier } from '../api/names.ts';
import { predictedMetrics, predictionMetricEntry, type PredictedMetric } from './predicted-metrics.ts';
import { EHPA_UID_LABEL, type EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { TSP_GROUP, TSP_KIND, TSP_VERSION, type PredictionMetricSpec, type TimeSeriesPrediction } from '../api/prediction.ts';
import { AUTO_MODE_ANNOTATIONS } from '../prediction/coverage-annotation.ts';
import type { HpaShape } from './desired-hpa.ts';

export { METRIC_QUERY_ANNOTATION_PREFIX } from './predicted-metrics.ts';

function metricSpec(p: PredictedMetric, ehpa: EffectiveHorizontalPodAutoscaler): PredictionMetricSpec {
  const metric = predictionMetricEntry(p);
  metric.algorithm = structuredClone(ehpa.spec.prediction?.predictionAlgorithm ?? {});
  return metric;
}

/** Undefined when the EHPA needs no TSP (prediction off, or nothing predictable). */
export function buildDesiredTsp(ehpa: EffectiveHorizontalPodAutoscaler, shape: HpaShape = 'v0.7'): TimeSeriesPrediction | undefined {
  // The head shape comes with HEAD's default queries for Pods and External metrics (§B.4, §C.9).
  const { predicted } = predictedMetrics(ehpa, shape);
  if (predicted.length === 0) return undefined;
  const ref = ehpa.spec.scaleTargetRef;
  const ns = ehpa.metadata.namespace;
  // auto mode's coverage target and accepted extra cost have no field in Crane's schema: the EHPA's
  // annotations are copied as they are (the TSP controller validates them), and removed from the TSP with
  // them (the reconciler applies them exactly).
  const copied = Object.fromEntries(AUTO_MODE_ANNOTATIONS.flatMap((k) => {
    const v = ehpa.metadata.annotations?.[k];
    return v === undefined ? [] : [[k, v]];
  }));
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
      ...(Object.keys(copied).length ? { annotations: copied } : {}),
    },
    spec: {
      targetRef: { kind: ref.kind, namespace: ns, name: ref.name, ...(ref.apiVersion ? { apiVersion: ref.apiVersion } : {}) },
      predictionWindowSeconds: ehpa.spec.prediction?.predictionWindowSeconds as number,
      predictionMetrics: predicted.map((p) => metricSpec(shape === 'head' ? { ...p, resourceIdentifier: predictionIdentifier(p.type, p.name) } : p, ehpa)),
    },
  };
}
