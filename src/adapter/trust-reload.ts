// Trust that follows rotation (docs/metrics-api.md §5.2): the front-proxy CA and the request-header names
// are re-read while the adapter runs, the way k8s.io/apiserver v0.34 pkg/server/dynamiccertificates does it
// (DynamicFileCAContent polls its file; ConfigMapCAController watches extension-apiserver-authentication).
// Every candidate is parsed in full before it replaces the old one; one that does not parse is logged and
// the old trust stays in force, so a half-written file or a bad edit never locks the aggregator out. The
// polling and swapping are reloader.ts's, shared with the serving certificate.
import { createHash } from 'node:crypto';
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { resourcePath } from '../kube/api-client.ts';
import type { RequestHeaderConfig } from './authn.ts';
import { Reloader, every, type RefreshOutcome } from './reloader.ts';

/** What the reloader swaps: the authenticator (RequestHeaderAuthenticator) in the running server. */
export interface ReloadTarget {
  readonly config: RequestHeaderConfig;
  /** Throws, keeping the old configuration, when `cfg` does not parse. */
  reload(cfg: RequestHeaderConfig): void;
}

type Log = Pick<Logger, 'info' | 'warn' | 'error'>;

export function fingerprint(cfg: RequestHeaderConfig): string {
  const canonical = {
    caPem: cfg.caPem,
    allowedNames: cfg.allowedNames,
    usernameHeaders: cfg.usernameHeaders,
    uidHeaders: cfg.uidHeaders,
    groupHeaders: cfg.groupHeaders,
    extraHeaderPrefixes: cfg.extraHeaderPrefixes,
    clientCaPem: cfg.clientCaPem ?? '',
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** L3: with no allowed names, any certificate the front-proxy CA signed may assert any identity. */
export function warnIfAnyNameAllowed(cfg: RequestHeaderConfig, log: Pick<Logger, 'warn'>): void {
  if (cfg.allowedNames.length === 0) {
    log.warn(
      'requestheader-allowed-names is empty: any client certificate signed by the front-proxy CA may assert any user in X-Remote-* headers; ' +
        'set it (kube-apiserver --requestheader-allowed-names) to the aggregator\'s CN, normally front-proxy-client',
    );
  }
}

/** The request-header trust on the shared Reloader: a candidate that does not parse keeps the old trust. */
export class TrustReloader {
  private readonly reloader: Reloader<RequestHeaderConfig>;

  constructor(load: () => Promise<RequestHeaderConfig>, target: ReloadTarget, log: Log) {
    this.reloader = new Reloader<RequestHeaderConfig>({
      what: 'request-header configuration',
      load,
      fingerprint,
      current: () => target.config,
      apply: (cfg) => target.reload(cfg),
      reloadedLine: (cfg, fp) => [{ fingerprint: fp.slice(0, 16), allowedNames: cfg.allowedNames }, 'request-header trust reloaded'],
      onOutcome: (outcome, cfg) => {
        if (outcome === 'reloaded' && cfg) warnIfAnyNameAllowed(cfg, log);
      },
      log,
    });
  }

  /** One check; see Reloader.refresh. */
  refresh(): Promise<RefreshOutcome> {
    return this.reloader.refresh();
  }
}

export { every };

export const AUTH_CONFIGMAP = { namespace: 'kube-system', name: 'extension-apiserver-authentication' } as const;

interface ConfigMapLike {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
}

/**
 * Keeps the latest data of kube-system/extension-apiserver-authentication: a watch scoped to that one
 * object (namespace + metadata.name field selector, which the extension-apiserver-authentication-reader
 * Role allows: get/list/watch on that resourceName), re-read and re-watched with backoff when the watch
 * ends, so an edit missed while disconnected is still seen. `onChange` runs after each new version.
 */
export class AuthConfigMapWatch {
  private data: Record<string, string>;
  private resourceVersion: string | undefined;
  private stopped = false;
  private abort: AbortController | undefined;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly kubeConfig: KubeConfig,
    initial: ConfigMapLike,
    private readonly read: () => Promise<ConfigMapLike>,
    private readonly onChange: () => void,
    private readonly log: Log,
  ) {
    this.data = initial.data ?? {};
    this.resourceVersion = initial.metadata?.resourceVersion;
  }

  current(): Record<string, string> {
    return this.data;
  }

  start(): void {
    void this.watch();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort?.abort();
  }

  private accept(cm: ConfigMapLike): void {
    const rv = cm.metadata?.resourceVersion;
    if (rv !== undefined && rv === this.resourceVersion) return;
    this.resourceVersion = rv;
    this.data = cm.data ?? {};
    this.onChange();
  }

  private async watch(): Promise<void> {
    if (this.stopped) return;
    const path = resourcePath('v1', 'configmaps', AUTH_CONFIGMAP.namespace);
    const query: Record<string, string> = { fieldSelector: `metadata.name=${AUTH_CONFIGMAP.name}`, allowWatchBookmarks: 'true' };
    if (this.resourceVersion) query['resourceVersion'] = this.resourceVersion;
    const startedAt = Date.now();
    try {
      this.abort = await new Watch(this.kubeConfig).watch(
        path,
        query,
        (type: string, obj: ConfigMapLike) => {
          if (type === 'ADDED' || type === 'MODIFIED') this.accept(obj);
          else if (type === 'BOOKMARK') this.resourceVersion = obj.metadata?.resourceVersion ?? this.resourceVersion;
          else if (type === 'DELETED') this.log.warn(`${AUTH_CONFIGMAP.namespace}/${AUTH_CONFIGMAP.name} was deleted; keeping the request-header trust in force`);
          else if (type === 'ERROR') this.resourceVersion = undefined; // 410 Gone and the like: re-read below.
        },
        (err: unknown) => this.restart(err, Date.now() - startedAt),
      );
    } catch (e) {
      this.restart(e, Date.now() - startedAt);
    }
  }

  /**
   * The watch ended or failed: re-read, then watch again. A watch that lived a while and then ended is the
   * normal case (the apiserver closes watches every few minutes; client-node's fetch gives up on a quiet
   * stream after 30 s with an error): no warning, no backoff. Only quick failures back off.
   */
  private restart(err: unknown, livedMs: number): void {
    if (this.stopped) return;
    const failed = Boolean(err) && livedMs < 5_000;
    this.failures = failed ? this.failures + 1 : 0;
    const delay = failed ? Math.min(30_000, 500 * 2 ** Math.min(this.failures, 6)) : 200;
    if (failed) this.log.warn({ err: String((err as Error)?.message ?? err), delayMs: delay }, 'watch of the request-header ConfigMap failed; retrying');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.read()
        .then((cm) => this.accept(cm))
        .catch((e: unknown) => this.log.warn({ err: String((e as Error)?.message ?? e) }, 'unable to re-read the request-header ConfigMap'))
        .finally(() => void this.watch());
    }, delay);
    this.timer.unref();
  }
}
