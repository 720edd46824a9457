// Read-only views over the shared informer caches for other loops of the process (the metrics adapter's
// providers): the same caches the controllers use, so the adapter costs no extra watches. Method names
// and shapes follow the adapter's `AdapterSources`, minus observed usage, which is the adapter's business.
import type { EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import type { CrossVersionObjectReference } from '../api/meta.ts';
import type { PodLike } from '../api/pod.ts';
import type { TimeSeriesPrediction } from '../api/prediction.ts';
import type { ResourceDiscovery } from '../kube/discovery.ts';
import { InformerRegistry } from '../kube/informers.ts';
import { KINDS } from '../api/kinds.ts';
import type { KubeApiClient } from '../kube/api-client.ts';
import { workloadScaleAccess } from '../ehpa/workload-scale.ts';

export interface ClusterReads {
  getEhpa(namespace: string, name: string): EffectiveHorizontalPodAutoscaler | undefined;
  listEhpas(namespace?: string): readonly EffectiveHorizontalPodAutoscaler[];
  listTsps(namespace?: string): readonly TimeSeriesPrediction[];
  listPods(namespace: string, selector: { matches(labels: Readonly<Record<string, string>> | undefined): boolean }): readonly PodLike[];
  getScaleReplicas(namespace: string, ref: CrossVersionObjectReference): Promise<number | undefined>;
  /** These three caches have their first list (other loops' informers, e.g. events, do not count). */
  synced(): boolean;
}

/** Registers (or reuses) the EHPA, TSP and pod informers and reads from them. */
export function clusterReads(ctx: { client: KubeApiClient; informers: InformerRegistry; discovery: ResourceDiscovery }): ClusterReads {
  const ehpas = ctx.informers.informer<EffectiveHorizontalPodAutoscaler>(KINDS.ehpa);
  const tsps = ctx.informers.informer<TimeSeriesPrediction>(KINDS.tsp);
  const pods = ctx.informers.informer<PodLike & { metadata: { name: string } }>(KINDS.pod);
  const scale = workloadScaleAccess(ctx);
  return {
    getEhpa: (ns, name) => ehpas.get(ns, name),
    listEhpas: (ns) => ehpas.list(ns),
    listTsps: (ns) => tsps.list(ns),
    listPods: (ns, selector) => pods.list(ns).filter((p) => selector.matches(p.metadata.labels)),
    synced: () => ehpas.hasSynced() && tsps.hasSynced() && pods.hasSynced(),
    async getScaleReplicas(ns, ref) {
      try {
        return (await scale.get(ns, ref)).spec.replicas;
      } catch {
        return undefined;
      }
    },
  };
}
