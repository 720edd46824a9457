// `ehpa-adapter serve`: the long-running process. It serves the operations endpoint, the metrics adapter
// (every replica) and the leader-elected controllers, all on one shared set of informer caches.
import type { LevelWithSilent } from 'pino';
import { defineCommand } from './command.ts';
import { UsageError } from '../config/flags.ts';
import { LOG_LEVELS, createLogger } from '../observability/logger.ts';
import { createMetricsRegistry } from '../observability/metrics-registry.ts';
import { startHealthServer, type ReadinessCheck } from '../observability/health-server.ts';
import { SERVE_ADAPTER_FLAGS, registerCraneExporterInServe, startAdapterInServe } from './serve-adapter.ts';
import type { MetricsAdapterHandle } from '../adapter/server.ts';
import { CONTROLLER_FLAGS, KUBE_FLAGS, clusterConfigured, createKubeContext, leaderElectionTiming, parseControllerList, startControllers, userPromqlPolicy, type RunningControllers } from './serve-controllers.ts';
import { prometheusOptionsFromFlags } from '../prometheus/flags.ts';
import { translateCranedArgs } from './craned-flags.ts';

export const serveCommand = defineCommand({
  name: 'serve',
  flags: [
    { name: 'metrics-port', type: 'int', default: 8080, min: 0, max: 65535, help: 'plain-HTTP port for /metrics, /healthz, /readyz (0 picks a free port)' },
    { name: 'metrics-bind-address', type: 'string', default: '0.0.0.0', help: 'address the operations port listens on' },
    { name: 'log-level', type: 'enum', values: LOG_LEVELS, default: 'info', help: 'log level' },
    ...KUBE_FLAGS,
    ...CONTROLLER_FLAGS,
    ...SERVE_ADAPTER_FLAGS,
  ],
  details: "craned's flags are accepted beside these: aliases of the flags above, ignored with a log line, or refused with a pointer (docs/crane-behaviour.md §C.8).",
  // A Deployment copied from craned's starts as it is, or stops on the one flag that cannot mean the same here.
  translateArgs: translateCranedArgs,
  async run(flags, io, notices) {
    const log = createLogger(flags['log-level'] as LevelWithSilent, io.stderr);
    for (const n of notices) log[n.level]({ cranedFlag: n.flag }, n.message);
    const registry = createMetricsRegistry();
    const readiness = new Map<string, ReadinessCheck>();
    // Bad flag values are the user's mistake: fail before anything starts.
    const controllerNames = parseControllerList(flags['controllers']);
    if (flags['leader-elect']) leaderElectionTiming(flags);
    userPromqlPolicy(flags['user-promql']);
    prometheusOptionsFromFlags(flags);
    // One connection and one set of informer caches for every loop in the process (controllers now; the
    // metrics adapter and the recommender read the same caches through ctx.informers / clusterReads).
    const ctx = clusterConfigured(flags) ? createKubeContext(flags, log) : undefined;
    let controllers: RunningControllers | undefined;
    if (controllerNames.length > 0) {
      if (ctx) {
        controllers = startControllers({ flags, ctx, log, registry });
        readiness.set('controllers', () => controllers?.readiness() ?? { ok: false });
      } else {
        log.error('no Kubernetes cluster configured (--kubeconfig, $KUBECONFIG, ~/.kube/config or in-cluster): controllers not started');
        readiness.set('controllers', () => ({ ok: false, reason: 'no Kubernetes cluster configured' }));
      }
    }
    let adapter: MetricsAdapterHandle | undefined;
    if (flags['adapter']) {
      if (!ctx) throw new UsageError('the metrics adapter needs a Kubernetes cluster (--kubeconfig, $KUBECONFIG, ~/.kube/config or in-cluster); pass --adapter=false to run without it');
      // The adapter answers from the informer caches; start them even when no controller runs here.
      const started = await startAdapterInServe({ flags, ctx, log, registry });
      adapter = started;
      ctx.informers.startAll();
      readiness.set('adapter-caches', () => (started.cachesSynced() ? { ok: true } : { ok: false, reason: 'informer caches not synced' }));
      log.info({ port: adapter.port }, 'metrics adapter listening');
    }
    const extraText: (() => Promise<string>)[] = [];
    if (flags['crane-exporter'] && ctx) {
      // Exporter mode (prometheus-adapter owns external.metrics.k8s.io): computed on scrape from the caches,
      // so they run even when neither the adapter nor any controller does (`--adapter=false --controllers=`).
      extraText.push(registerCraneExporterInServe({ flags, ctx, registry }).text);
      ctx.informers.startAll();
    }
    const health = await startHealthServer({
      port: flags['metrics-port'],
      host: flags['metrics-bind-address'],
      registry,
      readiness,
      extraText,
    });
    log.info({ port: health.port }, 'operations endpoint listening');
    const signal = await io.stopSignal;
    log.info({ signal }, 'shutting down');
    await adapter?.close();
    await controllers?.stop();
    await ctx?.informers.stopAll();
    await health.close();
    return 0;
  },
});
