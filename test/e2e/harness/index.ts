// Public surface of the end-to-end harness (see README.md in this directory).
export { startCluster, type Cluster, type ClusterOptions, type TraceBackfill, type GaugeTraceBackfill, type StartTimings, type UserIdentity } from './cluster.ts';
export { locateBinaries, controlPlaneDir, prometheusAdapterBinary, REPO_ROOT, type Binaries } from './binaries.ts';
export { restClient, type RestClient, type RawResponse } from './rest.ts';
export { queryRange, queryInstant, SCRAPE_LABELS, KUBELET_RESOURCE_METRICS_PATH, type Usage, type ScrapeTarget } from './prometheus.ts';
export { parseTraceCsv, shiftTrace, toOpenMetrics, cumulativeCpuSeconds } from './openmetrics.ts';
export { NODE_EXPORTER_JOB, type NodeExporterBackfill, type NodeUsage } from './node-exporter.ts';
export { METRICS_API_SERVICES } from './aggregation.ts';
export { loadKustomization, applyObjects, applyComponent, MANIFESTS_DIR } from './manifests.ts';
export { waitFor } from './processes.ts';
export { cpuByCommand, cpuSpentSince } from './cpu-by-process.ts';
export type { AdapterProcess } from './adapter-process.ts';
export { recordEviction, type EvictionOffender } from './kubelet-events.ts';
export {
  kwokBinaries, cpuMilliAnnotation, usageAnnotations, USAGE_CPU_ANNOTATION, USAGE_MEMORY_ANNOTATION, OOM_KILL_ANNOTATION,
  type KwokStack, type KwokBinaries, type KwokContainerStatus, type KwokPodUsage,
} from './kwok.ts';
export {
  installCrds, installManifestRbac, installManifestFlowControl, createNamespace, createDeployment, deploymentObject, getDeployment, waitReplicas,
  podsOf, followWorkloadUsage, waitHpa, directAdapterClient, type DeploymentSpec, type HpaState, type PodInfo,
} from './workloads.ts';
