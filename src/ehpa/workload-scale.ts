// The one `/scale` reader of the process: Deployments and StatefulSets from the shared informer caches
// (kube/cached-scale.ts), every other kind through the API. The EHPA controller and the adapter's cron
// metric (current replicas when no cron is active) both read through it, so neither costs a GET per EHPA.
import { CachedScaleAccess, type CachedWorkload } from '../kube/cached-scale.ts';
import type { InformerRegistry } from '../kube/informers.ts';
import type { KubeApiClient } from '../kube/api-client.ts';
import type { ResourceDiscovery } from '../kube/discovery.ts';
import { ScaleClient } from '../kube/scale-client.ts';
import { KINDS } from '../api/kinds.ts';

type Workload = CachedWorkload & { metadata: { name: string } };

export function workloadScaleAccess(ctx: { client: KubeApiClient; informers: InformerRegistry; discovery: ResourceDiscovery }): CachedScaleAccess {
  const caches = new Map([
    ['Deployment', ctx.informers.informer<Workload>(KINDS.deployment)],
    ['StatefulSet', ctx.informers.informer<Workload>(KINDS.statefulSet)],
  ]);
  return new CachedScaleAccess(new ScaleClient(ctx.client, ctx.discovery), caches);
}
