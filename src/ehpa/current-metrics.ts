// The `autoscaling.crane.io/effective-hpa-current-metrics` annotation Crane writes on every EHPA
// (gocrane/crane pkg/controller/ehpa/effective_hpa_controller.go, v0.2 to HEAD): the backing HPA's
// status.currentMetrics, marshalled with sigs.k8s.io/yaml, i.e. JSON turned into YAML by yaml.v2: map keys
// sorted, sequences not indented under their key, YAML 1.1 quoting (strings such as "3" or "yes" quoted,
// a quantity like 250m plain), no line folding. Written only when the HPA reports currentMetrics (Crane's
// `!= nil`) and the text changed, so dashboards and scripts that parse it keep working.
import YAML from 'yaml';
import type { HorizontalPodAutoscaler } from '../api/autoscaling.ts';

/** The annotation's value for this HPA, or undefined when the HPA has no currentMetrics yet. */
export function currentMetricsAnnotation(hpa: HorizontalPodAutoscaler | undefined): string | undefined {
  const metrics = hpa?.status?.currentMetrics;
  // Go's omitempty drops an empty list, which Crane then reads as nil.
  if (!metrics || metrics.length === 0) return undefined;
  return YAML.stringify(metrics, { version: '1.1', sortMapEntries: true, indentSeq: false, lineWidth: 0 });
}
