// Which TimeSeriesPrediction holds a forecast, as pure functions over lists: the adapter passes what its
// caches list for a namespace, the EHPA controller the one TSP it owns, tests plain arrays.
import { EHPA_UID_LABEL, type EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import type { TimeSeriesPrediction } from '../api/prediction.ts';
import { ownedObjectName, POD_CPU_USAGE_IDENTIFIER } from '../api/names.ts';

/** The EHPA's own TSPs among `tsps` (one namespace's): by its uid label, else the one named after it. */
export function tspsOfEhpa(tsps: readonly TimeSeriesPrediction[], ehpa: EffectiveHorizontalPodAutoscaler): TimeSeriesPrediction[] {
  const uid = ehpa.metadata.uid;
  const byLabel = uid === undefined ? [] : tsps.filter((t) => t.metadata.labels?.[EHPA_UID_LABEL] === uid);
  if (byLabel.length > 0) return byLabel;
  const name = ownedObjectName(ehpa.metadata.name);
  return tsps.filter((t) => t.metadata.name === name && t.metadata.namespace === ehpa.metadata.namespace);
}

/** Whether `t` forecasts the workload `kind namespace/name` (by the EHPA's labels or its targetRef). */
export function tspTargets(t: TimeSeriesPrediction, kind: string, name: string, namespace: string): boolean {
  const l = t.metadata.labels ?? {};
  if (l['app.kubernetes.io/target-kind'] === kind && l['app.kubernetes.io/target-name'] === name && l['app.kubernetes.io/target-namespace'] === namespace) return true;
  const ref = t.spec?.targetRef;
  return !!ref && ref.kind === kind && ref.name === name && (ref.namespace ?? t.metadata.namespace) === namespace;
}

/** The workload a `crane_autoscaling_prediction` selector names. */
export interface PredictionTarget {
  kind: string;
  name: string;
  namespace: string;
}

/**
 * The TSP that answers for `rid` of a target: Crane reads the first match; we prefer one that forecasts `rid`
 * itself, then one that forecasts it under its alias.
 */
export function tspForTarget(tsps: readonly TimeSeriesPrediction[], target: PredictionTarget, rid: string): TimeSeriesPrediction | undefined {
  const candidates = tsps.filter((t) => tspTargets(t, target.kind, target.name, target.namespace));
  const forecasts = (ids: readonly string[]) => candidates.find((t) => t.status?.predictionMetrics?.some((m) => ids.includes(m.resourceIdentifier)));
  return forecasts([rid]) ?? forecasts(resourceAliases(rid)) ?? candidates[0];
}

/** Names one forecast goes by: HEAD calls workload CPU `resource.cpu`, this project's TSPs the v0.7 `crane_pod_cpu_usage`. */
export function resourceAliases(rid: string): string[] {
  return rid === 'resource.cpu' ? [rid, POD_CPU_USAGE_IDENTIFIER] : rid === POD_CPU_USAGE_IDENTIFIER ? [rid, 'resource.cpu'] : [rid];
}
