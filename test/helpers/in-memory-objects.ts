// An in-memory object store behind the reconcilers' narrow seams (ObjectWriter, CacheReader): enough of
// the API server's write semantics for unit tests of reconcile() (create refuses an existing name with
// AlreadyExists, writes bump resourceVersion, a stale resourceVersion is a Conflict, status patches are
// JSON merge patches). Not a stand-in for kube-apiserver: the e2e suites run the real one.
import { KubeApiError, type ObjectWriter, type PatchType } from '../../src/kube/api-client.ts';
import type { CacheReader } from '../../src/kube/informers.ts';

type Obj = { metadata: { name: string; namespace?: string; resourceVersion?: string; uid?: string; generation?: number } } & Record<string, unknown>;

export interface Write {
  verb: 'create' | 'replace' | 'patch';
  path: string;
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export class InMemoryObjects implements ObjectWriter {
  private readonly objects = new Map<string, Obj>();
  private rv = 0;
  private uids = 0;
  readonly writes: Write[] = [];

  /** Puts an object as if someone else created it (no write recorded). */
  seed<T extends object>(collectionPath: string, obj: T): T {
    const o = structuredClone(obj) as unknown as Obj;
    o.metadata.resourceVersion = String(++this.rv);
    o.metadata.uid ??= `uid-${++this.uids}`;
    this.objects.set(`${collectionPath}/${o.metadata.name}`, o);
    return structuredClone(o) as unknown as T;
  }

  remove(objectPath: string): void {
    this.objects.delete(objectPath);
  }

  read<T>(objectPath: string): T | undefined {
    const o = this.objects.get(objectPath);
    return o && (structuredClone(o) as unknown as T);
  }

  /** A cache view of one collection, like an informer's (copies, so callers cannot mutate the store). */
  cache<T>(collection: (namespace: string) => string): CacheReader<T> {
    return {
      get: (namespace, name) => this.read<T>(`${collection(namespace ?? '')}/${name}`),
      list: (namespace) =>
        [...this.objects.entries()].filter(([p]) => p.startsWith(`${collection(namespace ?? '')}/`)).map(([, o]) => structuredClone(o) as unknown as T),
    };
  }

  async get<T>(path: string): Promise<T> {
    const o = this.read<T>(path);
    if (!o) throw new KubeApiError(404, 'NotFound', `${path} not found`);
    return o;
  }

  async create<T>(path: string, body: unknown): Promise<T> {
    this.writes.push({ verb: 'create', path });
    const o = structuredClone(body) as Obj;
    const key = `${path}/${o.metadata.name}`;
    if (this.objects.has(key)) throw new KubeApiError(409, 'AlreadyExists', `${key} already exists`);
    o.metadata.resourceVersion = String(++this.rv);
    o.metadata.uid = `uid-${++this.uids}`;
    o.metadata.generation = 1;
    this.objects.set(key, o);
    return structuredClone(o) as unknown as T;
  }

  async replace<T>(path: string, body: unknown): Promise<T> {
    this.writes.push({ verb: 'replace', path });
    const old = this.objects.get(path);
    if (!old) throw new KubeApiError(404, 'NotFound', `${path} not found`);
    const o = structuredClone(body) as Obj;
    if (o.metadata.resourceVersion && o.metadata.resourceVersion !== old.metadata.resourceVersion) throw new KubeApiError(409, 'Conflict', `${path} changed`);
    o.metadata.resourceVersion = String(++this.rv);
    o.metadata.uid = old.metadata.uid;
    o.metadata.generation = (old.metadata.generation ?? 1) + (JSON.stringify(o['spec']) === JSON.stringify(old['spec']) ? 0 : 1);
    this.objects.set(path, o);
    return structuredClone(o) as unknown as T;
  }

  async patch<T>(path: string, body: unknown, patchType: PatchType = 'merge'): Promise<T> {
    this.writes.push({ verb: 'patch', path });
    if (patchType !== 'merge') throw new Error(`the in-memory store speaks merge patches only, not ${patchType}`);
    const isStatus = path.endsWith('/status');
    const objectPath = isStatus ? path.slice(0, -'/status'.length) : path;
    const old = this.objects.get(objectPath);
    if (!old) throw new KubeApiError(404, 'NotFound', `${objectPath} not found`);
    const p = structuredClone(body) as { metadata?: { resourceVersion?: string } } & Record<string, unknown>;
    if (p.metadata?.resourceVersion && p.metadata.resourceVersion !== old.metadata.resourceVersion) throw new KubeApiError(409, 'Conflict', `${objectPath} changed`);
    delete p.metadata;
    // The status subresource takes only .status; the main resource ignores .status.
    const next = mergePatch(old, isStatus ? { status: p['status'] } : p) as Obj;
    if (!isStatus) next['status'] = old['status'];
    next.metadata = { ...old.metadata, resourceVersion: String(++this.rv) };
    this.objects.set(objectPath, next);
    return structuredClone(next) as unknown as T;
  }
}
