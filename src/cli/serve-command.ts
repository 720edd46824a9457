// `ehpa-adapter serve`: the long-running process. It serves the operations endpoint and runs the
// controllers (EHPA, TimeSeriesPrediction) on one shared set of informer caches; the metrics adapter and
// the recommender loop start from here as they land.
import type { LevelWithSilent } from 'pino';
import type { Command } from './command.ts';
import { LOG_LEVELS, createLogger } from '../observability/logger.ts';
import { createMetricsRegistry } from '../observability/metrics-registry.ts';
import { startHealthServer, type ReadinessCheck } from '../observability/health-server.ts';
import { CONTROLLER_FLAGS, KUBE_FLAGS, clusterConfigured, createKubeContext, parseControllerList, startControllers, type RunningControllers } from './serve-controllers.ts';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the controllers, the VPA recommender and the metrics adapter',
  flags: [
    { name: 'metrics-port', type: 'int', default: 8080, min: 0, max: 65535, help: 'plain-HTTP port for /metrics, /healthz, /readyz (0 picks a free port)' },
    { name: 'metrics-bind-address', type: 'string', default: '0.0.0.0', help: 'address the operations port listens on' },
    { name: 'log-level', type: 'enum', values: LOG_LEVELS, default: 'info', help: 'log level' },
    ...KUBE_FLAGS,
    ...CONTROLLER_FLAGS,
  ],
  async run(flags, io) {
    const log = createLogger(flags['log-level'] as LevelWithSilent, io.stderr);
    const registry = createMetricsRegistry();
    const readiness = new Map<string, ReadinessCheck>();
    // Bad flag values are the user's mistake: fail before anything starts.
    const controllerNames = parseControllerList(flags['controllers'] as string);
    let controllers: RunningControllers | undefined;
    if (controllerNames.length > 0) {
      if (clusterConfigured(flags)) {
        const ctx = createKubeContext(flags, log);
        controllers = startControllers({ flags, ctx, log, registry });
        readiness.set('controllers', () => controllers?.readiness() ?? { ok: false });
      } else {
        log.error('no Kubernetes cluster configured (--kubeconfig, $KUBECONFIG, ~/.kube/config or in-cluster): controllers not started');
        readiness.set('controllers', () => ({ ok: false, reason: 'no Kubernetes cluster configured' }));
      }
    }
    const health = await startHealthServer({
      port: flags['metrics-port'] as number,
      host: flags['metrics-bind-address'] as string,
      registry,
      readiness,
    });
    log.info({ port: health.port }, 'operations endpoint listening');
    const signal = await io.stopSignal;
    log.info({ signal }, 'shutting down');
    await controllers?.stop();
    await health.close();
    return 0;
  },
};
