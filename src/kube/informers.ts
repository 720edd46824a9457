// Shared informer caches: one list+watch per kind for the whole process, so the controllers and the
// adapter read the same cache instead of asking the API server. A watch that fails is restarted with
// backoff; a 410 Gone makes client-node relist on its own.
import { ListWatch, Watch, type Informer, type KubernetesListObject, type KubernetesObject, type ObjectCache } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { resourcePath, type KubeApiClient } from './api-client.ts';
import type { KindRef } from '../api/meta.ts';


export type Handler<T> = (obj: T) => void;

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
  private readonly syncWaiters: (() => void)[] = [];

  constructor(
    readonly kind: KindRef,
    client: KubeApiClient,
    private readonly log: Logger,
  ) {
    const path = resourcePath(kind.apiVersion, kind.plural);
    const listPath = kind.fieldSelector === undefined ? path : `${path}?fieldSelector=${encodeURIComponent(kind.fieldSelector)}`;
    const list = async () => {
      const l = await client.get<KubernetesListObject<KubernetesObject>>(listPath);
      // Lists omit each item's apiVersion/kind; readers of the cache should not have to care.
      const [apiVersion, kindName] = [l.apiVersion, l.kind?.replace(/List$/, '')];
      for (const item of l.items) {
        item.apiVersion ??= apiVersion;
        item.kind ??= kindName;
      }
      return l;
    };
    this.informer = new ListWatch<KubernetesObject>(path, new Watch(client.kubeConfig), list, false, undefined, kind.fieldSelector);
    this.informer.on('error', (err: unknown) => this.onError(err));
    this.informer.on('connect', () => {
      this.failures = 0;
    });
  }

  private onError(err: unknown): void {
    if (this.stopped) return;
    this.failures++;
    const delay = Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
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

  onAdd(h: Handler<T>): void {
    this.informer.on('add', h as unknown as Handler<KubernetesObject>);
  }
  onUpdate(h: Handler<T>): void {
    this.informer.on('update', h as unknown as Handler<KubernetesObject>);
  }
  onDelete(h: Handler<T>): void {
    this.informer.on('delete', h as unknown as Handler<KubernetesObject>);
  }
  onChange(h: Handler<T>): void {
    this.informer.on('change', h as unknown as Handler<KubernetesObject>);
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
