// One prom-client registry per process, which every loop registers into; all our series are prefixed
// `ehpa_adapter_` so they never collide with the default process metrics or anything scraped beside us.
import { Registry, collectDefaultMetrics } from 'prom-client';

export const METRIC_PREFIX = 'ehpa_adapter_';

export function createMetricsRegistry(opts: { defaultMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return registry;
}
