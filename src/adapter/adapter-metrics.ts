// The adapter's own Prometheus series, registered into the process registry (all prefixed ehpa_adapter_).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../observability/metrics-registry.ts';

export interface AdapterMetrics {
  requests: Counter<'metric' | 'code'>;
  latency: Histogram<'metric' | 'code'>;
  authzCache: Counter<'result'>;
  fallbacks: Counter<'metric' | 'reason' | 'outcome'>;
  droppedConnections: Counter;
  evictedConnections: Counter;
  connections: Counter<'protocol'>;
  servingCertReloads: Counter<'outcome'>;
  servingCertExpiry: Gauge;
}

export function createAdapterMetrics(registry: Registry): AdapterMetrics {
  const registers = [registry];
  return {
    requests: new Counter({
      name: `${METRIC_PREFIX}metrics_api_requests_total`,
      help: 'Requests to the custom/external metrics API by metric (or route for non-metric paths) and HTTP code',
      labelNames: ['metric', 'code'],
      registers,
    }),
    latency: new Histogram({
      name: `${METRIC_PREFIX}metrics_api_request_duration_seconds`,
      help: 'Time to answer a metrics API request, by metric and HTTP code',
      labelNames: ['metric', 'code'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    authzCache: new Counter({
      name: `${METRIC_PREFIX}authz_cache_lookups_total`,
      help: 'SubjectAccessReview cache lookups by result: hit, miss, or shared (joined an identical review already in flight)',
      labelNames: ['result'],
      registers,
    }),
    fallbacks: new Counter({
      name: `${METRIC_PREFIX}prediction_fallbacks_total`,
      help: 'Answers where the forecast was not served, by metric, reason and outcome (observed usage served, error, or stepped-aside: 0 served so the HPA scales on its other metrics)',
      labelNames: ['metric', 'reason', 'outcome'],
      registers,
    }),
    droppedConnections: new Counter({
      name: `${METRIC_PREFIX}metrics_api_dropped_connections_total`,
      help: 'TLS connections to the metrics API with a trusted client certificate closed after the handshake because --max-connections such connections were open',
      registers,
    }),
    evictedConnections: new Counter({
      name: `${METRIC_PREFIX}metrics_api_evicted_connections_total`,
      help: 'Sockets without a trusted client certificate closed, oldest first, to make room for a new one when --max-untrusted-connections were open',
      registers,
    }),
    connections: new Counter({
      name: `${METRIC_PREFIX}metrics_api_connections_total`,
      help: 'TLS connections to the metrics API by the protocol negotiated (h2, http/1.1); kube-apiserver keeps one h2 connection, so a steady climb means clients that reconnect',
      labelNames: ['protocol'],
      registers,
    }),
    servingCertReloads: new Counter({
      name: `${METRIC_PREFIX}serving_certificate_reloads_total`,
      help: 'Checks of --tls-cert-file/--tls-private-key-file that found a pair other than the one in force, by outcome: reloaded (swapped in for new connections) or rejected (unreadable, not a matching pair, or expired: the pair in force stays; counted at every check until the files are fixed)',
      labelNames: ['outcome'],
      registers,
    }),
    servingCertExpiry: new Gauge({
      name: `${METRIC_PREFIX}serving_certificate_expiry_timestamp_seconds`,
      help: 'Unix time at which the serving certificate in force expires',
      registers,
    }),
  };
}
