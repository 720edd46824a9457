// Which REST resource serves a kind: the RESTMapper's job, done with discovery documents. Hits are kept;
// misses expire quickly, so a CRD installed after we started is found on a later reconcile.
import { groupVersionPath, type ObjectWriter, KubeApiError } from './api-client.ts';

export interface ResourceInfo {
  apiVersion: string;
  plural: string;
  namespaced: boolean;
  /** Whether the resource has a `/scale` subresource. */
  scalable: boolean;
}

interface ApiResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

export class UnknownKindError extends Error {
  override name = 'UnknownKindError';
}

export class ResourceDiscovery {
  private readonly lists = new Map<string, { at: number; list?: ApiResourceList }>();

  constructor(
    private readonly client: Pick<ObjectWriter, 'get'>,
    private readonly now: () => number = Date.now,
    private readonly missTtlMs = 30_000,
  ) {}

  private async resourceList(apiVersion: string): Promise<ApiResourceList | undefined> {
    const cached = this.lists.get(apiVersion);
    if (cached && (cached.list || this.now() - cached.at < this.missTtlMs)) return cached.list;
    try {
      const list = await this.client.get<ApiResourceList>(groupVersionPath(apiVersion));
      this.lists.set(apiVersion, { at: this.now(), list });
      return list;
    } catch (e) {
      if (e instanceof KubeApiError && e.notFound) {
        this.lists.set(apiVersion, { at: this.now() });
        return undefined;
      }
      throw e;
    }
  }

  /** Resolves `apiVersion`+`kind`; throws UnknownKindError when the API server does not serve it. */
  async resolve(apiVersion: string | undefined, kind: string): Promise<ResourceInfo> {
    const gv = apiVersion || 'v1';
    let list = await this.resourceList(gv);
    let res = list?.resources.find((r) => r.kind === kind && !r.name.includes('/'));
    if (!res && this.lists.get(gv)?.list) {
      // A hit list may predate a new CRD version's kinds; refresh once.
      this.lists.delete(gv);
      list = await this.resourceList(gv);
      res = list?.resources.find((r) => r.kind === kind && !r.name.includes('/'));
    }
    if (!res || !list) throw new UnknownKindError(`the server does not serve kind ${kind} in ${gv}`);
    const scalable = list.resources.some((r) => r.name === `${res.name}/scale`);
    return { apiVersion: gv, plural: res.name, namespaced: res.namespaced, scalable };
  }
}
