// Exporter mode: for clusters where prometheus-adapter already owns external.metrics.k8s.io, craned's
// series are published on the plain-HTTP /metrics, and prometheus-adapter rules
// (manifests/components/prometheus-adapter/) serve them to the HPA. This is what Crane v0.8+ documents as its
// best practice (gocrane/crane PRs #469 and #520). craned's collector, gocrane/crane
// pkg/metrics/metric_collector.go at HEAD, exports (docs/crane-behaviour.md §C.6)
//   crane_autoscaling_cron{targetKind, targetName, targetNamespace, resourceIdentifier="cron"}   per EHPA with crons
//   crane_autoscaling_prediction{targetKind, targetName, targetNamespace, resourceIdentifier, algorithm}  per TSP series
//   crane_prediction_tsp{same labels}                                                            per TSP series
// and we use the same names, label names and label values, so the rules and dashboards written for Crane work
// unchanged. (Its fourth, crane_metricrule_errcount, counts prometheus-adapter rules craned failed to parse;
// we parse none, so it is not exported: §C.6.)
//
// The values are the ones our adapter would answer for the same selector, computed by the same functions
// (cronValueFor, predictionAnswer), so switching a cluster between the two paths never changes replicas.
// Where that differs from craned's collector it is on purpose and matches the adapter: the cron rules follow
// --cron-semantics (under 'v0.7', a cron-only EHPA with no cron active reports the target's current
// replicas where craned reports minReplicas); a forecast is read only from a ready entry with one series.
//
// Computed on scrape from the informer caches: per EHPA at most BOUNDS.crons crons; the TSP series for every
// cached TSP, at most DEFAULT_MAX_PAIRS (target, resourceIdentifier) pairs shared fairly between namespaces
// (tsp-series.ts). The only round trip is the scale subresource of a cron-only EHPA with no cron active, at
// most SCALE_READS_IN_FLIGHT at a time.
import { Gauge, type Registry } from 'prom-client';
import type { EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { CRON_RESOURCE_IDENTIFIER } from '../api/names.ts';
import { cronValueFor, CRON_METRIC_HEAD } from './providers/cron-provider.ts';
import { PREDICTION_METRIC_HEAD } from './providers/prediction-provider.ts';
import { DEFAULT_MAX_PAIRS, targetKey, tspSeries, type TspSeries } from './tsp-series.ts';
import { expositionTextSliced } from '../observability/exposition-text.ts';
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
  /** Most TSP (target, resourceIdentifier) pairs exported (default DEFAULT_MAX_PAIRS). */
  maxPairs?: number;
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
 * The TSP series of `tsp-series.ts` from the caches: every TSP in the cluster, EHPA targets first within
 * their namespace under the bound.
 */
export async function tspSeriesFromSources(
  sources: Pick<ExporterSources, 'listEhpas' | 'listTsps'>,
  nowMs: number,
  maxPairs = DEFAULT_MAX_PAIRS,
): Promise<{ series: TspSeries[]; leftOut: number }> {
  const ehpaTargets = new Set((await sources.listEhpas()).map((e) => targetKey(e.metadata.namespace ?? '', e.spec.scaleTargetRef.kind, e.spec.scaleTargetRef.name)));
  return tspSeries(await sources.listTsps(), nowMs, { maxPairs, ehpaTargets });
}

/** `crane_autoscaling_prediction` samples at `nowMs`, valued as the adapter answers each selector. */
export async function predictionSamples(sources: Pick<ExporterSources, 'listEhpas' | 'listTsps'>, nowMs: number): Promise<ExportedSample[]> {
  const { series } = await tspSeriesFromSources(sources, nowMs);
  return series.flatMap((s) => (s.prediction === undefined ? [] : [{ labels: s.labels, value: s.prediction }]));
}

/** Help texts: Crane's, then what the number is here. */
export const PREDICTION_HELP = 'external metrics value of prediction for HorizontalPodAutoscaler: the largest forecast in the prediction window, as the adapter serves it';
export const PREDICTION_TSP_METRIC = 'crane_prediction_tsp';
export const PREDICTION_TSP_HELP = 'model metrics value of tsp for Prediction: the first forecast point at or after now, at its own time';

/**
 * Both TSP families as exposition text (crane_prediction_tsp needs its own timestamps, which prom-client
 * cannot write). crane_autoscaling_prediction is left for the scrape to stamp, so it goes stale at once when
 * a forecast stops being served; an explicit timestamp, as Crane writes, would keep the last value for
 * Prometheus' 5-minute lookback.
 */
export function tspSeriesText(series: readonly TspSeries[]): Promise<string> {
  return expositionTextSliced([
    { name: PREDICTION_METRIC_HEAD, help: PREDICTION_HELP, type: 'gauge', samples: series.flatMap((s) => (s.prediction === undefined ? [] : [{ labels: s.labels, value: s.prediction }])) },
    { name: PREDICTION_TSP_METRIC, help: PREDICTION_TSP_HELP, type: 'gauge', samples: series.flatMap((s) => (s.next ? [{ labels: s.labels, value: s.next.value, timestampMs: s.next.timestampMs }] : [])) },
  ]);
}

/**
 * Registers the cron gauges in `registry` and returns the TSP families' text for /metrics
 * (health-server.ts `extraText`); each is recomputed from the caches when /metrics is scraped.
 */
export function registerCraneExporter(registry: Registry, opts: CraneExporterOptions): { text(): Promise<string> } {
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
  const leftOut = new Gauge({
    name: 'ehpa_adapter_exporter_left_out_forecasts',
    help: 'TSP (target, resourceIdentifier) pairs left out of crane_autoscaling_prediction and crane_prediction_tsp at the last scrape by the exporter\'s bound (10,000 pairs shared fairly between namespaces)',
    registers: [registry],
  });
  // Two scrapes at once share one pass over the TSPs.
  let tspPass: Promise<string> | undefined;
  const text = () => {
    tspPass ??= (async () => {
      if (!ready()) return '';
      const r = await tspSeriesFromSources(opts.sources, opts.now(), opts.maxPairs);
      leftOut.set(r.leftOut);
      return tspSeriesText(r.series);
    })().finally(() => {
      tspPass = undefined;
    });
    return tspPass;
  };
  return { text };
}
