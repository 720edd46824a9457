// `crane_pod_cpu_usage`, the Pods metric of Crane v0.2–v0.7 (docs/crane-behaviour.md §C.3): the largest
// forecast of the workload's total CPU over the prediction window, split evenly over its available pods.
// While the forecast is missing or stale we answer with the pods' observed usage by default and report why;
// `fallback: 'error'` (--prediction-fallback=unavailable) answers 503 instead, so the HPA scales on its other
// metrics and holds scale-down. Crane v0.2–v0.7's adapter errors the same way; Crane HEAD instead leaves the
// predicted metric out of the HPA until the TSP is ready (gocrane/crane pkg/controller/ehpa/hpa.go
// GetHPAMetrics, GetReadyPredictionMetric), which the observed fallback approximates without an HPA rewrite.
import type { EffectiveHorizontalPodAutoscaler } from '../../api/ehpa.ts';
import { perPodMillis } from '../../metric-values/forecast-window.ts';
import { ehpaForecastValue, STEPPED_ASIDE_VALUE, stepsAside } from '../../metric-values/forecast-value.ts';
import { ehpaByUid, ehpaTspsIn } from './predicted-metric-value.ts';
import { POD_CPU_USAGE_IDENTIFIER, POD_CPU_USAGE_METRIC } from '../../api/names.ts';
import { invalidObject, notFound, unavailable } from '../status.ts';
import { validateEhpa } from '../../ehpa/validation.ts';
import type { AdapterMetrics } from '../adapter-metrics.ts';
import type { CustomMetricProvider, CustomQuery, CustomValue } from './provider.ts';
import { isPodAvailable, isPodRunning, type PodLike } from '../../api/pod.ts';
import type { AdapterSources, FallbackListener, FallbackOutcome } from './sources.ts';


export interface PodCpuProviderOptions {
  sources: AdapterSources;
  fallback: 'observed' | 'error';
  metrics?: AdapterMetrics;
  onFallback?: FallbackListener;
}
/**
 * The EHPA's prediction settings are flagged invalid (the controller's InvalidPrediction): the forecast would
 * come from a TSP the controller no longer updates, so the answer is 422 naming each field, not a forecast
 * of settings nobody asked for. Problems elsewhere in the EHPA (a bad cron) do not touch this metric.
 */
// The informer cache hands out the same object until the EHPA changes: validate each version once.
const invalidByObject = new WeakMap<EffectiveHorizontalPodAutoscaler, Error | null>();

function invalidPrediction(ehpa: EffectiveHorizontalPodAutoscaler): Error | undefined {
  let hit = invalidByObject.get(ehpa);
  if (hit === undefined) {
    hit = checkPrediction(ehpa) ?? null;
    invalidByObject.set(ehpa, hit);
  }
  return hit ?? undefined;
}

function checkPrediction(ehpa: EffectiveHorizontalPodAutoscaler): Error | undefined {
  const problems = validateEhpa(ehpa).filter((p) => p.reason === 'InvalidPrediction');
  if (problems.length === 0) return undefined;
  const object = { group: 'autoscaling.crane.io', kind: 'EffectiveHorizontalPodAutoscaler', namespace: ehpa.metadata.namespace, name: ehpa.metadata.name };
  // Validation messages begin with the field path ("spec.prediction.… is …", "annotation … is …").
  return invalidObject(object, problems.map((p) => {
    const field = /^(spec\.\S+?|annotation \S+)(?= |:|$)/.exec(p.message)?.[1] ?? 'spec.prediction';
    return { field, message: p.message };
  }));
}

const describe = (pod: PodLike, ns: string) => ({ kind: 'Pod', apiVersion: 'v1', name: pod.metadata?.name ?? '', namespace: ns });

export function podCpuProvider(opts: PodCpuProviderOptions): CustomMetricProvider {
  const { sources } = opts;
  return {
    listed: () => [{ resource: 'pods', metric: POD_CPU_USAGE_METRIC, namespaced: true }],
    owns: (resource, metric) => resource === 'pods' && metric === POD_CPU_USAGE_METRIC,
    async values(q: CustomQuery): Promise<CustomValue[]> {
      if (q.namespace === undefined) throw notFound(`the server could not find the metric ${POD_CPU_USAGE_METRIC} for pods`);
      const ns = q.namespace;
      const ehpa = await ehpaByUid(sources, ns, POD_CPU_USAGE_METRIC, q.metricSelector, 'metricLabelSelector');
      const uid = ehpa.metadata.uid;
      const invalid = invalidPrediction(ehpa);
      if (invalid) throw invalid;

      let pods = await sources.listPods(ns, q.selector);
      if (q.name !== '*') pods = pods.filter((p) => p.metadata?.name === q.name);
      if (pods.length === 0) throw notFound(`the server could not find the metric ${POD_CPU_USAGE_METRIC} for pods: no pod in namespace ${ns} matches ${q.name === '*' ? 'the selector' : q.name}`);
      const available = pods.filter((p) => isPodAvailable(p, q.nowMs));

      const forecast = ehpaForecastValue(await ehpaTspsIn(sources, ehpa), ehpa, POD_CPU_USAGE_IDENTIFIER, q.nowMs);
      if (forecast.ok) {
        if (available.length === 0) throw unavailable(`failed to get available pods: none of the ${pods.length} selected pods has been Running and Ready for 30s`);
        const milli = BigInt(perPodMillis(forecast.largest, available.length));
        return available.map((p) => ({ describedObject: describe(p, ns), milli }));
      }

      const report = (outcome: FallbackOutcome) => {
        opts.metrics?.fallbacks.inc({ metric: POD_CPU_USAGE_METRIC, reason: forecast.reason, outcome });
        opts.onFallback?.({
          namespace: ns, ehpaName: ehpa.metadata.name, ...(uid ? { ehpaUid: uid } : {}),
          metric: POD_CPU_USAGE_METRIC, reason: forecast.reason, message: forecast.message, outcome,
        });
      };
      if (stepsAside(forecast.reason)) {
        // Every pod, ready or not, reads the neutral value: the HPA scales on its other metrics alone.
        report('stepped-aside');
        return pods.map((p) => ({ describedObject: describe(p, ns), milli: BigInt(STEPPED_ASIDE_VALUE) }));
      }
      if (opts.fallback === 'error') {
        report('error');
        throw unavailable(forecast.message);
      }
      const candidates = available.length > 0 ? available : pods.filter(isPodRunning);
      let observed: ReadonlyMap<string, number>;
      try {
        observed = await sources.observedPodCpuMillis(ns, candidates.map((p) => p.metadata?.name ?? ''));
      } catch (e) {
        // Prometheus down is an outage of this metric (503, both problems named), not an internal error:
        // the HPA then keeps scaling on its other metrics.
        report('error');
        throw unavailable(`${forecast.message}; observed CPU usage unavailable: ${(e as Error).message}`);
      }
      const values: CustomValue[] = [];
      for (const p of candidates) {
        const m = observed.get(p.metadata?.name ?? '');
        if (m !== undefined && Number.isFinite(m)) values.push({ describedObject: describe(p, ns), milli: BigInt(Math.max(0, Math.ceil(m))) });
      }
      if (values.length === 0) {
        report('error');
        throw unavailable(`${forecast.message}; no observed CPU usage to fall back to`);
      }
      report('observed');
      return values;
    },
  };
}
