// One provider per metric family (the KEDA-scaler shape): the HTTP layer asks "who owns metric M for
// resource R?" and the owner computes values from AdapterSources. A new metric is a new provider file.
import type { LabelSelector } from '../../selectors/label-selector.ts';

export interface CustomQuery {
  namespace?: string;
  /** Group-qualified plural, e.g. `pods` or `deployments.apps`. */
  resource: string;
  /** Object name, or `*` for every object matching `selector`. */
  name: string;
  metric: string;
  selector: LabelSelector;
  metricSelector: LabelSelector;
  nowMs: number;
}

export interface CustomValue {
  describedObject: { kind: string; apiVersion: string; name: string; namespace?: string };
  /** Milli-units (already rounded up as the HPA would). */
  milli: bigint;
  windowSeconds?: number;
}

export interface ExternalQuery {
  namespace: string;
  metric: string;
  selector: LabelSelector;
  nowMs: number;
}

export interface ExternalValue {
  labels: Record<string, string>;
  milli: bigint;
  windowSeconds?: number;
}

export interface CustomMetricProvider {
  /** Discovery entries this provider serves, e.g. `{resource: 'pods', metric: 'crane_pod_cpu_usage', namespaced: true}`. */
  listed(): { resource: string; metric: string; namespaced: boolean }[];
  owns(resource: string, metric: string): boolean;
  values(q: CustomQuery): Promise<CustomValue[]>;
}

export interface ExternalMetricProvider {
  listed(): string[];
  /** May look at the namespace's objects (legacy per-EHPA names), hence async. */
  owns(namespace: string, metric: string, selector: LabelSelector): Promise<boolean>;
  values(q: ExternalQuery): Promise<ExternalValue[]>;
}
