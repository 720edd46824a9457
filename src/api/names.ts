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
