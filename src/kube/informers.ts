// Shared informer caches: one list+watch per kind for the whole process, so the controllers and the
// adapter read the same cache instead of asking the API server. A watch that fails is restarted with
// backoff from its last resourceVersion; a 410 Gone makes client-node sync the whole kind again. A sync is
// one streaming list (listByWatch: the objects as watch events from kube-apiserver's watch cache) where the
// server allows it, else a list in pages (like client-go's reflector with its pager). Every object passes
// the kind's cache transform (cache-transforms.ts) before it is cached or handed to a handler, so neither
// one response nor the cache holds whole objects of every pod.
import { ListWatch, Watch, type Informer, type KubernetesListObject, type KubernetesObject, type ObjectCache } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { KubeApiError, resourcePath, type KubeApiClient } from './api-client.ts';
import { cacheTransformFor, type CacheTransform } from './cache-transforms.ts';
import type { KindRef } from '../api/meta.ts';

/** Items per list page: client-go's reflector default (k8s.io/client-go v0.34 tools/cache/reflector.go). */
export const LIST_PAGE_SIZE = 500;

type ListPage = KubernetesListObject<KubernetesObject> & { metadata?: { resourceVersion?: string; continue?: string } };

export interface PagedListOptions {
  fieldSelector?: string;
  pageSize?: number;
  transform?: CacheTransform;
  /** Fresh starts after an expired continue token before giving up (the informer's backoff retries). */
  maxRestarts?: number;
}

/**
 * Lists a collection `pageSize` items at a time, following `metadata.continue`, transforming each page's
 * items before the next page is read. The result carries the last page's resourceVersion (every page of
 * one list is served at the first page's snapshot), which is where the watch resumes. A continue token
 * that expired (410 Gone: the snapshot was compacted away while we paged) restarts the list from its first
 * page. client-go's pager falls back to one unpaginated list there (k8s.io/client-go v0.34
 * tools/pager/pager.go, FullListIfExpired); restarting in pages keeps every response bounded instead.
 */
export async function listInPages(
  get: (path: string, query: Record<string, string | number | undefined>) => Promise<ListPage>,
  path: string,
  o: PagedListOptions = {},
): Promise<ListPage> {
  const pageSize = o.pageSize ?? LIST_PAGE_SIZE;
  const transform = o.transform ?? ((x) => x);
  let restarts = 0;
  let items: KubernetesObject[] = [];
  let cont: string | undefined;
  for (;;) {
    let page: ListPage;
    try {
      page = await get(path, { limit: pageSize, continue: cont, fieldSelector: o.fieldSelector });
    } catch (e) {
      const expired = e instanceof KubeApiError && e.status === 410 && cont !== undefined;
      if (!expired || restarts >= (o.maxRestarts ?? 3)) throw e;
      restarts++;
      items = [];
      cont = undefined;
      continue;
    }
    // Lists omit each item's apiVersion/kind; readers of the cache should not have to care.
    const [apiVersion, kindName] = [page.apiVersion, page.kind?.replace(/List$/, '')];
    for (const item of page.items ?? []) {
      item.apiVersion ??= apiVersion;
      item.kind ??= kindName;
      items.push(transform(item as unknown as Record<string, unknown>) as unknown as KubernetesObject);
    }
    cont = page.metadata?.continue || undefined;
    if (!cont) return { apiVersion: page.apiVersion, kind: page.kind, metadata: { resourceVersion: page.metadata?.resourceVersion }, items };
  }
}

/** The annotation on the bookmark that ends a streaming list's initial events (KEP-3157, k8s.io/apimachinery
 *  pkg/apis/meta/v1 InitialEventsAnnotationKey). */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** A streaming list the API server refused or does not speak: the informer lists in pages from then on. */
export class WatchListUnsupportedError extends Error {
  override name = 'WatchListUnsupportedError';
}

type WatchFn = Watch['watch'];

/**
 * The collection's current state through one watch with `sendInitialEvents=true` (a "streaming list",
 * KEP-3157; served on by default from Kubernetes 1.34): kube-apiserver sends every object as an ADDED event
 * from its watch cache, then a bookmark annotated k8s.io/initial-events-end whose resourceVersion is where
 * the informer's watch goes on. Unlike LIST pages, nothing is read from etcd and no response holds more than
 * one object; after a kube-apiserver restart (whose watch cache answers 410 to any older resourceVersion)
 * this is how every informer gets back in one request instead of hundreds of pages. client-go's reflector
 * does the same when its WatchListClient feature is on (k8s.io/client-go v0.34 tools/cache/reflector.go,
 * watchList).
 *
 * Refused (400/403/422: the server's WatchList gate off), or a stream that goes `idleMs` without an event
 * (a server that ignores the parameter sends no end bookmark): WatchListUnsupportedError.
 */
export function listByWatch(watch: { watch: WatchFn }, path: string, o: { fieldSelector?: string; idleMs?: number } = {}): Promise<ListPage> {
  const idleMs = o.idleMs ?? 60_000;
  return new Promise<ListPage>((resolve, reject) => {
    const items: KubernetesObject[] = [];
    let settled = false;
    let ac: AbortController | undefined;
    let idle: NodeJS.Timeout | undefined;
    const finish = (err: unknown, page?: ListPage) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      ac?.abort();
      if (err === undefined) resolve(page!);
      else reject(err);
    };
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(new WatchListUnsupportedError(`${path}: no initial-events-end bookmark after ${idleMs} ms without events`)), idleMs);
    };
    armIdle();
    const query = { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, fieldSelector: o.fieldSelector };
    watch
      .watch(path, query, (phase, obj) => {
        if (settled) return;
        armIdle();
        const o = obj as KubernetesObject & { code?: number; message?: string; reason?: string };
        if (phase === 'ADDED') items.push(o);
        else if (phase === 'BOOKMARK' && o.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') {
          finish(undefined, { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: o.metadata.resourceVersion }, items });
        } else if (phase === 'ERROR') finish(new KubeApiError(o.code ?? 500, o.reason ?? '', `${path}: streaming list: ${o.code ?? ''} ${o.message ?? ''}`));
        // MODIFIED and DELETED come only after the end bookmark; other bookmarks carry nothing to keep.
      }, (err) => {
        const status = (err as { statusCode?: number } | null)?.statusCode;
        if (status === 400 || status === 403 || status === 422) finish(new WatchListUnsupportedError(`${path}: streaming list refused: ${status}`));
        else finish(err ?? new Error(`${path}: the watch ended before its initial events did`));
      })
      .then((c) => {
        ac = c;
        if (settled) c.abort();
      }, (err: unknown) => finish(err));
  });
}

/** client-node's Watch with the cache transform applied to every object event (not to ERROR/BOOKMARK). */
class TransformingWatch extends Watch {
  constructor(
    config: Watch['config'],
    private readonly transform: CacheTransform,
    /** Called on every event the watch delivers (objects and bookmarks): the watch is up. */
    private readonly onEvent: () => void = () => undefined,
  ) {
    super(config);
  }

  override watch(
    path: string,
    queryParams: Parameters<Watch['watch']>[1],
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    const objectEvent = (phase: string) => phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED';
    // Bookmarks, as client-go's reflector always asks for them: the API server sends the current
    // resourceVersion now and then, so a watch on a quiet kind that ends (timeout, API server restart)
    // resumes from a recent version instead of one etcd may have compacted away (410 Gone: a full relist of
    // every object of the kind, at scale a storm).
    return super.watch(path, { ...queryParams, allowWatchBookmarks: true }, (phase, obj, raw) => {
      if (phase !== 'ERROR') this.onEvent();
      callback(phase, objectEvent(phase) ? this.transform(obj as Record<string, unknown>) : obj, raw);
    }, done);
  }
}

export type Handler<T> = (obj: T) => void;
/** Removes the handler it was returned for; calling it again does nothing. */
export type Unsubscribe = () => void;

/** Any API object as plain JSON (times stay strings, unlike client-node's typed models). */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; deletionTimestamp?: string };
}

/** The read side of an informer cache, all a reconciler needs (unit tests pass plain maps). */
export interface CacheReader<T> {
  get(namespace: string | undefined, name: string): T | undefined;
  list(namespace?: string): readonly T[];
}

export class SharedInformer<T extends KubeObject> implements CacheReader<T> {
  private readonly informer: Informer<KubernetesObject> & ObjectCache<KubernetesObject>;
  private synced = false;
  private stopped = true;
  private failures = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly retryBaseMs: number;
  private readonly syncWaiters: (() => void)[] = [];
  /** Full syncs of the cache so far (the first one, and one after each 410 Gone), by how they were read. */
  readonly syncs = { watchList: 0, pages: 0 };

  constructor(
    readonly kind: KindRef,
    client: Pick<KubeApiClient, 'get' | 'kubeConfig'>,
    private readonly log: Logger,
    o: {
      transform?: CacheTransform;
      pageSize?: number;
      retryBaseMs?: number;
      /** Sync by streaming list (listByWatch) while the server allows it (default); false lists in pages. */
      watchList?: boolean;
      watchListIdleMs?: number;
    } = {},
  ) {
    this.retryBaseMs = o.retryBaseMs ?? 250;
    const path = resourcePath(kind.apiVersion, kind.plural);
    const transform = o.transform ?? cacheTransformFor(kind);
    // The backoff starts over once a watch delivers an event (an object or a bookmark), not when a restart
    // begins: client-node's 'connect' fires before the list or watch is even sent, so resetting there kept
    // the delay at its first step while a restarted kube-apiserver answered 429 until its watch cache
    // was ready (seen at 10,000 EHPAs: pods, EHPAs and TSPs retried every 500 ms for 40 s).
    const watch = new TransformingWatch(client.kubeConfig, transform, () => {
      this.failures = 0;
    });
    let streaming = o.watchList ?? true;
    // client-node's ListWatch calls this for its first sync and whenever its watch answered 410 Gone.
    const list = async (): Promise<ListPage> => {
      if (streaming) {
        try {
          const page = await listByWatch(watch, path, { fieldSelector: kind.fieldSelector, idleMs: o.watchListIdleMs });
          this.syncs.watchList++;
          return page;
        } catch (e) {
          if (!(e instanceof WatchListUnsupportedError)) throw e;
          streaming = false;
          this.log.info({ kind: kind.plural, reason: e.message }, 'kube-apiserver does not stream lists; listing in pages');
        }
      }
      const page = await listInPages((p, query) => client.get<ListPage>(p, query), path, { fieldSelector: kind.fieldSelector, pageSize: o.pageSize, transform });
      this.syncs.pages++;
      return page;
    };
    this.informer = new ListWatch<KubernetesObject>(path, watch, list, false, undefined, kind.fieldSelector);
    this.informer.on('error', (err: unknown) => this.onError(err));
  }

  private onError(err: unknown): void {
    if (this.stopped) return;
    this.failures++;
    const delay = Math.min(30_000, this.retryBaseMs * 2 ** Math.min(this.failures, 7));
    this.log.warn({ kind: this.kind.plural, err: String((err as Error)?.message ?? err), delayMs: delay }, 'watch failed; restarting');
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.run(), delay);
  }

  private async run(): Promise<void> {
    if (this.stopped) return;
    let failed = false;
    const onErr = () => {
      failed = true;
    };
    this.informer.on('error', onErr);
    try {
      await this.informer.start();
    } finally {
      this.informer.off('error', onErr);
    }
    if (!failed && !this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.informer.stop();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list has landed in the cache. */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.informer.get(name, namespace) as T | undefined;
  }

  list(namespace?: string): readonly T[] {
    return this.informer.list(namespace) as unknown as readonly T[];
  }

  // Each subscription returns its unsubscribe. The informers live as long as the process, the controllers
  // subscribed to them only as long as a leadership term: a handler left behind keeps its term's reconciler
  // (at 10,000 EHPAs, hundreds of MiB of cached forecasts) and queues work into a stopped runner for ever.
  onAdd(h: Handler<T>): Unsubscribe {
    return this.subscribe('add', h);
  }
  onUpdate(h: Handler<T>): Unsubscribe {
    return this.subscribe('update', h);
  }
  onDelete(h: Handler<T>): Unsubscribe {
    return this.subscribe('delete', h);
  }
  onChange(h: Handler<T>): Unsubscribe {
    return this.subscribe('change', h);
  }

  /** Handlers subscribed now, all events together (tests: nothing left behind by a stopped controller). */
  subscriptions(): number {
    return this.subscribed;
  }

  private subscribed = 0;

  private subscribe(verb: 'add' | 'update' | 'delete' | 'change', h: Handler<T>): Unsubscribe {
    const cb = h as unknown as Handler<KubernetesObject>;
    this.informer.on(verb, cb);
    this.subscribed++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.informer.off(verb, cb);
      this.subscribed--;
    };
  }
}

/** The process' informers, one per kind; asking twice for a kind returns the same informer. */
export class InformerRegistry {
  private readonly informers = new Map<string, SharedInformer<KubeObject>>();
  private started = false;

  constructor(
    private readonly client: KubeApiClient,
    private readonly log: Logger,
  ) {}

  informer<T extends KubeObject>(kind: KindRef): SharedInformer<T> {
    const key = `${kind.apiVersion}/${kind.plural}?${kind.fieldSelector ?? ''}`;
    let inf = this.informers.get(key);
    if (!inf) {
      inf = new SharedInformer<KubeObject>(kind, this.client, this.log);
      this.informers.set(key, inf);
      // A loop that registers after start-up still gets a running cache.
      if (this.started) inf.start();
    }
    return inf as unknown as SharedInformer<T>;
  }

  /** Every informer's full syncs so far, by resource (`<plural>[.<group>]`, as the request metric names it). */
  syncCounts(): { resource: string; watchList: number; pages: number }[] {
    return [...this.informers.values()].map((i) => {
      const group = i.kind.apiVersion.includes('/') ? `.${i.kind.apiVersion.split('/')[0]}` : '';
      return { resource: `${i.kind.plural}${group}`, ...i.syncs };
    });
  }

  startAll(): void {
    this.started = true;
    for (const inf of this.informers.values()) inf.start();
  }

  /** Resolves once every required (not `optional`) informer has its first list. */
  async waitForSync(): Promise<void> {
    await Promise.all(this.required().map((i) => i.waitForSync()));
  }

  allSynced(): boolean {
    return this.required().every((i) => i.hasSynced());
  }

  private required(): SharedInformer<KubeObject>[] {
    return [...this.informers.values()].filter((i) => !i.kind.optional);
  }

  async stopAll(): Promise<void> {
    this.started = false;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
