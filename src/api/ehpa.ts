// EffectiveHorizontalPodAutoscaler (`autoscaling.crane.io/v1alpha1`) as Crane defines it, so Crane's
// manifests apply unchanged (docs/crane-behaviour.md §A). Shared by the controller and the adapter.
import type { V2MetricSpec, V2HorizontalPodAutoscalerBehavior } from '@kubernetes/client-node';
import type { Condition, CrossVersionObjectReference, ObjectMeta } from './meta.ts';
import type { PredictionAlgorithm } from './prediction.ts';

export const EHPA_GROUP = 'autoscaling.crane.io';
export const EHPA_VERSION = 'v1alpha1';
export const EHPA_PLURAL = 'effectivehorizontalpodautoscalers';
export const EHPA_KIND = 'EffectiveHorizontalPodAutoscaler';
export const EHPA_API_VERSION = `${EHPA_GROUP}/${EHPA_VERSION}` as const;
/** Crane's Substitute lives in the EHPA's group and version (docs/crane-behaviour.md §B.5). */
export const SUBSTITUTE_KIND = 'Substitute';
export const SUBSTITUTE_PLURAL = 'substitutes';
/** Label Crane puts on the backing HPA and uses as the Pods metric selector (§B.2, §C.3). */
export const EHPA_UID_LABEL = 'autoscaling.crane.io/effective-hpa-uid';

export type ScaleStrategy = 'Auto' | 'Preview';

export interface CronSpec {
  name?: string;
  description?: string;
  /** IANA name, "Local" or "UTC". */
  timezone?: string;
  /** robfig/cron ParseStandard expression (5 fields, `?` allowed). */
  start?: string;
  end?: string;
  targetReplicas?: number;
}

export interface PredictionSpec {
  predictionWindowSeconds?: number;
  predictionAlgorithm?: PredictionAlgorithm;
}

export interface EhpaSpec {
  scaleTargetRef: CrossVersionObjectReference;
  minReplicas?: number;
  maxReplicas: number;
  scaleStrategy?: ScaleStrategy;
  specificReplicas?: number;
  metrics?: V2MetricSpec[];
  crons?: CronSpec[];
  behavior?: V2HorizontalPodAutoscalerBehavior;
  prediction?: PredictionSpec;
}

export interface EhpaStatus {
  expectReplicas?: number;
  currentReplicas?: number;
  lastScaleTime?: string;
  conditions?: Condition[];
}

export interface EffectiveHorizontalPodAutoscaler {
  apiVersion: `${typeof EHPA_GROUP}/${typeof EHPA_VERSION}`;
  kind: typeof EHPA_KIND;
  metadata: ObjectMeta;
  spec: EhpaSpec;
  status?: EhpaStatus;
}

/** Crane's `IsEHPAPredictionEnabled`: all three pieces must be present (§A.1). */
export function predictionEnabled(spec: EhpaSpec): boolean {
  return !!spec.prediction && spec.prediction.predictionWindowSeconds != null && !!spec.prediction.predictionAlgorithm;
}
