// Names, labels and metric identifiers that tie an EHPA to the objects the controller makes and to the
// metrics the adapter serves. One place, so the controller and the adapter cannot drift apart
// (docs/crane-behaviour.md §B.2, §B.3, §B.4, §C.3, §C.4).
import { EHPA_API_VERSION, EHPA_KIND, EHPA_UID_LABEL, type EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { CRON_RESOURCE_IDENTIFIER, ownedObjectName } from '../api/names.ts';

export const MANAGED_BY = 'effective-hpa-controller';
export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_PART_OF = 'app.kubernetes.io/part-of';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_TARGET_KIND = 'app.kubernetes.io/target-kind';
export const LABEL_TARGET_NAMESPACE = 'app.kubernetes.io/target-namespace';
export const LABEL_TARGET_NAME = 'app.kubernetes.io/target-name';

/** Crane's DefaultCronTargetMetricValue: HPA divides by 1, so the metric value is the replica count. */
export const CRON_TARGET_AVERAGE_VALUE = '1';
/** Annotation Crane writes with the YAML of the HPA's currentMetrics (§B.1). */
export const CURRENT_METRICS_ANNOTATION = 'autoscaling.crane.io/effective-hpa-current-metrics';


/** Labels shared by the HPA and the Substitute (§B.2). */
export function ownedLabels(ehpa: EffectiveHorizontalPodAutoscaler): Record<string, string> {
  return {
    [LABEL_NAME]: ownedObjectName(ehpa.metadata.name),
    [LABEL_PART_OF]: ehpa.metadata.name,
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [EHPA_UID_LABEL]: ehpa.metadata.uid ?? '',
  };
}

/** Selector labels of the cron External metric (§B.3 step 3). */
export function cronMetricSelector(ehpa: EffectiveHorizontalPodAutoscaler): Record<string, string> {
  return {
    targetKind: ehpa.spec.scaleTargetRef.kind,
    targetName: ehpa.spec.scaleTargetRef.name,
    targetNamespace: ehpa.metadata.namespace,
    resourceIdentifier: CRON_RESOURCE_IDENTIFIER,
  };
}

/** `SetControllerReference` pointing at the EHPA: GC deletes what we own when the EHPA goes. */
export function controllerOwnerReference(ehpa: EffectiveHorizontalPodAutoscaler) {
  return {
    apiVersion: EHPA_API_VERSION,
    kind: EHPA_KIND,
    name: ehpa.metadata.name,
    uid: ehpa.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}
