// Edge glue: turns parsed `serve` flags and a cluster connection into a running metrics adapter. Reads the
// request-header settings from kube-system/extension-apiserver-authentication (or the flags), and authorizes
// through SubjectAccessReviews. Fails loudly when the ConfigMap is unreadable (docs/metrics-api.md §7 G5): a server that cannot
// authenticate the aggregator would only ever answer 401/403.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { AuthorizationV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { IANAZone } from 'luxon';
import type { FlagsOf } from '../config/flags.ts';
import type { ADAPTER_FLAGS } from './flags.ts';

type AdapterFlags = FlagsOf<typeof ADAPTER_FLAGS>;
import { requestHeaderConfigFromConfigMap, type RequestHeaderConfig } from './authn.ts';
import { SubjectAccessReviewAuthorizer, type Authorizer } from './authz.ts';
import { startMetricsAdapter, type MetricsAdapterHandle } from './server.ts';
import type { AdapterSources, FallbackListener } from './providers/sources.ts';
import { dedupedFallbackListener } from './providers/fallback-reporter.ts';

const list = (v: unknown): string[] => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter((s) => s !== '') : []);

export async function loadRequestHeaderConfig(flags: AdapterFlags, kubeConfig?: KubeConfig): Promise<RequestHeaderConfig> {
  const caFile = flags['requestheader-client-ca-file'];
  const clientCaFile = flags['client-ca-file'];
  let cfg: RequestHeaderConfig;
  if (caFile) {
    cfg = {
      caPem: await readFile(caFile, 'utf8'),
      allowedNames: list(flags['requestheader-allowed-names']),
      usernameHeaders: list(flags['requestheader-username-headers']),
      uidHeaders: [],
      groupHeaders: list(flags['requestheader-group-headers']),
      extraHeaderPrefixes: list(flags['requestheader-extra-headers-prefix']),
    };
  } else {
    if (!kubeConfig) throw new Error('the metrics adapter needs --requestheader-client-ca-file or a cluster connection to read kube-system/extension-apiserver-authentication');
    const core = kubeConfig.makeApiClient(CoreV1Api);
    let data: Record<string, string>;
    try {
      data = (await core.readNamespacedConfigMap({ name: 'extension-apiserver-authentication', namespace: 'kube-system' })).data ?? {};
    } catch (e) {
      throw new Error(
        `unable to read configmap kube-system/extension-apiserver-authentication (${(e as Error).message}); ` +
          'bind the Role extension-apiserver-authentication-reader in kube-system to this ServiceAccount',
      );
    }
    cfg = requestHeaderConfigFromConfigMap(data);
  }
  if (clientCaFile) cfg.clientCaPem = await readFile(clientCaFile, 'utf8');
  return cfg;
}

export interface AdapterDeps {
  kubeConfig?: KubeConfig;
  sources: AdapterSources;
  registry: Registry;
  logger: Logger;
  now?: () => number;
  onPredictionFallback?: FallbackListener;
  ready?: () => boolean;
  /** Tests and embedders may decide authorization themselves; default: SubjectAccessReviews. */
  authorizer?: Authorizer;
}

export async function startAdapterFromFlags(flags: AdapterFlags, deps: AdapterDeps): Promise<MetricsAdapterHandle> {
  const requestHeader = await loadRequestHeaderConfig(flags, deps.kubeConfig);
  let authorizer = deps.authorizer;
  if (!authorizer) {
    if (!deps.kubeConfig) throw new Error('the metrics adapter needs a cluster connection for SubjectAccessReviews');
    authorizer = new SubjectAccessReviewAuthorizer(deps.kubeConfig.makeApiClient(AuthorizationV1Api));
  }
  const remoteUrl = flags['remote-adapter'];
  const tokenFile = flags['remote-adapter-token-file'];
  const caFile = flags['remote-adapter-ca-file'];
  const str = (k: 'cron-local-timezone' | 'tls-cert-file' | 'tls-private-key-file' | 'adapter-service-name' | 'adapter-service-namespace') => flags[k];
  const localZone = str('cron-local-timezone') ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
  if (!IANAZone.isValidZone(localZone)) throw new Error(`--cron-local-timezone: unknown time zone "${localZone}"`);
  return startMetricsAdapter(
    {
      securePort: flags['secure-port'],
      bindAddress: flags['bind-address'],
      ...(str('tls-cert-file') ? { tlsCertFile: str('tls-cert-file') } : {}),
      ...(str('tls-private-key-file') ? { tlsKeyFile: str('tls-private-key-file') } : {}),
      certDir: flags['cert-dir'],
      ...(str('adapter-service-name') ? { serviceName: str('adapter-service-name') } : {}),
      ...(str('adapter-service-namespace') ? { serviceNamespace: str('adapter-service-namespace') } : {}),
      predictionFallback: flags['prediction-fallback'] as 'observed' | 'error',
      ...(remoteUrl
        ? {
            remoteAdapter: {
              url: remoteUrl,
              ...(tokenFile && existsSync(tokenFile) ? { tokenFile } : {}),
              ...(caFile ? { caFile } : {}),
              insecure: flags['remote-adapter-insecure'],
              timeoutMs: 10_000,
            },
          }
        : {}),
      requestHeader,
      authorizer,
      authzCacheTtlMs: flags['authorization-cache-ttl'],
      now: deps.now ?? Date.now,
      localZone,
      // Logged, and passed on at most once per EHPA and reason every 5 minutes (the HPA asks every 15 s).
      onPredictionFallback: dedupedFallbackListener(
        (e) => {
          deps.logger.warn({ namespace: e.namespace, name: e.ehpaName, reason: e.reason, outcome: e.outcome }, e.message);
          deps.onPredictionFallback?.(e);
        },
        { intervalMs: 300_000, now: deps.now ?? Date.now },
      ),
      ...(deps.ready ? { ready: deps.ready } : {}),
      exposePrometheus: true,
    },
    deps.sources,
    deps.registry,
    deps.logger,
  );
}
