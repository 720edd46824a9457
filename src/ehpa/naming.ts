// Names, labels and metric identifiers that tie an EHPA to the objects the controller makes and to the
// metrics the adapter serves. One place, so the controller and the adapter cannot drift apart
// (docs/crane-behaviour.md §B.2, §B.3, §B.4, §C.3, §C.4).
import { EHPA_GROUP, EHPA_KIND, EHPA_UID_LABEL, EHPA_VERSION, type EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';

export const MANAGED_BY = 'effective-hpa-controller';
export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_PART_OF = 'app.kubernetes.io/part-of';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_TARGET_KIND = 'app.kubernetes.io/target-kind';
export const LABEL_TARGET_NAMESPACE = 'app.kubernetes.io/target-namespace';
export const LABEL_TARGET_NAME = 'app.kubernetes.io/target-name';

/** Legacy (v0.2–v0.7) Pods metric the HPA reads for predicted CPU, served by our adapter (§C.3). */
export const POD_CPU_USAGE_METRIC = 'crane_pod_cpu_usage';
/** The TSP resourceIdentifier the adapter looks up for that metric (§0.1 table, v0.2–v0.7). */
export const POD_CPU_USAGE_IDENTIFIER = 'crane_pod_cpu_usage';
/** External cron metric and its selector keys (§B.3 step 3, §C.4). */
export const CRON_METRIC = 'crane_autoscaling_cron';
export const CRON_RESOURCE_IDENTIFIER = 'cron';
/** Crane's DefaultCronTargetMetricValue: HPA divides by 1, so the metric value is the replica count. */
export const CRON_TARGET_AVERAGE_VALUE = '1';
/** Annotation Crane writes with the YAML of the HPA's currentMetrics (§B.1). */
export const CURRENT_METRICS_ANNOTATION = 'autoscaling.crane.io/effective-hpa-current-metrics';


/** The backing HPA, TSP and Substitute all carry this name (§B.2, §B.4, §B.5). */
export function ownedObjectName(ehpaName: string): string {
  return `ehpa-${ehpaName}`;
}

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
    apiVersion: `${EHPA_GROUP}/${EHPA_VERSION}`,
    kind: EHPA_KIND,
    name: ehpa.metadata.name,
    uid: ehpa.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}
