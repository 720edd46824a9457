// The controllers' part of `ehpa-adapter serve`: their flags (a separate array that serve concatenates,
// so the adapter can add its own), the shared Kubernetes context (client + informer caches, which the
// adapter reuses), and start/stop with Lease leader election.
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { UsageError, type FlagSpec, type FlagsOf } from '../config/flags.ts';
import { PROMETHEUS_FLAGS, TENANT_PROMQL_FLAGS, prometheusOptionsFromFlags, promqlCostBoundsFromFlags } from '../prometheus/flags.ts';
import { parseUserPromqlFlag, type UserPromqlPolicy } from '../prometheus/promql-confine.ts';
import { KubeApiClient, loadKubeConfig } from '../kube/api-client.ts';
import { ResourceDiscovery } from '../kube/discovery.ts';
import { InformerRegistry } from '../kube/informers.ts';
import { EventRecorder } from '../kube/event-recorder.ts';
import { StatusWriter } from '../kube/status-writer.ts';
import { TenantPacer } from '../kube/tenant-pacer.ts';
import { LeaderElector, electionTimingProblem, termFencedClient, type ElectionTiming } from '../kube/leader-election.ts';
import { formatDurationMs } from '../config/duration.ts';
import { registerControllerMetrics } from '../kube/controller-metrics.ts';
import type { ControllerRunner } from '../kube/controller-runner.ts';
import type { ControllerContext, RunnerFactory } from '../kube/controller-context.ts';
import { setupEhpaController } from '../ehpa/setup.ts';
import { HPA_SHAPES } from '../ehpa/desired-hpa.ts';
import { MANAGED_BY } from '../ehpa/naming.ts';
import { commaList } from '../ehpa/propagation.ts';
import { PrometheusError, PrometheusClient } from '../prometheus/client.ts';
import type { HistoryProvider } from '../prometheus/series.ts';
import { setupTspController } from '../prediction/controller/setup.ts';
import { ForecastPool } from '../prediction/worker/forecast-pool.ts';
import { PooledForecaster } from '../prediction/worker/pooled-forecaster.ts';
import type { Forecaster } from '../prediction/controller/forecaster.ts';
import { VPA_RECOMMENDER_FLAGS, vpaRecommenderOptionsFromFlags } from '../vpa/routines/recommender-flags.ts';
import { setupVpaRecommender } from '../vpa/routines/recommender-controller.ts';

export const CONTROLLER_NAMES = ['ehpa', 'tsp', 'vpa-recommender'] as const;

export const KUBE_FLAGS = [
  { name: 'kubeconfig', type: 'string', default: undefined, help: 'kubeconfig file (default: in-cluster config, else $KUBECONFIG or ~/.kube/config)' },
  // Crane's craned defaults (--api-qps 300, --api-burst 400), so a drop-in replacement loads the API server no more.
  { name: 'kube-api-qps', type: 'float', default: 300, min: 0, help: 'client-side limit of requests per second to kube-apiserver, watches excluded (0: none)' },
  { name: 'kube-api-burst', type: 'int', default: 400, min: 1, help: 'requests allowed at once above --kube-api-qps' },
] as const satisfies readonly FlagSpec[];

export const CONTROLLER_FLAGS = [
  { name: 'controllers', type: 'string', default: 'ehpa,tsp', help: `comma-separated controllers to run (${CONTROLLER_NAMES.join(', ')}); empty runs none` },
  ...PROMETHEUS_FLAGS,
  { name: 'leader-elect', type: 'bool', default: true, help: 'run the controllers only on the replica holding the Lease' },
  { name: 'leader-election-namespace', type: 'string', default: undefined, help: "namespace of the Lease (default: this pod's namespace, else kube-system)" },
  { name: 'leader-election-id', type: 'string', default: 'ehpa-adapter-controllers', help: 'name of the Lease' },
  { name: 'leader-election-identity', type: 'string', default: undefined, help: 'identity written into the Lease (default: hostname plus a random suffix)' },
  { name: 'leader-election-lease-duration', type: 'duration', default: '15s', help: 'how long a Lease is valid without renewal' },
  { name: 'leader-election-renew-deadline', type: 'duration', default: '10s', help: 'the leader steps down when it cannot renew for this long' },
  { name: 'leader-election-retry-period', type: 'duration', default: '2s', help: 'interval between acquire/renew attempts' },
  { name: 'ehpa-workers', type: 'int', default: 4, min: 1, help: 'concurrent EHPA reconciles' },
  { name: 'ehpa-resync-period', type: 'duration', default: '5m', help: 'periodic re-check of every EHPA (target replicas, pod requests)' },
  { name: 'preview-resync-period', type: 'duration', default: '15s', help: 'how often a Preview EHPA pulls its Substitute back to the real replicas' },
  {
    name: 'hpa-shape',
    type: 'enum',
    values: HPA_SHAPES,
    default: 'v0.7',
    help: "metric names of the backing HPA: v0.7 (predicted CPU as the Pods metric crane_pod_cpu_usage, Pods/External predictions as crane_custom.pods_<name>/crane_external_<name>; needs this adapter on custom.metrics.k8s.io) or head (Crane v0.8+: every prediction the External crane_autoscaling_prediction, so another adapter can keep custom.metrics.k8s.io); switching rewrites existing HPAs",
  },
  { name: 'ehpa-propagation-label-prefixes', type: 'string', default: '', help: 'comma-separated prefixes of EHPA labels copied to the backing HPA' },
  { name: 'ehpa-propagation-labels', type: 'string', default: '', help: 'comma-separated EHPA label keys copied to the backing HPA' },
  { name: 'ehpa-propagation-annotation-prefixes', type: 'string', default: '', help: 'comma-separated prefixes of EHPA annotations copied to the backing HPA' },
  { name: 'ehpa-propagation-annotations', type: 'string', default: '', help: 'comma-separated EHPA annotation keys copied to the backing HPA' },
  { name: 'tsp-workers', type: 'int', default: 10, min: 1, help: 'concurrent TimeSeriesPrediction reconciles' },
  { name: 'tsp-workers-per-namespace', type: 'int', default: 2, min: 1, help: "concurrent TimeSeriesPrediction reconciles of one namespace; its others wait without holding a worker, so one tenant's history reads and fits never occupy every worker" },
  { name: 'prediction-update-frequency', type: 'duration', default: '30s', help: 'how often each TimeSeriesPrediction is checked for freshness' },
  { name: 'model-update-interval', type: 'duration', default: '12h', help: 'a forecast is rebuilt from fresh history at this age, each TSP a little earlier (0.8 to 1 times it, fixed per TSP) so that refits never line up' },
  { name: 'prediction-pays', type: 'enum', values: ['enforce', 'observe'], default: 'enforce', help: "what auto mode does with its verdict on whether a forecast pays (condition PredictionPays): enforce steps aside where it does not (the metric reads 0, so the HPA scales on its other metrics as a plain one), observe only reports it and serves the forecast anyway, to watch before trusting it" },
  { name: 'prediction-accept-extra-cost', type: 'float', default: 0, min: 0, max: 10, help: "auto mode steps aside (the metric reads 0: a plain HPA) when its forecast costs more than a plain HPA that is as short, by more than this share, on a replay of its own history; annotation prediction.ehpa-adapter.io/accept-extra-cost overrides it per EHPA or TSP" },
  { name: 'forecast-workers', type: 'int', default: 0, min: 0, help: 'worker threads that fit forecasts off the event loop (0: one less than the CPUs available, at least 1)' },
  {
    name: 'user-promql',
    type: 'string',
    default: 'namespaced',
    help: "PromQL users write (TSP expressionQuery, EHPA metric-query annotations): namespaced (confined to the object's namespace), unrestricted, unrestricted=<ns>,<ns> (only those namespaces unconfined), or off",
  },
  ...TENANT_PROMQL_FLAGS,
  { name: 'tenant-status-bytes-per-second', type: 'int', default: 65536, min: 0, help: "bytes of TimeSeriesPrediction status one namespace may have written per second, sustained; over it, its next write waits (0: no pacing)" },
  { name: 'tenant-status-burst-bytes', type: 'int', default: 262144, min: 1, help: 'bytes of TimeSeriesPrediction status one namespace may have written at once before --tenant-status-bytes-per-second applies' },
  { name: 'forecast-worker-heap', type: 'int', default: 256, min: 16, help: "MiB of V8 heap each forecast worker may use; a fit that needs more ends its worker and fails its TimeSeriesPrediction alone, not the process" },
  { name: 'forecast-fit-budget', type: 'duration', default: '20s', min: 1, help: "longest one series' fit may run; past it the fit's worker is replaced and its TimeSeriesPrediction reports the overrun" },
  ...VPA_RECOMMENDER_FLAGS,
] as const satisfies readonly FlagSpec[];

type KubeFlags = FlagsOf<typeof KUBE_FLAGS>;
type ControllerFlags = FlagsOf<typeof CONTROLLER_FLAGS>;

/** The process' connection to Kubernetes: one client and one set of informer caches for every loop. */
export interface KubeContext {
  client: KubeApiClient;
  informers: InformerRegistry;
  discovery: ResourceDiscovery;
}

/** True when some kubeconfig source exists; otherwise serve runs without cluster-facing loops. */
export function clusterConfigured(flags: KubeFlags): boolean {
  if (flags['kubeconfig']) return true;
  if (process.env['KUBERNETES_SERVICE_HOST']) return true;
  if (process.env['KUBECONFIG']) return true;
  return existsSync(join(homedir(), '.kube', 'config'));
}

export function createKubeContext(flags: KubeFlags, log: Logger): KubeContext {
  const kc = loadKubeConfig(flags['kubeconfig']);
  const client = new KubeApiClient(kc, 'ehpa-adapter', { qps: flags['kube-api-qps'], burst: flags['kube-api-burst'] });
  return { client, informers: new InformerRegistry(client, log), discovery: new ResourceDiscovery(client) };
}

export function parseControllerList(text: string): string[] {
  const names = text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  for (const n of names) {
    if (!(CONTROLLER_NAMES as readonly string[]).includes(n)) throw new UsageError(`unknown controller "${n}" in --controllers (known: ${CONTROLLER_NAMES.join(', ')})`);
  }
  return names;
}

function leaseNamespace(flags: ControllerFlags): string {
  const given = flags['leader-election-namespace'];
  if (given) return given;
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim() || 'kube-system';
  } catch {
    return 'kube-system';
  }
}

const TIMING_FLAGS: Record<keyof ElectionTiming, 'leader-election-lease-duration' | 'leader-election-renew-deadline' | 'leader-election-retry-period'> = {
  leaseDurationMs: 'leader-election-lease-duration',
  renewDeadlineMs: 'leader-election-renew-deadline',
  retryPeriodMs: 'leader-election-retry-period',
};

/** The Lease timing from the flags, cross-checked as client-go's NewLeaderElector does; a UsageError (exit 2) if not. */
/** --user-promql as a policy; a bad value is a UsageError (exit 2). */
export function userPromqlPolicy(text: string): UserPromqlPolicy {
  try {
    return parseUserPromqlFlag(text);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function leaderElectionTiming(flags: ControllerFlags): ElectionTiming {
  const t: ElectionTiming = {
    leaseDurationMs: flags['leader-election-lease-duration'],
    renewDeadlineMs: flags['leader-election-renew-deadline'],
    retryPeriodMs: flags['leader-election-retry-period'],
  };
  const problem = electionTimingProblem(t, (f) => `--${TIMING_FLAGS[f]} (${formatDurationMs(t[f])})`);
  if (problem) throw new UsageError(problem);
  return t;
}

type ControllerName = (typeof CONTROLLER_NAMES)[number];

class MissingPrometheus implements HistoryProvider {
  queryRange(): Promise<never> {
    return Promise.reject(new PrometheusError('no --prometheus-url configured'));
  }
}

/** How each controller is set up from the flags: one row per name in --controllers. */
const CONTROLLER_SETUPS: Record<ControllerName, (ctx: ControllerContext, flags: ControllerFlags, o: StartControllersOptions) => RunnerFactory> = {
  ehpa: (ctx, flags) =>
    setupEhpaController(ctx, {
      workers: flags['ehpa-workers'],
      resyncMs: flags['ehpa-resync-period'],
      previewResyncMs: flags['preview-resync-period'],
      hpaShape: flags['hpa-shape'],
      propagation: {
        labelPrefixes: commaList(flags['ehpa-propagation-label-prefixes']),
        labels: commaList(flags['ehpa-propagation-labels']),
        annotationPrefixes: commaList(flags['ehpa-propagation-annotation-prefixes']),
        annotations: commaList(flags['ehpa-propagation-annotations']),
      },
    }),
  tsp: (ctx, flags, o) => {
    const promOptions = prometheusOptionsFromFlags(flags);
    if (!promOptions) ctx.log.warn('no --prometheus-url: TimeSeriesPredictions will report PredictFailed');
    if (promOptions?.credentials?.insecureSkipVerify) ctx.log.warn("--prometheus-insecure-skip-verify: Prometheus' TLS certificate is NOT verified; anyone on the path can read the credentials sent");
    return setupTspController(ctx, {
      workers: flags['tsp-workers'],
      workersPerNamespace: flags['tsp-workers-per-namespace'],
      updateFrequencyMs: flags['prediction-update-frequency'],
      modelUpdateIntervalMs: flags['model-update-interval'],
      acceptExtraCost: flags['prediction-accept-extra-cost'],
      enforcePays: flags['prediction-pays'] === 'enforce',
      history: promOptions ? new PrometheusClient(promOptions) : new MissingPrometheus(),
      // Fits run in worker threads: this event loop also serves the metrics API and renews the Lease.
      userPromql: { ...userPromqlPolicy(flags['user-promql']), bounds: promqlCostBoundsFromFlags(flags) },
      pacer: new TenantPacer({ bytesPerSecond: flags['tenant-status-bytes-per-second'], burstBytes: flags['tenant-status-burst-bytes'] }, ctx.now ?? Date.now),
      forecaster: o.forecaster ?? new PooledForecaster(new ForecastPool({ size: flags['forecast-workers'] || Math.max(1, availableParallelism() - 1), budgetMs: flags['forecast-fit-budget'], heapLimitMb: flags['forecast-worker-heap'] })),
    });
  },
  'vpa-recommender': (ctx, flags) => setupVpaRecommender(ctx, vpaRecommenderOptionsFromFlags(flags)),
};

export interface RunningControllers {
  /** For /readyz: caches synced (every replica) and, on the leader, controllers running. */
  readiness(): { ok: boolean; reason?: string };
  isLeader(): boolean;
  stop(): Promise<void>;
}

export interface StartControllersOptions {
  flags: ControllerFlags;
  ctx: KubeContext;
  log: Logger;
  registry: Registry;
  /** Overrides for tests and the demo. */
  forecaster?: Forecaster;
  now?: () => number;
}

/** Registers informers, starts them, and runs the selected controllers (under leader election if asked). */
export function startControllers(o: StartControllersOptions): RunningControllers {
  const { flags, ctx, log } = o;
  const names = parseControllerList(flags['controllers']);
  const timing = flags['leader-elect'] ? leaderElectionTiming(flags) : undefined;
  const metrics = registerControllerMetrics(o.registry, ctx.client, ctx.informers);
  // Fencing: everything the controllers send (reads, writes, events, status) goes through a client bound to
  // the current leadership term's signal, which the elector aborts the instant the term ends (renew deadline
  // passed, even with a renewal still pending). From then on a request not yet sent is refused and one in
  // flight has its socket destroyed, so reconciles still unwinding write nothing: no "finish the in-flight
  // work" window in which a deposed leader overlaps the new one. Until the first term, nothing is allowed.
  // Informers, discovery and the adapter keep the shared unfenced client (they serve every replica).
  let term: AbortSignal = AbortSignal.abort(new Error('not leading'));
  const client = termFencedClient(ctx.client, () => term);
  const events = new EventRecorder(client, MANAGED_BY, log);
  const status = new StatusWriter(client);
  const context: ControllerContext = {
    client,
    informers: ctx.informers,
    discovery: ctx.discovery,
    events,
    status,
    metrics,
    registry: o.registry,
    log,
    ...(o.now ? { now: o.now } : {}),
  };
  // Flags become each controller's typed options here; the controllers never see the flag bag.
  const makers = names.map((name) => CONTROLLER_SETUPS[name as ControllerName](context, flags, o));

  ctx.informers.startAll();
  const shutdown = new AbortController();
  let running: ControllerRunner[] = [];
  let leading = false;

  // Runs the controllers until `stop` fires. Runners are built fresh per term: a new leader starts from
  // the caches, not from a previous term's queue.
  const lead = async (stop: AbortSignal) => {
    term = stop;
    await Promise.race([ctx.informers.waitForSync(), new Promise((r) => stop.addEventListener('abort', r, { once: true }))]);
    if (stop.aborted) return;
    leading = true;
    metrics.setLeader(true);
    running = makers.map((m) => m());
    for (const r of running) r.start();
    log.info({ controllers: names }, 'controllers started');
    await new Promise((r) => (stop.aborted ? r(undefined) : stop.addEventListener('abort', r, { once: true })));
    leading = false;
    metrics.setLeader(false);
    // Stop handing out work; in-flight reconciles unwind at once, their requests refused or aborted (above).
    await Promise.all(running.map((r) => r.stop()));
    running = [];
    log.info('controllers stopped');
  };

  let elector: LeaderElector | undefined;
  let done: Promise<void>;
  if (names.length === 0) done = Promise.resolve();
  else if (timing) {
    elector = new LeaderElector({
      // The elector renews through ctx.client.withoutLimiter(): own connections, no shared rate limit.
      client: ctx.client,
      namespace: leaseNamespace(flags),
      name: flags['leader-election-id'],
      identity: (flags['leader-election-identity']) ?? `${hostname()}_${randomBytes(4).toString('hex')}`,
      ...timing,
      log,
    });
    done = elector.run(shutdown.signal, lead);
  } else {
    done = lead(shutdown.signal);
  }

  return {
    readiness: () => (ctx.informers.allSynced() ? { ok: true } : { ok: false, reason: 'informer caches not synced' }),
    isLeader: () => leading,
    async stop() {
      shutdown.abort();
      await done;
      await events.flush();
      await ctx.informers.stopAll();
    },
  };
}
