// startMetricsAdapter: the HTTPS server behind the custom/external metrics APIServices. HTTP/2 with HTTP/1.1
// for clients that do not offer it (docs/metrics-api.md §6.3): kube-apiserver's proxy negotiates h2 and
// then sends every HPA's request over one connection, where with HTTP/1.1 it opens one more connection (a
// TLS handshake on both sides) for each request in flight at once, so a moment of slowness used to turn into
// dozens of handshakes on the serving thread. Client certificates are requested but verified per
// connection by the authenticator; idle connections are kept long so pooled Go connections never race our
// idle timeout; everything else is bounded: handshake, headers and whole-request deadlines, streams per
// connection and a connection cap, so a slow or flooding client holds a bounded share of the process
// (SERVER_LIMITS).
import { constants as http2Constants, createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { createSecureContext, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { RequestHeaderAuthenticator, type RequestHeaderConfig } from './authn.ts';
import { gateConnections } from './connection-gate.ts';
import { warnIfAnyNameAllowed, type ReloadTarget } from './trust-reload.ts';
import { CachingAuthorizer, type Authorizer } from './authz.ts';
import { createAdapterMetrics } from './adapter-metrics.ts';
import { createMetricsApiHandler } from './metrics-api-handler.ts';
import { leafInfo, loadOrCreateServingCert, readServingFiles, serviceDnsNames, servingPairProblem } from './serving-cert.ts';
import { Reloader, type RefreshOutcome } from './reloader.ts';
import { createRemoteAdapter, type RemoteAdapterOptions } from './remote-adapter.ts';
import { podCpuProvider } from './providers/pod-cpu-provider.ts';
import { cronProvider } from './providers/cron-provider.ts';
import type { CronSemantics } from '../metric-values/cron-replicas.ts';
import { predictionProvider } from './providers/prediction-provider.ts';
import { legacyExternalPredictionProvider, legacyPodsPredictionProvider } from './providers/legacy-prediction-provider.ts';
import type { AdapterSources, FallbackListener } from './providers/sources.ts';
import type { PromqlCostBounds } from '../prometheus/promql-cost.ts';

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
  /** Crane generation whose cron rules the cron metric follows (--cron-semantics; default 'v0.7'). */
  cronSemantics?: CronSemantics;
  onPredictionFallback?: FallbackListener;
  /** Cost bounds of the observed fallback's user PromQL (default DEFAULT_PROMQL_COST_BOUNDS). */
  promqlBounds?: PromqlCostBounds;
  ready?: () => boolean;
  /** Serve GET /metrics (after authorization) from this registry. */
  exposePrometheus?: boolean;
  /** Overrides of SERVER_LIMITS (--max-connections sets maxConnections; tests shorten the timeouts). */
  limits?: Partial<ServerLimits>;
}

/**
 * Time and count bounds of the HTTPS server. keepAliveTimeout stays above the 90 s IdleConnTimeout of
 * Go's net/http DefaultTransport, so an idle pooled connection is normally closed by the client first.
 * Node starts the headers/request clocks only when a new request's first byte arrives, so these shorter
 * bounds do not cut idle kept-alive connections.
 */
export interface ServerLimits {
  handshakeTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Concurrent connections with a verified client certificate (--max-connections; connection-gate.ts). */
  maxConnections: number;
  /** Sockets without one, handshaking or not; a new one past this closes the oldest (--max-untrusted-connections). */
  maxUntrustedConnections: number;
  /** Requests in flight at once on one HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS). */
  maxStreamsPerConnection: number;
}

export const SERVER_LIMITS: Readonly<ServerLimits> = {
  handshakeTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 120_000,
  maxConnections: 1024,
  maxUntrustedConnections: 128,
  // Go's HTTP/2 server default (golang.org/x/net/http2 defaultMaxStreams); a Go client opens another
  // connection rather than queue past it.
  maxStreamsPerConnection: 250,
};

export interface MetricsAdapterHandle {
  port: number;
  /** The live request-header trust; a reload swaps it for new connections and re-checks open ones. */
  trust: ReloadTarget;
  /**
   * Re-reads --tls-cert-file/--tls-private-key-file and swaps a new sound pair in for new connections (open
   * ones keep the certificate they were handshaken with). Absent when the pair is generated in --cert-dir.
   */
  refreshServingCert?: () => Promise<RefreshOutcome>;
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
    // Certificate validity is wall-clock business, not the (test-movable) metrics clock.
    now: options.wallClock ?? Date.now,
    logger,
  });
  const authenticator = new RequestHeaderAuthenticator(options.requestHeader, options.wallClock ?? Date.now);
  warnIfAnyNameAllowed(options.requestHeader, logger);
  const authorizer = new CachingAuthorizer(options.authorizer, { ttlMs: options.authzCacheTtlMs, now: options.now, metrics });
  const remote = options.remoteAdapter ? createRemoteAdapter(options.remoteAdapter, logger) : undefined;
  // Every predicted metric, whatever name the HPA reads it by, falls back the same way (--prediction-fallback).
  const predicted = {
    sources, fallback: options.predictionFallback, metrics,
    ...(options.onPredictionFallback ? { onFallback: options.onPredictionFallback } : {}),
    ...(options.promqlBounds ? { promqlBounds: options.promqlBounds } : {}),
  };
  const handle = createMetricsApiHandler({
    authenticate: (req) => authenticator.authenticate(req),
    authorizer,
    custom: [podCpuProvider(predicted), legacyPodsPredictionProvider(predicted)],
    external: [cronProvider({ sources, localZone: options.localZone, ...(options.cronSemantics ? { semantics: options.cronSemantics } : {}) }), predictionProvider(predicted), legacyExternalPredictionProvider(predicted)],
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
  const limits: ServerLimits = { ...SERVER_LIMITS, ...options.limits };
  const server: Http2SecureServer = createSecureServer(
    {
      cert: serving.cert,
      key: serving.key,
      requestCert: true,
      rejectUnauthorized: false,
      allowHTTP1: true,
      handshakeTimeout: limits.handshakeTimeoutMs,
      settings: { maxConcurrentStreams: limits.maxStreamsPerConnection },
    },
    (req, res) => {
      void handle(req, res);
    },
  );
  // HTTP/1.1 connections: Node's HTTP/1 bounds, which an HTTP/2 server with allowHTTP1 applies to them.
  // connectionsCheckingInterval is how often Node checks the headers/request deadlines (its default, 30 s,
  // would let a 30 s bound become 60 s); the HTTP/2 server reads it from the instance.
  Object.assign(server, {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(limits.headersTimeoutMs / 4))),
  });
  // Idle connections of either protocol are closed after the keep-alive time; an HTTP/2 stream that sends
  // nothing for the whole-request time is cancelled (HTTP/2 has no headers clock of its own: its request
  // headers arrive in one frame, whose size nghttp2 bounds).
  server.setTimeout(limits.keepAliveTimeoutMs);
  server.on('stream', (stream) => stream.setTimeout(limits.requestTimeoutMs, () => stream.close(http2Constants.NGHTTP2_CANCEL)));
  gateConnections(server, {
    maxTrusted: limits.maxConnections,
    maxUntrusted: limits.maxUntrustedConnections,
    isTrusted: (s) => authenticator.trustsPeer(s),
    onDropped: () => metrics.droppedConnections.inc(),
    onEvicted: () => metrics.evictedConnections.inc(),
  });
  server.on('secureConnection', (s: TLSSocket) => metrics.connections.inc({ protocol: typeof s.alpnProtocol === 'string' ? s.alpnProtocol : 'http/1.1' }));
  // Http2SecureServer has no closeAllConnections: the open sockets are tracked for close().
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
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
  const refreshServingCert = serving.source === 'files' && options.tlsCertFile && options.tlsKeyFile
    ? servingCertReloader(server, serving, { certFile: options.tlsCertFile, keyFile: options.tlsKeyFile }, metrics, logger, options.wallClock ?? Date.now)
    : undefined;
  const info = leafInfo(serving.cert);
  if (info) metrics.servingCertExpiry.set(info.notAfterMs / 1000);
  return {
    port,
    trust: authenticator,
    ...(refreshServingCert ? { refreshServingCert } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        remote?.close();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/**
 * The serving pair follows its files: a candidate is checked before it is used (it parses, its key is the
 * certificate's, it has not expired, and OpenSSL builds a context from it), then swapped in with
 * setSecureContext, which only changes what new handshakes get: connections already open keep theirs, so
 * nothing in flight fails. The session-ticket keys are carried over so clients resuming a session still can.
 * A refused candidate leaves the pair in force, is logged once and counted (outcome "rejected").
 */
function servingCertReloader(
  server: Http2SecureServer,
  initial: { cert: string; key: string },
  files: { certFile: string; keyFile: string },
  metrics: ReturnType<typeof createAdapterMetrics>,
  logger: Logger,
  wallClock: () => number,
): () => Promise<RefreshOutcome> {
  let inForce = { cert: initial.cert, key: initial.key };
  const reloader = new Reloader<{ cert: string; key: string }>({
    what: `serving certificate (${files.certFile}, ${files.keyFile})`,
    load: () => readServingFiles(files.certFile, files.keyFile),
    fingerprint: (p) => `${p.cert}\n${p.key}`,
    current: () => inForce,
    apply(p) {
      const problem = servingPairProblem(p.cert, p.key, wallClock(), { certName: files.certFile, keyName: files.keyFile, renewBeforeMs: 0 });
      if (problem) throw new Error(problem);
      // Throws on what OpenSSL refuses (an unsupported key type, say) before anything is swapped.
      createSecureContext({ cert: p.cert, key: p.key });
      server.setSecureContext({ cert: p.cert, key: p.key, ticketKeys: server.getTicketKeys() });
      inForce = p;
    },
    reloadedLine: (p) => {
      const info = leafInfo(p.cert);
      return [{ serialNumber: info?.serialNumber, fingerprint256: info?.fingerprint256, notAfter: info ? new Date(info.notAfterMs).toISOString() : undefined }, 'serving certificate reloaded'];
    },
    onOutcome: (outcome, p) => {
      metrics.servingCertReloads.inc({ outcome: outcome === 'reloaded' ? 'reloaded' : 'rejected' });
      const info = outcome === 'reloaded' && p ? leafInfo(p.cert) : undefined;
      if (info) metrics.servingCertExpiry.set(info.notAfterMs / 1000);
    },
    log: logger,
  });
  return () => reloader.refresh();
}
