// `/scale` of the workload kinds we watch (apps Deployment and StatefulSet), answered from the informer
// cache instead of a GET per EHPA per resync: at 10,000 EHPAs the GET was the steady state's one API
// request per EHPA (docs/sizing.md). The Scale is built as the API server builds it for these kinds
// (k8s.io/kubernetes v1.34 pkg/registry/apps/deployment/storage/storage.go scaleFromDeployment, and
// statefulset/storage/storage.go scaleFromStatefulSet): spec.replicas, status.replicas and the selector's
// string form. Every other kind, a workload the cache has not seen (not yet synced, just created, or gone:
// the GET then gives the API server's own 404), and every write go to the API as before. The cache lags the
// API by a watch event; the EHPA loop's next pass reads the newer value, as it did from the next GET.
import type { Scale } from '../api/autoscaling.ts';
import type { CrossVersionObjectReference } from '../api/meta.ts';
import { formatLabelSelector, type LabelSelectorObject } from '../selectors/label-selector.ts';
import type { ScaleAccess } from './scale-client.ts';

/** What the workload informers keep (kube/cache-transforms.ts trimWorkload). */
export interface CachedWorkload {
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
  spec?: { replicas?: number; selector?: LabelSelectorObject };
  status?: { replicas?: number };
}

/** The read side of one informer cache. */
export interface WorkloadCache {
  hasSynced(): boolean;
  get(namespace: string, name: string): CachedWorkload | undefined;
}

/** The API group of an apiVersion ("apps/v1" → "apps", "v1" → ""). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The Scale the API server would answer for a cached workload. */
export function scaleOfWorkload(w: CachedWorkload): Scale {
  const selector = formatLabelSelector(w.spec?.selector);
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: {
      name: w.metadata.name ?? '',
      ...(w.metadata.namespace !== undefined ? { namespace: w.metadata.namespace } : {}),
      ...(w.metadata.uid !== undefined ? { uid: w.metadata.uid } : {}),
      ...(w.metadata.resourceVersion !== undefined ? { resourceVersion: w.metadata.resourceVersion } : {}),
    },
    spec: { replicas: w.spec?.replicas ?? 0 },
    status: { replicas: w.status?.replicas ?? 0, ...(selector !== '' ? { selector } : {}) },
  };
}

export class CachedScaleAccess implements ScaleAccess {
  /** Scales answered from a cache and from the API (tests, benchmarks). */
  readonly served = { cache: 0, api: 0 };

  /** `caches`: by kind, for the `apps` group (any version, as the API serves one object under each). */
  constructor(
    private readonly api: ScaleAccess,
    private readonly caches: ReadonlyMap<string, WorkloadCache>,
  ) {}

  async get(namespace: string, ref: CrossVersionObjectReference): Promise<Scale> {
    const cache = groupOf(ref.apiVersion ?? '') === 'apps' ? this.caches.get(ref.kind) : undefined;
    const cached = cache?.hasSynced() ? cache.get(namespace, ref.name) : undefined;
    if (cached) {
      this.served.cache++;
      return scaleOfWorkload(cached);
    }
    this.served.api++;
    return this.api.get(namespace, ref);
  }

  setReplicas(namespace: string, ref: CrossVersionObjectReference, replicas: number): Promise<Scale> {
    return this.api.setReplicas(namespace, ref, replicas);
  }
}
