// The VPA recommender as one of serve's leader-elected controllers: informers are registered at setup
// (so they share the process' caches and sync with the others), and each leadership term gets a fresh
// loop (fresh model, restored from checkpoints and history) ticking every --recommender-interval.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { ControllerRunner } from '../../kube/controller-runner.ts';
import type { ControllerContext, RunnerFactory } from '../../kube/controller-context.ts';
import type { KubeObject } from '../../kube/informers.ts';
import { KINDS } from '../../api/kinds.ts';
import { PrometheusClient } from '../../prometheus/client.ts';
import type { PodObject, VpaObject } from '../input/cluster-feeder.ts';
import { historyPodLabelsByName } from '../input/history-attribution.ts';
import { KubeRecommenderIO } from './kube-recommender-io.ts';
import { OomWatcher, type EvictionEvent } from '../input/oom-watcher.ts';
import { RecommenderLoop } from './recommender-loop.ts';
import { promDuration, type VpaRecommenderOptions } from './recommender-flags.ts';
import type { EhpaForSplit } from './resource-split.ts';
import { TargetSelectors } from '../input/target-selectors.ts';
import { AutoUsage, MetricsApiUsage, PrometheusCurrentUsage, prometheusPodHistory, type UsageSource } from '../input/usage-sources.ts';
import type { PodJSON } from '../input/oom-observer.ts';

function registerMetrics(registry: Registry) {
  return {
    duration: new Histogram({
      name: 'ehpa_adapter_vpa_recommender_loop_duration_seconds',
      help: 'Duration of one VPA recommender loop',
      buckets: [0.01, 0.05, 0.2, 1, 5, 20, 60],
      registers: [registry],
    }),
    containers: new Gauge({ name: 'ehpa_adapter_vpa_recommender_tracked_containers', help: 'Containers the VPA recommender models (pods under a VPA)', registers: [registry] }),
    vpas: new Gauge({ name: 'ehpa_adapter_vpa_recommender_vpas', help: 'VPAs this recommender handles', registers: [registry] }),
    writes: new Counter({ name: 'ehpa_adapter_vpa_recommender_writes_total', help: 'VPA status and checkpoint writes', labelNames: ['kind'], registers: [registry] }),
    ooms: new Counter({ name: 'ehpa_adapter_vpa_recommender_ooms_total', help: 'OOM kills fed to the model', registers: [registry] }),
  };
}

/** Registers what the recommender needs and returns the per-term runner factory (kube/controller-context.ts). */
export function setupVpaRecommender(s: ControllerContext, o: VpaRecommenderOptions): RunnerFactory {
  const cfg = o.config;
  const now = s.now ?? Date.now;
  const log = s.log.child({ controller: 'vpa-recommender' });
  const vpas = s.informers.informer<VpaObject & KubeObject>(KINDS.vpa);
  const pods = s.informers.informer<PodObject & KubeObject>(KINDS.pod);
  const ehpas = o.splitWithEhpa ? s.informers.informer<EhpaForSplit & KubeObject>(KINDS.ehpa) : undefined;
  const ooms = new OomWatcher(s.informers.informer<PodJSON & KubeObject>(KINDS.pod), {
    evictions: s.informers.informer<EvictionEvent>(KINDS.evictionEvent),
    ...(cfg.filter.vpaObjectNamespace ? { namespace: cfg.filter.vpaObjectNamespace } : {}),
  });
  const metrics = registerMetrics(s.registry);
  // One client for both current usage and start-up history.
  const client = o.prometheus ? new PrometheusClient(o.prometheus) : undefined;
  const prom = client ? new PrometheusCurrentUsage({ prometheus: client, labels: cfg.labels, rateWindow: promDuration(o.currentUsageRateWindowMs) }) : undefined;
  const api = new MetricsApiUsage(s.client, cfg.filter.vpaObjectNamespace);
  const source = o.usageSource;
  let usage: UsageSource;
  if (source === 'metrics-api') usage = api;
  else if (source === 'prometheus') {
    if (!prom) log.warn('--recommender-usage-source=prometheus without --prometheus-url: no current usage');
    usage = prom ?? { name: 'none', current: () => Promise.reject(new Error('no --prometheus-url')) };
  } else usage = new AutoUsage(api, prom, now);
  const h = o.history;
  const history =
    client && h
      ? () =>
          prometheusPodHistory({
            history: client,
            labels: cfg.labels,
            lengthMs: h.lengthMs,
            resolutionMs: h.resolutionMs,
            now,
            onLabelsError: (e) => log.warn({ err: e.message, query: cfg.labels.podLabelsMetricName }, 'vpa-recommender: pod-labels query failed; history pods are matched by live pods and pod names only'),
          })
      : undefined;
  const selectors = new TargetSelectors(s.client, s.discovery, now);
  const intervalMs = o.intervalMs;

  return () => {
    // A new term starts from the caches: pod-update OOMs seen while not leading belong to the previous
    // leader's model; stored eviction events are replayed (see OomWatcher.beginTerm).
    ooms.beginTerm();
    const io = new KubeRecommenderIO({ client: s.client, vpas, pods, ehpas, selectors, usage, history, ooms, events: s.events, namespace: cfg.filter.vpaObjectNamespace });
    const loop = new RecommenderLoop(io, {
      settings: cfg.settings,
      filter: cfg.filter,
      splitWithEhpa: !!ehpas,
      checkpointsTimeoutMs: o.checkpointsTimeoutMs,
      checkpointsGcIntervalMs: o.checkpointsGcIntervalMs,
      updateWorkers: o.updateWorkers,
      now,
      historyPodLabels: historyPodLabelsByName,
      log,
    });
    const runner = new ControllerRunner({
      name: 'vpa-recommender',
      workers: 1,
      log,
      reconcile: async () => {
        try {
          const st = await loop.runOnce();
          metrics.duration.observe(st.totalMs / 1000);
          metrics.containers.set(st.trackedContainers);
          metrics.vpas.set(st.vpas);
          metrics.writes.inc({ kind: 'status' }, st.statusWrites);
          metrics.writes.inc({ kind: 'checkpoint' }, st.checkpointWrites);
          metrics.ooms.inc(st.ooms);
          log.debug({ ...st }, 'vpa-recommender loop done');
        } catch (e) {
          // One bad loop must not stop the ticker.
          log.error({ err: (e as Error).message }, 'vpa-recommender loop failed');
        }
        return { requeueAfterMs: intervalMs };
      },
    });
    runner.enqueue('tick');
    return runner;
  };
}
