// Predicted Pods and External metrics of Crane v0.6–v0.7 (docs/crane-behaviour.md §0.1): Pods
// `crane_custom.pods_<name>` and External `crane_external_<name>`, selected by the EHPA uid label, for the
// TSP entries `pods.<name>` / `external.<name>`. The Pods metric splits the workload's forecast evenly over
// the available pods, as crane_pod_cpu_usage does, so the HPA's average over pods is the forecast per pod;
// the External metric is the forecast itself. Fallback as for CPU (predicted-metric-value.ts).
import { CUSTOM_PODS_PREDICTION_PREFIX, EXTERNAL_PREDICTION_PREFIX, predictionIdentifier } from '../../api/names.ts';
import { perPodMillis } from '../../metric-values/forecast-window.ts';
import { toMilli } from '../../metric-values/milli-quantity.ts';
import { notFound, unavailable } from '../status.ts';
import { isPodAvailable, isPodRunning } from '../../api/pod.ts';
import { ehpaByUid, ehpaTspsIn, predictedTotal, type PredictedValueOptions } from './predicted-metric-value.ts';
import type { CustomMetricProvider, CustomQuery, CustomValue, ExternalMetricProvider, ExternalQuery, ExternalValue } from './provider.ts';

const PODS_FAMILY = 'crane_custom.pods_';
const EXTERNAL_FAMILY = 'crane_external_';

export function legacyPodsPredictionProvider(opts: PredictedValueOptions): CustomMetricProvider {
  const { sources } = opts;
  return {
    // Names are per metric; an HPA does not need discovery to read them.
    listed: () => [],
    owns: (resource, metric) => resource === 'pods' && metric.startsWith(CUSTOM_PODS_PREDICTION_PREFIX) && metric.length > CUSTOM_PODS_PREDICTION_PREFIX.length,
    async values(q: CustomQuery): Promise<CustomValue[]> {
      if (q.namespace === undefined) throw notFound(`the server could not find the metric ${q.metric} for pods`);
      const ns = q.namespace;
      const ehpa = await ehpaByUid(sources, ns, q.metric, q.metricSelector);
      const rid = predictionIdentifier('Pods', q.metric.slice(CUSTOM_PODS_PREDICTION_PREFIX.length));
      let pods = await sources.listPods(ns, q.selector);
      if (q.name !== '*') pods = pods.filter((p) => p.metadata?.name === q.name);
      if (pods.length === 0) throw notFound(`the server could not find the metric ${q.metric} for pods: no pod in namespace ${ns} matches ${q.name === '*' ? 'the selector' : q.name}`);
      const available = pods.filter((p) => isPodAvailable(p, q.nowMs));
      const { total, observed } = await predictedTotal(opts, ehpa, await ehpaTspsIn(sources, ehpa), rid, PODS_FAMILY, q.nowMs);
      // A forecast is split over available pods (Crane's rule); an observation over the running ones when
      // none is available yet, so a rollout does not stall the fallback.
      const over = available.length > 0 ? available : observed ? pods.filter(isPodRunning) : [];
      if (over.length === 0) throw unavailable(`failed to get available pods: none of the ${pods.length} selected pods has been Running and Ready for 30s`);
      const milli = BigInt(perPodMillis(total, over.length));
      return over.map((p) => ({ describedObject: { kind: 'Pod', apiVersion: 'v1', name: p.metadata?.name ?? '', namespace: ns }, milli }));
    },
  };
}

export function legacyExternalPredictionProvider(opts: PredictedValueOptions): ExternalMetricProvider {
  const { sources } = opts;
  return {
    listed: () => [],
    owns: async (_ns, metric) => metric.startsWith(EXTERNAL_PREDICTION_PREFIX) && metric.length > EXTERNAL_PREDICTION_PREFIX.length,
    async values(q: ExternalQuery): Promise<ExternalValue[]> {
      const ehpa = await ehpaByUid(sources, q.namespace, q.metric, q.selector);
      const rid = predictionIdentifier('External', q.metric.slice(EXTERNAL_PREDICTION_PREFIX.length));
      const { total, observed } = await predictedTotal(opts, ehpa, await ehpaTspsIn(sources, ehpa), rid, EXTERNAL_FAMILY, q.nowMs);
      // A forecast is a float32 reading, trimmed to its 7 digits as crane_autoscaling_prediction does; an
      // observation is a float64 and served as it is.
      return [{ labels: q.selector.toLabelSelector()?.matchLabels ?? {}, milli: observed ? toMilli(total) : toMilli(Number(total.toPrecision(7))) }];
    },
  };
}
