// Which REST resource serves a kind: the RESTMapper's job, done with discovery documents. The apiVersion
// comes from users' objects (an EHPA's or VPA's targetRef), so it is validated before it becomes a URL or
// a cache key, and the cache is bounded: at most `maxEntries` group-versions, least recently used out
// first. Hits are kept; misses expire quickly, so a CRD installed after we started is found on a later
// reconcile.
//
// A kind is looked up in the apiVersion given first; when that version does not serve it (an old
// `apps/v1beta1` or `extensions/v1beta1` scaleTargetRef on a current cluster), in the other versions the
// group serves, preferred version first. That is what a RESTMapper's RESTMappings(GroupKind) gives the HPA
// controller (k8s.io/kubernetes v1.34 pkg/controller/podautoscaler/horizontal.go) and Crane's GetScale
// (gocrane/crane pkg/utils/scale.go): both ignore the version of the reference. Group documents are cached
// for missTtlMs (hit or miss) in a map bounded like the resource lists.
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

interface ApiGroupDoc {
  versions?: { groupVersion: string }[];
  preferredVersion?: { groupVersion: string };
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
  /** `/apis/<group>` answers: the group-versions served, preferred first (undefined: group not served). */
  private readonly groups = new Map<string, { at: number; versions?: string[] }>();
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

  private async groupVersions(group: string): Promise<string[]> {
    if (group === '') return ['v1'];
    const cached = this.groups.get(group);
    if (cached && this.now() - cached.at < this.missTtlMs) return cached.versions ?? [];
    let versions: string[] | undefined;
    try {
      const doc = await this.client.get<ApiGroupDoc>(`/apis/${group}`);
      const all = (doc.versions ?? []).map((v) => v.groupVersion);
      const preferred = doc.preferredVersion?.groupVersion;
      versions = preferred && all.includes(preferred) ? [preferred, ...all.filter((v) => v !== preferred)] : all;
    } catch (e) {
      if (!(e instanceof KubeApiError && e.notFound)) throw e;
    }
    this.groups.delete(group);
    this.groups.set(group, { at: this.now(), ...(versions ? { versions } : {}) });
    while (this.groups.size > this.maxEntries) this.groups.delete(this.groups.keys().next().value as string);
    return versions ?? [];
  }

  /** The kind in one group-version, refreshing a cached list once (it may predate a new CRD version's kinds). */
  private async findIn(gv: string, kind: string): Promise<ResourceInfo | undefined> {
    let list = await this.resourceList(gv);
    let res = list?.resources.find((r) => r.kind === kind && !r.name.includes('/'));
    if (!res && this.lists.get(gv)?.list) {
      this.lists.delete(gv);
      list = await this.resourceList(gv);
      res = list?.resources.find((r) => r.kind === kind && !r.name.includes('/'));
    }
    if (!res || !list) return undefined;
    const scalable = list.resources.some((r) => r.name === `${res.name}/scale`);
    return { apiVersion: gv, plural: res.name, namespaced: res.namespaced, scalable };
  }

  /**
   * Resolves `apiVersion`+`kind`; throws InvalidApiPathError (api-client.ts) for a malformed apiVersion,
   * before any request, and UnknownKindError when the API server serves the kind in no version of the group.
   * The answer's apiVersion is the one that serves it (the given one when it does).
   */
  async resolve(apiVersion: string | undefined, kind: string): Promise<ResourceInfo> {
    const gv = apiVersion || 'v1';
    validateApiVersion(gv);
    const exact = await this.findIn(gv, kind);
    if (exact) return exact;
    const slash = gv.indexOf('/');
    const group = slash < 0 ? '' : gv.slice(0, slash);
    for (const other of await this.groupVersions(group)) {
      if (other === gv) continue;
      const found = await this.findIn(other, kind);
      if (found) return found;
    }
    throw new UnknownKindError(`the server does not serve kind ${kind} in ${gv}${group ? ` or in any other version of group ${group}` : ''}`);
  }
}
