// Edge glue: turns parsed `serve` flags and a cluster connection into a running metrics adapter. Reads the
// request-header settings from kube-system/extension-apiserver-authentication (or the flags), keeps them
// current while running (ConfigMap watch, CA files and the serving pair polled every TRUST_POLL_MS:
// trust-reload.ts, reloader.ts), and
// authorizes through SubjectAccessReviews. Fails loudly when the ConfigMap is unreadable at start
// (docs/metrics-api.md §7 G5): a server that cannot authenticate the aggregator would only ever answer 401/403.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { IANAZone } from 'luxon';
import { UsageError, type FlagsOf } from '../config/flags.ts';
import type { ADAPTER_FLAGS } from './flags.ts';

type AdapterFlags = FlagsOf<typeof ADAPTER_FLAGS>;
import { requestHeaderConfigFromConfigMap, type RequestHeaderConfig } from './authn.ts';
import { AUTH_CONFIGMAP, AuthConfigMapWatch, TrustReloader, every } from './trust-reload.ts';
import { SubjectAccessReviewAuthorizer, type Authorizer } from './authz.ts';
import { KubeApiClient } from '../kube/api-client.ts';
import { startMetricsAdapter, type MetricsAdapterHandle } from './server.ts';
import { REMOTE_MAX_BODY_BYTES } from './remote-adapter.ts';
import type { AdapterSources, FallbackListener } from './providers/sources.ts';
import { dedupedFallbackListener } from './providers/fallback-reporter.ts';
import type { PromqlCostBounds } from '../prometheus/promql-cost.ts';

const list = (v: unknown): string[] => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter((s) => s !== '') : []);

/** How often the CA files are re-read (k8s.io/apiserver's DynamicFileCAContent re-reads every minute and on fsnotify). */
export const TRUST_POLL_MS = 10_000;

async function fromFlagFiles(flags: AdapterFlags, caFile: string): Promise<RequestHeaderConfig> {
  return {
    caPem: await readFile(caFile, 'utf8'),
    allowedNames: list(flags['requestheader-allowed-names']),
    usernameHeaders: list(flags['requestheader-username-headers']),
    uidHeaders: [],
    groupHeaders: list(flags['requestheader-group-headers']),
    extraHeaderPrefixes: list(flags['requestheader-extra-headers-prefix']),
  };
}

async function withClientCaFile(cfg: RequestHeaderConfig, flags: AdapterFlags): Promise<RequestHeaderConfig> {
  const clientCaFile = flags['client-ca-file'];
  return clientCaFile ? { ...cfg, clientCaPem: await readFile(clientCaFile, 'utf8') } : cfg;
}

interface ConfigMapObject {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
}

/** Where the request-header trust comes from: its value now, how to read it again, and what to watch. */
interface TrustSource {
  initial: RequestHeaderConfig;
  load(): Promise<RequestHeaderConfig>;
  /** The ConfigMap watch, when the trust comes from the cluster. */
  configMap?: (onChange: () => void, log: Logger) => AuthConfigMapWatch;
}

async function openTrustSource(flags: AdapterFlags, kubeConfig?: KubeConfig): Promise<TrustSource> {
  const caFile = flags['requestheader-client-ca-file'];
  if (caFile) {
    const load = async () => withClientCaFile(await fromFlagFiles(flags, caFile), flags);
    return { initial: await load(), load };
  }
  if (!kubeConfig) throw new Error('the metrics adapter needs --requestheader-client-ca-file or a cluster connection to read kube-system/extension-apiserver-authentication');
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const read = async (): Promise<ConfigMapObject> => (await core.readNamespacedConfigMap(AUTH_CONFIGMAP)) as ConfigMapObject;
  let cm: ConfigMapObject;
  try {
    cm = await read();
  } catch (e) {
    throw new Error(
      `unable to read configmap kube-system/extension-apiserver-authentication (${(e as Error).message}); ` +
        'bind the Role extension-apiserver-authentication-reader in kube-system to this ServiceAccount',
    );
  }
  let watch: AuthConfigMapWatch | undefined;
  const load = async () => withClientCaFile(requestHeaderConfigFromConfigMap(watch ? watch.current() : (cm.data ?? {})), flags);
  return {
    initial: await load(),
    load,
    configMap: (onChange, log) => (watch = new AuthConfigMapWatch(kubeConfig, cm, read, onChange, log)),
  };
}

export async function loadRequestHeaderConfig(flags: AdapterFlags, kubeConfig?: KubeConfig): Promise<RequestHeaderConfig> {
  return (await openTrustSource(flags, kubeConfig)).initial;
}

/**
 * The remote adapter's URL from either flag shape: ours (`--remote-adapter=https://…`) or Crane's metric-adapter
 * (`--remote-adapter=true --remote-adapter-service-namespace=ns --remote-adapter-service-name=n
 * [--remote-adapter-service-port=6443]`, which Crane turns into https://<name>.<namespace>.svc:<port>,
 * gocrane/crane pkg/metricprovider/remote.go). `false` or unset: no remote adapter. Crane also skips the
 * certificate check there; we do not, unless --remote-adapter-insecure says so.
 */
export function remoteAdapterUrl(flags: Pick<AdapterFlags, 'remote-adapter' | 'remote-adapter-service-namespace' | 'remote-adapter-service-name' | 'remote-adapter-service-port'>): string | undefined {
  const v = flags['remote-adapter'];
  const ns = flags['remote-adapter-service-namespace'];
  const name = flags['remote-adapter-service-name'];
  if (v === undefined || v === '' || v === 'false') return undefined;
  if (v === 'true') {
    if (!ns || !name) throw new UsageError('--remote-adapter=true needs --remote-adapter-service-namespace and --remote-adapter-service-name');
    return `https://${name}.${ns}.svc:${flags['remote-adapter-service-port']}`;
  }
  if (ns || name) throw new UsageError('--remote-adapter is a URL here: give either the URL or --remote-adapter=true with the --remote-adapter-service-* flags');
  return v;
}

export interface AdapterDeps {
  kubeConfig?: KubeConfig;
  sources: AdapterSources;
  registry: Registry;
  logger: Logger;
  now?: () => number;
  onPredictionFallback?: FallbackListener;
  /** Cost bounds of user PromQL in the observed fallback (serve's --user-promql-max-range and friends). */
  promqlBounds?: PromqlCostBounds;
  ready?: () => boolean;
  /** Tests and embedders may decide authorization themselves; default: SubjectAccessReviews. */
  authorizer?: Authorizer;
  /** How often CA files and the serving certificate files are re-read (default TRUST_POLL_MS). */
  trustPollMs?: number;
}

/** The zone `timezone: Local` means: --cron-local-timezone, else the process zone, else UTC. */
export function resolveLocalZone(flag: string | undefined): string {
  const localZone = flag ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
  if (!IANAZone.isValidZone(localZone)) throw new Error(`--cron-local-timezone: unknown time zone "${localZone}"`);
  return localZone;
}

export async function startAdapterFromFlags(flags: AdapterFlags, deps: AdapterDeps): Promise<MetricsAdapterHandle> {
  const trustSource = await openTrustSource(flags, deps.kubeConfig);
  const requestHeader = trustSource.initial;
  let authorizer = deps.authorizer;
  if (!authorizer) {
    if (!deps.kubeConfig) throw new Error('the metrics adapter needs a cluster connection for SubjectAccessReviews');
    // Its own client, not rate-limited: a review answers a request in flight and must not queue behind the
    // controllers' writes (the Go library's delegated authorizer has its own client too).
    authorizer = new SubjectAccessReviewAuthorizer(new KubeApiClient(deps.kubeConfig, 'ehpa-adapter'));
  }
  const remoteUrl = remoteAdapterUrl(flags);
  const tokenFile = flags['remote-adapter-token-file'];
  const caFile = flags['remote-adapter-ca-file'];
  const str = (k: 'cron-local-timezone' | 'tls-cert-file' | 'tls-private-key-file' | 'adapter-service-name' | 'adapter-service-namespace') => flags[k];
  const localZone = resolveLocalZone(str('cron-local-timezone'));
  const handle = await startMetricsAdapter(
    {
      securePort: flags['secure-port'],
      bindAddress: flags['bind-address'],
      ...(str('tls-cert-file') ? { tlsCertFile: str('tls-cert-file') } : {}),
      ...(str('tls-private-key-file') ? { tlsKeyFile: str('tls-private-key-file') } : {}),
      certDir: flags['cert-dir'],
      ...(str('adapter-service-name') ? { serviceName: str('adapter-service-name') } : {}),
      ...(str('adapter-service-namespace') ? { serviceNamespace: str('adapter-service-namespace') } : {}),
      // 'unavailable' is the name that says what it does; 'error' stays accepted (the old name).
      predictionFallback: flags['prediction-fallback'] === 'observed' ? 'observed' : 'error',
      ...(remoteUrl
        ? {
            remoteAdapter: {
              url: remoteUrl,
              ...(tokenFile && existsSync(tokenFile) ? { tokenFile } : {}),
              ...(caFile ? { caFile } : {}),
              insecure: flags['remote-adapter-insecure'],
              maxBodyBytes: REMOTE_MAX_BODY_BYTES,
              timeoutMs: 10_000,
            },
          }
        : {}),
      requestHeader,
      authorizer,
      authzCacheTtlMs: flags['authorization-cache-ttl'],
      limits: { maxConnections: flags['max-connections'], maxUntrustedConnections: flags['max-untrusted-connections'] },
      now: deps.now ?? Date.now,
      localZone,
      cronSemantics: flags['cron-semantics'],
      // Logged, and passed on at most once per EHPA and reason every 5 minutes (the HPA asks every 15 s).
      onPredictionFallback: dedupedFallbackListener(
        (e) => {
          deps.logger.warn({ namespace: e.namespace, name: e.ehpaName, reason: e.reason, outcome: e.outcome }, e.message);
          deps.onPredictionFallback?.(e);
        },
        { intervalMs: 300_000, now: deps.now ?? Date.now },
      ),
      ...(deps.ready ? { ready: deps.ready } : {}),
      ...(deps.promqlBounds ? { promqlBounds: deps.promqlBounds } : {}),
      exposePrometheus: true,
    },
    deps.sources,
    deps.registry,
    deps.logger,
  );
  // M3: the trust follows rotation. Files are polled (also the --client-ca-file beside a ConfigMap); the
  // ConfigMap is watched and each new version checked at once.
  // The serving pair from --tls-cert-file/--tls-private-key-file is polled on the same beat (cert-manager
  // and kubelet rotate it in place; a generated pair has no files to follow).
  const reloader = new TrustReloader(() => trustSource.load(), handle.trust, deps.logger);
  const refreshServing = handle.refreshServingCert;
  const poll = every(deps.trustPollMs ?? TRUST_POLL_MS, async () => {
    await reloader.refresh();
    await refreshServing?.();
  });
  const watch = trustSource.configMap?.(() => void reloader.refresh(), deps.logger);
  watch?.start();
  return {
    ...handle,
    close: async () => {
      poll.stop();
      watch?.stop();
      await handle.close();
    },
  };
}
