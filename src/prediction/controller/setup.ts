// The TimeSeriesPrediction controller's wiring: its informer, the reconciler and the runner (see
// kube/controller-context.ts for the shape every controller shares).
import type { ControllerContext, RunnerFactory } from '../../kube/controller-context.ts';
import { KINDS } from '../../api/kinds.ts';
import type { TimeSeriesPrediction } from '../../api/prediction.ts';
import type { HistoryProvider } from '../../prometheus/series.ts';
import { TspReconciler } from './tsp-reconciler.ts';
import { createTspController } from './tsp-controller.ts';
import type { Forecaster } from './forecaster.ts';
import { registerCoverageMetrics } from './coverage-metrics.ts';
import type { UserPromqlPolicy } from '../../prometheus/promql-confine.ts';
import type { TenantPacer } from '../../kube/tenant-pacer.ts';

export interface TspControllerOptions {
  workers: number;
  /** Reconciles of one namespace at once. */
  workersPerNamespace?: number;
  /** How often each TSP is checked for freshness. */
  updateFrequencyMs: number;
  /** A forecast older than this is rebuilt from fresh history. */
  modelUpdateIntervalMs: number;
  history: HistoryProvider;
  forecaster: Forecaster;
  /** --user-promql (default: confined to the TSP's namespace). */
  userPromql?: UserPromqlPolicy;
  /** --tenant-status-*: per-namespace pacing of status writes. */
  pacer?: TenantPacer;
  /** --prediction-accept-extra-cost: auto mode's default trade when judging whether a forecast pays. */
  acceptExtraCost?: number;
  /** --prediction-pays=enforce (default): a forecast that does not pay steps aside; false: only reported. */
  enforcePays?: boolean;
}

export function setupTspController(ctx: ControllerContext, o: TspControllerOptions): RunnerFactory {
  const tsps = ctx.informers.informer<TimeSeriesPrediction>(KINDS.tsp);
  const log = ctx.log.child({ controller: 'tsp' });
  const coverageMetrics = registerCoverageMetrics(ctx.registry);
  return () => {
    const reconciler = new TspReconciler({
      tsps,
      history: o.history,
      forecaster: o.forecaster,
      status: ctx.status,
      log,
      now: ctx.now,
      updateFrequencyMs: o.updateFrequencyMs,
      modelUpdateIntervalMs: o.modelUpdateIntervalMs,
      events: ctx.events,
      coverageMetrics,
      ...(o.userPromql ? { userPromql: o.userPromql } : {}),
      ...(o.pacer ? { pacer: o.pacer } : {}),
      ...(o.acceptExtraCost !== undefined ? { acceptExtraCost: o.acceptExtraCost } : {}),
      ...(o.enforcePays !== undefined ? { enforcePays: o.enforcePays } : {}),
    });
    const runner = createTspController({ reconciler, tsps, workers: o.workers, ...(o.workersPerNamespace !== undefined ? { perNamespace: o.workersPerNamespace } : {}), log, observe: ctx.metrics.observe('tsp') });
    // Leadership lost or shutting down: the runner waits for passes in flight, so end them now rather
    // than after their history reads and fits.
    runner.releaseOnStop(() => reconciler.stop('the TimeSeriesPrediction controller is stopping'));
    for (const t of tsps.list()) runner.enqueue(`${t.metadata.namespace}/${t.metadata.name}`);
    return runner;
  };
}
