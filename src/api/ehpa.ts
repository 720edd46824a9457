// EffectiveHorizontalPodAutoscaler (`autoscaling.crane.io/v1alpha1`) as Crane defines it, so Crane's
// manifests apply unchanged (docs/crane-behaviour.md §A). Shared by the controller and the adapter.
import type { V2MetricSpec, V2HorizontalPodAutoscalerBehavior } from '@kubernetes/client-node';

export const EHPA_GROUP = 'autoscaling.crane.io';
export const EHPA_VERSION = 'v1alpha1';
export const EHPA_PLURAL = 'effectivehorizontalpodautoscalers';
export const EHPA_KIND = 'EffectiveHorizontalPodAutoscaler';
/** Label Crane puts on the backing HPA and uses as the Pods metric selector (§B.2, §C.3). */
export const EHPA_UID_LABEL = 'autoscaling.crane.io/effective-hpa-uid';

export type ScaleStrategy = 'Auto' | 'Preview';

export interface CrossVersionObjectReference {
  apiVersion?: string;
  kind: string;
  name: string;
}

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

export interface DspEstimators {
  maxValue?: { marginFraction?: string }[];
  fft?: {
    marginFraction?: string;
    lowAmplitudeThreshold?: string;
    highFrequencyThreshold?: string;
    minNumOfSpectrumItems?: number;
    maxNumOfSpectrumItems?: number;
  }[];
}

export interface DspSpec {
  sampleInterval?: string;
  historyLength?: string;
  estimators?: DspEstimators;
}

export interface PercentileSpec {
  aggregated?: boolean;
  historyLength?: string;
  sampleInterval?: string;
  minSampleWeight?: string;
  marginFraction?: string;
  percentile?: string;
  targetUtilization?: string;
  histogram?: {
    maxValue?: string;
    epsilon?: string;
    halfLife?: string;
    bucketSize?: string;
    firstBucketSize?: string;
    bucketSizeGrowthRatio?: string;
  };
}

export interface PredictionAlgorithm {
  algorithmType?: 'dsp' | 'percentile' | string;
  dsp?: DspSpec;
  percentile?: PercentileSpec;
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

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface EhpaStatus {
  expectReplicas?: number;
  currentReplicas?: number;
  lastScaleTime?: string;
  conditions?: Condition[];
}

export interface ObjectMeta {
  name: string;
  namespace: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  ownerReferences?: {
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
    controller?: boolean;
    blockOwnerDeletion?: boolean;
  }[];
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
