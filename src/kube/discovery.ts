// Which REST resource serves a kind: the RESTMapper's job, done with discovery documents. The apiVersion
// comes from users' objects (an EHPA's or VPA's targetRef), so it is validated before it becomes a URL or
// a cache key, and the cache is bounded: at most `maxEntries` group-versions, least recently used out
// first. Hits are kept; misses expire quickly, so a CRD installed after we started is found on a later
// reconcile.
import { groupVersionPath, validateApiVersion, type ObjectWriter, KubeApiError } from './api-client.ts';

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

export interface DiscoveryOptions {
  now?: () => number;
  /** How long "the server does not serve this group-version" is believed. */
  missTtlMs?: number;
  /** Group-versions remembered at most (hits and misses together). */
  maxEntries?: number;
}

export class ResourceDiscovery {
  /** Map order is recency: a read moves the entry to the end, eviction takes the first. */
  private readonly lists = new Map<string, { at: number; list?: ApiResourceList }>();
  private readonly now: () => number;
  private readonly missTtlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly client: Pick<ObjectWriter, 'get'>,
    o: DiscoveryOptions = {},
  ) {
    this.now = o.now ?? Date.now;
    this.missTtlMs = o.missTtlMs ?? 30_000;
    this.maxEntries = o.maxEntries ?? 256;
  }

  /** Group-versions currently remembered (for tests and metrics). */
  get size(): number {
    return this.lists.size;
  }

  private remember(apiVersion: string, entry: { at: number; list?: ApiResourceList }): void {
    this.lists.delete(apiVersion);
    this.lists.set(apiVersion, entry);
    while (this.lists.size > this.maxEntries) this.lists.delete(this.lists.keys().next().value as string);
  }

  private async resourceList(apiVersion: string): Promise<ApiResourceList | undefined> {
    const cached = this.lists.get(apiVersion);
    if (cached && (cached.list || this.now() - cached.at < this.missTtlMs)) {
      this.remember(apiVersion, cached);
      return cached.list;
    }
    if (cached) this.lists.delete(apiVersion); // an expired miss
    try {
      const list = await this.client.get<ApiResourceList>(groupVersionPath(apiVersion));
      this.remember(apiVersion, { at: this.now(), list });
      return list;
    } catch (e) {
      if (e instanceof KubeApiError && e.notFound) {
        this.remember(apiVersion, { at: this.now() });
        return undefined;
      }
      throw e;
    }
  }

  /**
   * Resolves `apiVersion`+`kind`; throws InvalidApiPathError (api-client.ts) for a malformed apiVersion,
   * before any request, and UnknownKindError when the API server does not serve the kind.
   */
  async resolve(apiVersion: string | undefined, kind: string): Promise<ResourceInfo> {
    const gv = apiVersion || 'v1';
    validateApiVersion(gv);
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
