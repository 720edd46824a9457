// startMetricsAdapter: the HTTPS server behind the custom/external metrics APIServices. HTTP/1.1 only
// (docs/metrics-api.md §6.3: Go negotiates h2 only if offered), client certificates requested but verified
// per request by the authenticator, long keep-alive so pooled Go connections never race Node's idle timeout.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { RequestHeaderAuthenticator, type RequestHeaderConfig } from './authn.ts';
import { CachingAuthorizer, type Authorizer } from './authz.ts';
import { createAdapterMetrics } from './adapter-metrics.ts';
import { createMetricsApiHandler } from './metrics-api-handler.ts';
import { loadOrCreateServingCert, serviceDnsNames } from './serving-cert.ts';
import { createRemoteAdapter, type RemoteAdapterOptions } from './remote-adapter.ts';
import { podCpuProvider } from './providers/pod-cpu-provider.ts';
import { cronProvider } from './providers/cron-provider.ts';
import { predictionProvider } from './providers/prediction-provider.ts';
import type { AdapterSources, FallbackListener } from './providers/sources.ts';

export interface MetricsAdapterOptions {
  securePort: number;
  bindAddress: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  certDir: string;
  /** Service name/namespace for the generated certificate's SANs. */
  serviceName?: string;
  serviceNamespace?: string;
  predictionFallback: 'observed' | 'error';
  remoteAdapter?: RemoteAdapterOptions;
  requestHeader: RequestHeaderConfig;
  /** Decides non-masters requests (production: SubjectAccessReviewAuthorizer); cached here. */
  authorizer: Authorizer;
  authzCacheTtlMs: number;
  now: () => number;
  /** Wall clock for certificate validity (defaults to Date.now), separate from `now`, which tests move. */
  wallClock?: () => number;
  /** IANA zone meant by a cron's `timezone: Local`. */
  localZone: string;
  onPredictionFallback?: FallbackListener;
  ready?: () => boolean;
  /** Serve GET /metrics (after authorization) from this registry. */
  exposePrometheus?: boolean;
}

export interface MetricsAdapterHandle {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsAdapter(
  options: MetricsAdapterOptions,
  sources: AdapterSources,
  registry: Registry,
  logger: Logger,
): Promise<MetricsAdapterHandle> {
  const metrics = createAdapterMetrics(registry);
  const serving = await loadOrCreateServingCert({
    ...(options.tlsCertFile ? { certFile: options.tlsCertFile } : {}),
    ...(options.tlsKeyFile ? { keyFile: options.tlsKeyFile } : {}),
    certDir: options.certDir,
    dnsNames: serviceDnsNames(options.serviceName, options.serviceNamespace),
    now: options.now,
  });
  const authenticator = new RequestHeaderAuthenticator(options.requestHeader, options.wallClock ?? Date.now);
  const authorizer = new CachingAuthorizer(options.authorizer, { ttlMs: options.authzCacheTtlMs, now: options.now, metrics });
  const remote = options.remoteAdapter ? createRemoteAdapter(options.remoteAdapter) : undefined;
  const handle = createMetricsApiHandler({
    authenticate: (req) => authenticator.authenticate(req),
    authorizer,
    custom: [podCpuProvider({ sources, fallback: options.predictionFallback, metrics, ...(options.onPredictionFallback ? { onFallback: options.onPredictionFallback } : {}) })],
    external: [cronProvider({ sources, localZone: options.localZone }), predictionProvider({ sources, metrics })],
    ...(remote ? { remote } : {}),
    metrics,
    now: options.now,
    logger,
    ...(options.exposePrometheus ? { promText: async () => ({ contentType: registry.contentType, body: await registry.metrics() }) } : {}),
    ...(options.ready ? { ready: options.ready } : {}),
  });

  // No `ca` here on purpose: the authenticator verifies chains itself against the request-header CA. Handing
  // OpenSSL the CA too made it check look-alike certificates (same issuer name, other key) during the
  // handshake and leave the failure on its error queue, where it later broke unrelated reads on that
  // connection ("socket hang up" under load, found by the fuzz test). Go clients send their certificate
  // whatever CA names we advertise (docs/metrics-api.md §6.2).
  // The handler routes by the apiserver's own path grammar (request-info.ts) and writes every answer itself,
  // so it sits directly on node:https. express (still used for the operations port) re-prototypes every
  // req/res (Object.setPrototypeOf), which pushes Node's own HTTP write path off V8's fast paths: with it in
  // front, `npm run bench -- adapter` served about half the requests per second (BENCHMARKS.md).
  const server: Server = createServer({ cert: serving.cert, key: serving.key, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.on('tlsClientError', (err) => logger.debug({ err }, 'TLS handshake failed'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.securePort, options.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, certificate: serving.source }, 'metrics adapter listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        remote?.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
