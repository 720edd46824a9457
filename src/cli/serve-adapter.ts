// The metrics adapter's part of `ehpa-adapter serve`: binds the adapter's narrow `AdapterSources` to the
// process' shared informer caches (no extra watches), observed usage to Prometheus, and prediction
// fallbacks to Events on the EHPA. The adapter serves on every replica; only the controllers are
// leader-elected. It also reports who holds the metrics APIServices (apiservice-watch.ts).
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { FlagSpec, FlagsOf } from '../config/flags.ts';
import { prometheusOptionsFromFlags, promqlCostBoundsFromFlags, type PROMETHEUS_FLAGS, type TENANT_PROMQL_FLAGS } from '../prometheus/flags.ts';
import { ADAPTER_FLAGS } from '../adapter/flags.ts';
import { remoteAdapterUrl, resolveLocalZone, startAdapterFromFlags } from '../adapter/start-from-flags.ts';
import { watchApiServiceClaims } from '../adapter/apiservice-watch.ts';
import { registerCraneExporter } from '../adapter/crane-exporter.ts';
import type { MetricsAdapterHandle } from '../adapter/server.ts';
import type { AdapterSources } from '../adapter/providers/sources.ts';
import { cachedObservedUsage } from '../adapter/observed-cache.ts';
import { clusterReads } from './cluster-reads.ts';
import { EventRecorder } from '../kube/event-recorder.ts';
import { PrometheusClient } from '../prometheus/client.ts';
import { EHPA_GROUP, EHPA_KIND, EHPA_VERSION } from '../api/ehpa.ts';
import type { KubeContext } from './serve-controllers.ts';

export const SERVE_ADAPTER_FLAGS = [
  { name: 'adapter', type: 'bool', default: true, help: 'serve custom.metrics.k8s.io and external.metrics.k8s.io on --secure-port' },
  {
    name: 'crane-exporter', type: 'bool', default: true,
    help: 'export craned\'s series on /metrics for prometheus-adapter (manifests/components/prometheus-adapter): crane_autoscaling_cron per EHPA with crons, crane_autoscaling_prediction and crane_prediction_tsp for every TimeSeriesPrediction (at most 10,000 target/resourceIdentifier pairs, shared fairly between namespaces); with --adapter=false this is how the HPA gets them',
  },
  ...ADAPTER_FLAGS,
] as const satisfies readonly FlagSpec[];

/**
 * Observed-fallback queries of one namespace that may wait beyond --prometheus-max-concurrency-per-namespace;
 * more are answered 503 at once. With each answer kept for OBSERVED_REFRESH_MS, a namespace needs one query
 * per predicted metric in fallback every 15 s; 8 waiting behind 2 running wait at most four queries' time
 * (four 10 s timeouts at worst), about what an HPA request is worth waiting for.
 */
const OBSERVED_QUEUE_PER_NAMESPACE = 8;

export async function startAdapterInServe(o: {
  flags: FlagsOf<typeof SERVE_ADAPTER_FLAGS> & FlagsOf<typeof PROMETHEUS_FLAGS> & FlagsOf<typeof TENANT_PROMQL_FLAGS>;
  ctx: KubeContext;
  log: Logger;
  registry: Registry;
  now?: () => number;
}): Promise<MetricsAdapterHandle & { cachesSynced(): boolean }> {
  const now = o.now ?? Date.now;
  const reads = clusterReads(o.ctx);
  // The fallback answers an HPA request: a short timeout, whatever --prometheus-timeout says for history. Each
  // namespace's queries share its own few slots, so one namespace's requests cannot hold the client.
  const promOptions = prometheusOptionsFromFlags(o.flags, {
    timeoutMs: 10_000,
    maxConcurrencyPerNamespace: o.flags['prometheus-max-concurrency-per-namespace'],
    maxQueuedPerNamespace: OBSERVED_QUEUE_PER_NAMESPACE,
    // Ten seconds saved up: one query at the fallback's timeout, so a namespace that has been quiet can
    // always run its slowest allowed query once.
    namespaceTime: { share: o.flags['prometheus-namespace-time-share'], burstMs: 10_000 },
  });
  const observed = promOptions ? cachedObservedUsage(new PrometheusClient(promOptions), now) : undefined;
  const sources: AdapterSources = {
    getEhpa: reads.getEhpa,
    listEhpas: reads.listEhpas,
    listTsps: reads.listTsps,
    listPods: reads.listPods,
    getScaleReplicas: reads.getScaleReplicas,
    observedPodCpuMillis: (ns, pods) => (observed ? observed.observedPodCpuMillis(ns, pods) : new Map()),
    observedQueryTotal: (ns, promql) => (observed?.observedQueryTotal ? observed.observedQueryTotal(ns, promql) : undefined),
  };
  const events = new EventRecorder(o.ctx.client, 'ehpa-adapter-metrics', o.log, now);
  // Ready once the caches the adapter answers from are filled; a slow or forbidden cache of another loop
  // (the VPA recommender's eviction events, say) must not take the metrics APIs out of the Service.
  const handle = await startAdapterFromFlags(o.flags, {
    kubeConfig: o.ctx.client.kubeConfig,
    sources,
    registry: o.registry,
    logger: o.log,
    now,
    ready: reads.synced,
    promqlBounds: promqlCostBoundsFromFlags(o.flags),
    onPredictionFallback(e) {
      const ehpa = reads.getEhpa(e.namespace, e.ehpaName);
      const what = e.outcome === 'observed' ? 'serving observed usage instead' : 'no value served';
      events.event(
        {
          apiVersion: `${EHPA_GROUP}/${EHPA_VERSION}`,
          kind: EHPA_KIND,
          metadata: { name: e.ehpaName, namespace: e.namespace, ...(ehpa?.metadata.uid ? { uid: ehpa.metadata.uid } : {}) },
        },
        'Warning',
        e.reason,
        `${e.metric}: ${e.message}; ${what}`,
      );
    },
  });
  // Beside KEDA, prometheus-adapter or Crane: say who holds each APIService we would serve (never written here).
  const service = o.flags['adapter-service-name'];
  const serviceNamespace = o.flags['adapter-service-namespace'];
  const remoteUrl = remoteAdapterUrl(o.flags);
  const claims = watchApiServiceClaims({
    client: o.ctx.client,
    self: { ...(service ? { name: service } : {}), ...(serviceNamespace ? { namespace: serviceNamespace } : {}) },
    ...(remoteUrl ? { remoteUrl } : {}),
    registry: o.registry,
    log: o.log,
  });
  void claims.check().catch((e: unknown) => o.log.warn({ err: String((e as Error)?.message ?? e) }, 'checking the metrics APIServices failed'));
  const close = handle.close;
  return Object.assign(handle, {
    cachesSynced: reads.synced,
    close: async () => {
      claims.stop();
      await close();
    },
  });
}

/**
 * Exporter mode: craned's series on the operations port's /metrics, computed on scrape from the shared
 * caches (registers the EHPA, TSP and pod informers if no other loop has; the caller starts them). The cron
 * gauges go into `registry`; the TSP series, which carry their own timestamps, come back as text for the
 * health server to append.
 */
export function registerCraneExporterInServe(o: {
  flags: FlagsOf<typeof SERVE_ADAPTER_FLAGS>;
  ctx: KubeContext;
  registry: Registry;
  now?: () => number;
}): { text(): Promise<string> } {
  const reads = clusterReads(o.ctx);
  return registerCraneExporter(o.registry, {
    sources: reads,
    localZone: resolveLocalZone(o.flags['cron-local-timezone']),
    semantics: o.flags['cron-semantics'],
    now: o.now ?? Date.now,
    ready: reads.synced,
  });
}
