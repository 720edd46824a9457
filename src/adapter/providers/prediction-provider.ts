// `crane_autoscaling_prediction` (Crane v0.8+, docs/crane-behaviour.md §C.2), so HPAs written by newer
// Crane keep working: the largest forecast over the window for the TSP of the target named by the selector.
// Unlike Crane we do not truncate the value to an integer (2.7 cores stays 2700m): Crane's craned exporter
// does not truncate either, and truncation makes CPU forecasts under one core read as zero. The float32
// reading is trimmed back to float32's 7 significant digits so "2.70000" is 2700m, not 2701m.
import { maxForecastInWindow, readyPredictionSeries } from '../../metric-values/forecast-window.ts';
import { toMilli } from '../../metric-values/milli-quantity.ts';
import type { TimeSeriesPrediction } from '../../api/prediction.ts';
import type { AdapterMetrics } from '../adapter-metrics.ts';
import { badRequest, notFound, unavailable } from '../status.ts';
import type { ExternalMetricProvider, ExternalQuery, ExternalValue } from './provider.ts';
import type { AdapterSources } from './sources.ts';

export const PREDICTION_METRIC_HEAD = 'crane_autoscaling_prediction';

const KEYS = ['targetKind', 'targetName', 'targetNamespace', 'resourceIdentifier'] as const;

function tspTargets(t: TimeSeriesPrediction, kind: string, name: string, namespace: string): boolean {
  const l = t.metadata.labels ?? {};
  if (l['app.kubernetes.io/target-kind'] === kind && l['app.kubernetes.io/target-name'] === name && l['app.kubernetes.io/target-namespace'] === namespace) return true;
  const ref = t.spec?.targetRef;
  return !!ref && ref.kind === kind && ref.name === name && (ref.namespace ?? t.metadata.namespace) === namespace;
}

export function predictionProvider(opts: { sources: AdapterSources; metrics?: AdapterMetrics }): ExternalMetricProvider {
  return {
    listed: () => [PREDICTION_METRIC_HEAD],
    owns: async (_ns, metric) => metric === PREDICTION_METRIC_HEAD,
    async values(q: ExternalQuery): Promise<ExternalValue[]> {
      const want = KEYS.map((k) => q.selector.exactValue(k));
      const missing = KEYS.filter((_, i) => want[i] === undefined);
      if (missing.length) throw badRequest(`metric ${PREDICTION_METRIC_HEAD} needs labelSelector with ${missing.map((k) => `${k}=…`).join(', ')}`);
      const [kind, name, namespace, rid] = want as [string, string, string, string];
      const candidates = (await opts.sources.listTsps(q.namespace)).filter((t) => tspTargets(t, kind, name, namespace));
      // Crane reads the first match only; we prefer the one that forecasts this resourceIdentifier.
      const tsp = candidates.find((t) => t.status?.predictionMetrics?.some((m) => m.resourceIdentifier === rid)) ?? candidates[0];
      if (!tsp) throw notFound(`there is no TimeSeriesPrediction for ${kind} ${namespace}/${name}`);
      const series = readyPredictionSeries(tsp, rid);
      const fail = (reason: string, message: string) => {
        opts.metrics?.fallbacks.inc({ metric: PREDICTION_METRIC_HEAD, reason, outcome: 'error' });
        return unavailable(`TimeSeriesPrediction ${tsp.metadata.namespace}/${tsp.metadata.name}: ${message}`);
      };
      if (!series.ok) throw fail(series.problem.reason === 'NotReady' ? 'PredictionNotReady' : 'PredictionMissing', series.problem.message);
      const r = maxForecastInWindow(series.metric, q.nowMs, tsp.spec.predictionWindowSeconds);
      if (!r.ok) throw fail('PredictionOutdated', r.problem.message);
      return [{ labels: q.selector.toLabelSelector()?.matchLabels ?? {}, milli: toMilli(Number(r.largest.toPrecision(7))) }];
    },
  };
}
