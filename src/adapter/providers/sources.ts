// The narrow read-only view of the cluster the metric providers need. The coordinator binds it to the shared
// informer caches (src/kube); tests and the benchmark bind it to plain maps. Cache reads may be synchronous;
// anything that needs a round trip (scale subresource, observed usage) may return a promise.
import type { CrossVersionObjectReference } from '../../api/meta.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../../api/ehpa.ts';
import type { TimeSeriesPrediction } from '../../api/prediction.ts';
import type { PodLike } from '../../api/pod.ts';
import type { LabelSelector } from '../../selectors/label-selector.ts';
import type { ForecastReason } from '../../metric-values/forecast-value.ts';

export type MaybePromise<T> = T | Promise<T>;

export interface AdapterSources {
  getEhpa(namespace: string, name: string): MaybePromise<EffectiveHorizontalPodAutoscaler | undefined>;
  /** Every EHPA in `namespace`, or in all namespaces when it is undefined. */
  listEhpas(namespace?: string): MaybePromise<readonly EffectiveHorizontalPodAutoscaler[]>;
  /** Every TSP in `namespace`, or in all namespaces when it is undefined (the exporter's case). */
  listTsps(namespace?: string): MaybePromise<readonly TimeSeriesPrediction[]>;
  /** Pods in `namespace` whose labels match `selector` (the selector's `matches` is the reference). */
  listPods(namespace: string, selector: LabelSelector): MaybePromise<readonly PodLike[]>;
  /** spec.replicas of the scale subresource of `ref` in `namespace`; undefined if it cannot be read. */
  getScaleReplicas(namespace: string, ref: CrossVersionObjectReference): MaybePromise<number | undefined>;
  /** Observed CPU usage in millicores per pod name (pods without data are left out). */
  observedPodCpuMillis(namespace: string, podNames: readonly string[]): MaybePromise<ReadonlyMap<string, number>>;
  /**
   * Observed value of a predicted metric: `promql` (the TSP entry's query, confined to `namespace`) evaluated
   * now, series summed; undefined when there is no data. Absent: no observed fallback for those metrics.
   */
  observedQueryTotal?(namespace: string, promql: string): MaybePromise<number | undefined>;
}

/** Why a forecast could not be used, reported once per answer that fell back (or failed, in strict mode). */
export interface PredictionFallbackEvent {
  namespace: string;
  ehpaName: string;
  ehpaUid?: string;
  metric: string;
  reason: ForecastReason;
  message: string;
  /** What was answered instead: observed usage, nothing (strict mode / no observed data), or 0 (the forecast stepped aside). */
  outcome: FallbackOutcome;
}

/** What an answer without a usable forecast served. */
export type FallbackOutcome = 'observed' | 'error' | 'stepped-aside';

export type FallbackListener = (event: PredictionFallbackEvent) => void;
