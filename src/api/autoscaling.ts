// The parts of `autoscaling/v2` HorizontalPodAutoscaler and the `/scale` subresource we read and write,
// as plain JSON (times are RFC 3339 strings, quantities are strings).
import type { V2HorizontalPodAutoscalerBehavior, V2MetricSpec, V2MetricStatus } from '@kubernetes/client-node';
import type { CrossVersionObjectReference, ObjectMeta } from './meta.ts';
import type { EHPA_API_VERSION, SUBSTITUTE_KIND } from './ehpa.ts';

export const HPA_API_VERSION = 'autoscaling/v2';
export const HPA_PLURAL = 'horizontalpodautoscalers';

export interface HpaCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface HorizontalPodAutoscaler {
  apiVersion: typeof HPA_API_VERSION;
  kind: 'HorizontalPodAutoscaler';
  metadata: ObjectMeta;
  spec: {
    scaleTargetRef: CrossVersionObjectReference;
    minReplicas?: number;
    maxReplicas: number;
    metrics?: V2MetricSpec[];
    behavior?: V2HorizontalPodAutoscalerBehavior;
  };
  status?: {
    observedGeneration?: number;
    lastScaleTime?: string;
    currentReplicas?: number;
    desiredReplicas?: number;
    currentMetrics?: V2MetricStatus[];
    conditions?: HpaCondition[];
  };
}

/** `autoscaling/v1` Scale, what every `/scale` subresource speaks. */
export interface Scale {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; uid?: string };
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

/** Crane's Substitute: a stand-in scale target so the HPA computes replicas without acting (docs/crane-behaviour.md §B.5). */
export interface Substitute {
  apiVersion: typeof EHPA_API_VERSION;
  kind: typeof SUBSTITUTE_KIND;
  metadata: ObjectMeta;
  spec: { substituteTargetRef: CrossVersionObjectReference; replicas?: number };
  status?: { labelSelector?: string; replicas?: number };
}
