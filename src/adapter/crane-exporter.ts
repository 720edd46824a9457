// Exporter mode: for clusters where prometheus-adapter already owns external.metrics.k8s.io,
// `crane_autoscaling_cron` and `crane_autoscaling_prediction` are published as Prometheus gauges on the
// plain-HTTP /metrics, and prometheus-adapter rules (manifests/components/prometheus-adapter/) serve them to
// the HPA. This is what Crane v0.8+ documents as its best practice (gocrane/crane PRs #469 and #520):
// craned's collector, gocrane/crane pkg/metrics/metric_collector.go (v0.8.0 and later), exports
//   crane_autoscaling_cron{targetKind, targetName, targetNamespace, resourceIdentifier="cron"}
//   crane_autoscaling_prediction{targetKind, targetName, targetNamespace, resourceIdentifier, algorithm}
// and we use the same names, label names and label values, so the rules written for Crane work unchanged.
//
// The values are the ones our adapter would answer for the same selector, computed by the same functions
// (cronValueFor, predictionAnswer), so switching a cluster between the two paths never changes replicas.
// Where that differs from craned's collector it is on purpose and matches the adapter: the cron rules follow
// --cron-semantics (under 'v0.7', a cron-only EHPA with no cron active reports the target's current
// replicas where craned reports minReplicas); a forecast is read only from a ready entry with one series.
//
// Computed on scrape from the informer caches: per EHPA at most BOUNDS.crons crons and, for prediction, the
// resourceIdentifiers of the TSPs of its target (≤ BOUNDS.predictionMetrics each). The only round trip is
// the scale subresource of a cron-only EHPA with no cron active, at most SCALE_READS_IN_FLIGHT at a time.
import { Gauge, type Registry } from 'prom-client';
import type { EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { CRON_RESOURCE_IDENTIFIER } from '../api/names.ts';
import { cronValueFor, CRON_METRIC_HEAD } from './providers/cron-provider.ts';
import { PREDICTION_METRIC_HEAD } from './providers/prediction-provider.ts';
import { predictionAnswer, STEPPED_ASIDE_VALUE, stepsAside } from '../metric-values/forecast-value.ts';
import { tspTargets } from '../metric-values/tsp-lookup.ts';
import type { AdapterSources } from './providers/sources.ts';
import type { CronSemantics } from '../metric-values/cron-replicas.ts';

/** Crane's label names (metric_collector.go), in its order. */
export const CRON_LABELS = ['targetKind', 'targetName', 'targetNamespace', 'resourceIdentifier'] as const;
export const PREDICTION_LABELS = ['targetKind', 'targetName', 'targetNamespace', 'resourceIdentifier', 'algorithm'] as const;

const SCALE_READS_IN_FLIGHT = 8;

export type ExporterSources = Pick<AdapterSources, 'listEhpas' | 'listTsps' | 'getScaleReplicas'>;

export interface CraneExporterOptions {
  sources: ExporterSources;
  /** IANA zone that `timezone: Local` means (as the adapter's --cron-local-timezone). */
  localZone: string;
  /** Crane generation whose cron rules apply, as the adapter's --cron-semantics (default 'v0.7'). */
  semantics?: CronSemantics;
  now: () => number;
  /** False until the caches have their first list: nothing is exported from a half-filled cache. */
  ready?: () => boolean;
}

export interface ExportedSample {
  labels: Record<string, string>;
  value: number;
}

/** Runs `fn` over `items` with at most `limit` promises pending. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * `crane_autoscaling_cron` samples at `nowMs`, one per EHPA with crons, in list order (a later EHPA with the
 * same target replaces an earlier one, as the adapter's "last match wins"). An EHPA whose crons cannot be
 * evaluated is left out and counted in `errors`.
 */
export async function cronSamples(opts: Omit<CraneExporterOptions, 'now' | 'ready'>, nowMs: number): Promise<{ samples: ExportedSample[]; errors: number }> {
  const withCrons = (await opts.sources.listEhpas()).filter((e) => (e.spec.crons?.length ?? 0) > 0);
  const values = new Array<number | undefined>(withCrons.length);
  let errors = 0;
  await eachLimited([...withCrons.keys()], SCALE_READS_IN_FLIGHT, async (i) => {
    try {
      values[i] = await cronValueFor(withCrons[i] as EffectiveHorizontalPodAutoscaler, nowMs, opts);
    } catch {
      errors++;
    }
  });
  const byTarget = new Map<string, ExportedSample>();
  withCrons.forEach((e, i) => {
    const value = values[i];
    if (value === undefined) return;
    const labels = {
      targetKind: e.spec.scaleTargetRef.kind,
      targetName: e.spec.scaleTargetRef.name,
      targetNamespace: e.metadata.namespace ?? '',
      resourceIdentifier: CRON_RESOURCE_IDENTIFIER,
    };
    byTarget.set(JSON.stringify(labels), { labels, value });
  });
  return { samples: [...byTarget.values()], errors };
}

/**
 * `crane_autoscaling_prediction` samples at `nowMs`: for each EHPA's target, every resourceIdentifier its
 * TSPs forecast, valued as the adapter answers that selector (skipped when the adapter would refuse it).
 */
export async function predictionSamples(sources: Pick<ExporterSources, 'listEhpas' | 'listTsps'>, nowMs: number): Promise<ExportedSample[]> {
  const out = new Map<string, ExportedSample>();
  const seenTargets = new Set<string>();
  for (const e of await sources.listEhpas()) {
    const namespace = e.metadata.namespace ?? '';
    const target = { kind: e.spec.scaleTargetRef.kind, name: e.spec.scaleTargetRef.name, namespace };
    const key = JSON.stringify(target);
    if (seenTargets.has(key)) continue;
    seenTargets.add(key);
    const tsps = await sources.listTsps(namespace);
    const rids = new Set<string>();
    for (const t of tsps) {
      if (!tspTargets(t, target.kind, target.name, namespace)) continue;
      for (const m of t.status?.predictionMetrics ?? []) rids.add(m.resourceIdentifier);
    }
    for (const rid of rids) {
      const a = predictionAnswer(tsps, target, rid, nowMs);
      // A forecast that stepped aside is exported as the adapter serves it (0: the HPA scales on its other
      // metrics); a missing series would instead stop the HPA's scale-downs (one metric unavailable).
      const steppedAside = !a.ok && a.status === 503 && stepsAside(a.reason);
      if (!a.ok && !steppedAside) continue;
      const algorithm = a.tsp.spec.predictionMetrics?.find((m) => m.resourceIdentifier === rid)?.algorithm?.algorithmType ?? '';
      const labels = { targetKind: target.kind, targetName: target.name, targetNamespace: namespace, resourceIdentifier: rid, algorithm };
      out.set(JSON.stringify(labels), { labels, value: a.ok ? Number(a.milli) / 1000 : STEPPED_ASIDE_VALUE });
    }
  }
  return [...out.values()];
}

/** Registers both gauges; each is recomputed from the caches when /metrics is scraped. */
export function registerCraneExporter(registry: Registry, opts: CraneExporterOptions): void {
  const ready = opts.ready ?? (() => true);
  // prom-client collects every metric of a scrape concurrently: the cron gauge and the skipped gauge share
  // one pass (whichever asks first starts it), so they always describe the same computation.
  let pass: Promise<{ samples: ExportedSample[]; errors: number }> | undefined;
  const cronPass = () => {
    pass ??= (ready() ? cronSamples(opts, opts.now()) : Promise.resolve({ samples: [], errors: 0 })).finally(() => {
      pass = undefined;
    });
    return pass;
  };
  new Gauge({
    name: CRON_METRIC_HEAD,
    help: 'external metrics value of cron for HorizontalPodAutoscaler: the replicas the EHPA\'s crons ask for now',
    labelNames: CRON_LABELS,
    registers: [registry],
    async collect() {
      const r = await cronPass();
      this.reset();
      for (const s of r.samples) this.set(s.labels, s.value);
    },
  });
  new Gauge({
    name: 'ehpa_adapter_exporter_skipped_ehpas',
    help: 'EHPAs left out of crane_autoscaling_cron at this scrape because their crons could not be evaluated (the adapter answers them with an error too)',
    registers: [registry],
    async collect() {
      this.set((await cronPass()).errors);
    },
  });
  new Gauge({
    name: PREDICTION_METRIC_HEAD,
    help: 'external metrics value of prediction for HorizontalPodAutoscaler: the largest forecast in the prediction window',
    labelNames: PREDICTION_LABELS,
    registers: [registry],
    async collect() {
      const samples = ready() ? await predictionSamples(opts.sources, opts.now()) : [];
      this.reset();
      for (const s of samples) this.set(s.labels, s.value);
    },
  });
}
