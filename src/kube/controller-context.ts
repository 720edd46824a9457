// What every control loop is set up with: the shared client and informer caches, event and status
// writers, the metrics registry, a logger and the clock. Each controller folder exports
// `setup...(context, options)` with its own typed options and returns a factory of runners, one per
// leadership term; `cli/serve-controllers.ts` picks them from a table by name.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { KubeApiClient } from './api-client.ts';
import type { ControllerMetrics } from './controller-metrics.ts';
import type { ControllerRunner } from './controller-runner.ts';
import type { ResourceDiscovery } from './discovery.ts';
import type { EventSink } from './event-recorder.ts';
import type { InformerRegistry } from './informers.ts';
import type { StatusWriter } from './status-writer.ts';

export interface ControllerContext {
  client: KubeApiClient;
  informers: InformerRegistry;
  discovery: ResourceDiscovery;
  events: EventSink;
  status: StatusWriter;
  metrics: ControllerMetrics;
  registry: Registry;
  log: Logger;
  now?: () => number;
}

/** Builds a fresh runner for each leadership term (a new leader starts from the caches, not an old queue). */
export type RunnerFactory = () => ControllerRunner;
