// The `/scale` subresource of any kind that has one (Deployment, StatefulSet, a CRD with
// `subresources.scale`), found through discovery, like Crane's GetScale (docs/crane-behaviour.md §B.1, §G).
import { resourcePath, type ObjectWriter } from './api-client.ts';
import { type ResourceDiscovery, UnknownKindError } from './discovery.ts';
import type { Scale } from '../api/autoscaling.ts';
import type { CrossVersionObjectReference } from '../api/meta.ts';

/** What a reconciler needs of a target's `/scale` (unit tests fake it). */
export interface ScaleAccess {
  get(namespace: string, ref: CrossVersionObjectReference): Promise<Scale>;
  setReplicas(namespace: string, ref: CrossVersionObjectReference, replicas: number): Promise<Scale>;
}

export class ScaleClient implements ScaleAccess {
  constructor(
    private readonly client: Pick<ObjectWriter, 'get' | 'patch'>,
    private readonly discovery: ResourceDiscovery,
  ) {}

  private async path(namespace: string, ref: CrossVersionObjectReference): Promise<string> {
    const info = await this.discovery.resolve(ref.apiVersion, ref.kind);
    if (!info.scalable) throw new UnknownKindError(`kind ${ref.kind} in ${info.apiVersion} has no scale subresource`);
    // An EHPA (and its HPA) scales a target in its own namespace; a cluster-scoped kind would let a
    // namespace's user scale something nobody gave them, with the controller's cluster-wide rights.
    if (!info.namespaced) throw new UnknownKindError(`kind ${ref.kind} in ${info.apiVersion} is cluster-scoped: only a namespaced target in the EHPA's own namespace can be scaled`);
    return resourcePath(info.apiVersion, info.plural, namespace, ref.name, 'scale');
  }

  async get(namespace: string, ref: CrossVersionObjectReference): Promise<Scale> {
    return this.client.get<Scale>(await this.path(namespace, ref));
  }

  /** Sets spec.replicas with a merge patch (no read-modify-write race on the target). */
  async setReplicas(namespace: string, ref: CrossVersionObjectReference, replicas: number): Promise<Scale> {
    return this.client.patch<Scale>(await this.path(namespace, ref), { spec: { replicas } });
  }
}
