// The names that tie an EHPA to what the controller creates and to what the adapter serves, shared by
// the controller, the adapter, the metric values and the simulation, so they cannot drift apart
// (docs/crane-behaviour.md §B.2, §B.4, §C.3, §C.4).

/** Legacy (v0.2–v0.7) Pods metric the HPA reads for predicted CPU, served by our adapter (§C.3). */
export const POD_CPU_USAGE_METRIC = 'crane_pod_cpu_usage';
/** The TSP resourceIdentifier the adapter looks up for that metric (§0.1 table, v0.2–v0.7). */
export const POD_CPU_USAGE_IDENTIFIER = 'crane_pod_cpu_usage';
/** External cron metric and its selector keys (§B.3 step 3, §C.4). */
export const CRON_METRIC = 'crane_autoscaling_cron';
export const CRON_RESOURCE_IDENTIFIER = 'cron';

/** The backing HPA, TSP and Substitute all carry this name (§B.2, §B.4, §B.5). */
export function ownedObjectName(ehpaName: string): string {
  return `ehpa-${ehpaName}`;
}

/**
 * Predicted Pods and External metrics of Crane v0.6–v0.7 (docs/crane-behaviour.md §0.1): gocrane/crane
 * v0.6–v0.7 pkg/utils/ehpa.go `GetGeneralPredictionMetricName` formats `crane_<prefix>_<name>` with prefix
 * `custom.pods` (Pods) or `external` (External); selected by the EHPA uid label like `crane_pod_cpu_usage`.
 */
export const CUSTOM_PODS_PREDICTION_PREFIX = 'crane_custom.pods_';
export const EXTERNAL_PREDICTION_PREFIX = 'crane_external_';
/** Crane v0.8+'s one External metric for every predicted metric, selected by target and resourceIdentifier. */
export const PREDICTION_METRIC = 'crane_autoscaling_prediction';

/**
 * Crane HEAD's resourceIdentifier of a predicted metric (gocrane/crane pkg/utils/ehpa.go
 * GetPredictionMetricIdentifier): `resource.memory`, `container-resource.cpu`, `pods.<name>`, `external.<name>`.
 */
export function predictionIdentifier(type: 'Resource' | 'ContainerResource' | 'Pods' | 'External', name: string): string {
  const prefix = type === 'Resource' ? 'resource' : type === 'ContainerResource' ? 'container-resource' : type === 'Pods' ? 'pods' : 'external';
  return `${prefix}.${name}`;
}
