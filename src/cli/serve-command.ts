// `ehpa-adapter serve`: the long-running process. Today it serves the operations endpoint; the
// controllers, the recommender loop and the metrics adapter start from here as they land.
import type { LevelWithSilent } from 'pino';
import type { Command } from './command.ts';
import { LOG_LEVELS, createLogger } from '../observability/logger.ts';
import { createMetricsRegistry } from '../observability/metrics-registry.ts';
import { startHealthServer } from '../observability/health-server.ts';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the controllers, the VPA recommender and the metrics adapter',
  flags: [
    { name: 'metrics-port', type: 'int', default: 8080, min: 0, max: 65535, help: 'plain-HTTP port for /metrics, /healthz, /readyz (0 picks a free port)' },
    { name: 'metrics-bind-address', type: 'string', default: '0.0.0.0', help: 'address the operations port listens on' },
    { name: 'log-level', type: 'enum', values: LOG_LEVELS, default: 'info', help: 'log level' },
  ],
  async run(flags, io) {
    const log = createLogger(flags['log-level'] as LevelWithSilent, io.stderr);
    const registry = createMetricsRegistry();
    const health = await startHealthServer({
      port: flags['metrics-port'] as number,
      host: flags['metrics-bind-address'] as string,
      registry,
    });
    log.info({ port: health.port }, 'operations endpoint listening');
    const signal = await io.stopSignal;
    log.info({ signal }, 'shutting down');
    await health.close();
    return 0;
  },
};
