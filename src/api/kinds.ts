// Where each kind lives on the API server (group/version and plural), in one table for the informers, the
// reconcilers and the adapter's cache views. The group and version strings themselves come from the files
// that define each kind, so they are written once.
import { EHPA_API_VERSION, EHPA_PLURAL, SUBSTITUTE_PLURAL } from './ehpa.ts';
import { HPA_API_VERSION, HPA_PLURAL } from './autoscaling.ts';
import { TSP_API_VERSION, TSP_PLURAL } from './prediction.ts';
import type { KindRef } from './meta.ts';

export const VPA_API_VERSION = 'autoscaling.k8s.io/v1';

/** Kinds the controllers and the adapter share. */
export const KINDS = {
  ehpa: { apiVersion: EHPA_API_VERSION, plural: EHPA_PLURAL },
  substitute: { apiVersion: EHPA_API_VERSION, plural: SUBSTITUTE_PLURAL },
  tsp: { apiVersion: TSP_API_VERSION, plural: TSP_PLURAL },
  hpa: { apiVersion: HPA_API_VERSION, plural: HPA_PLURAL },
  pod: { apiVersion: 'v1', plural: 'pods' },
  /** Workloads whose `/scale` is answered from the cache (kube/cached-scale.ts). Optional: until they sync
   *  (or where RBAC lacks the watch) `/scale` is read from the API, so readiness need not wait for them. */
  deployment: { apiVersion: 'apps/v1', plural: 'deployments', optional: true },
  statefulSet: { apiVersion: 'apps/v1', plural: 'statefulsets', optional: true },
  vpa: { apiVersion: VPA_API_VERSION, plural: 'verticalpodautoscalers' },
  vpaCheckpoint: { apiVersion: VPA_API_VERSION, plural: 'verticalpodautoscalercheckpoints' },
  /** Kubelet eviction events only: the VPA recommender reads memory-pressure evictions as OOMs. */
  evictionEvent: { apiVersion: 'v1', plural: 'events', fieldSelector: 'reason=Evicted', optional: true },
} as const satisfies Record<string, KindRef>;
