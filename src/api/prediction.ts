// TimeSeriesPrediction (`prediction.crane.io/v1alpha1`) as Crane defines it (docs/crane-behaviour.md
// §D.1). Written by the prediction controller, read by the adapter's `crane_pod_cpu_usage` provider.
import type { Condition, ObjectMeta } from './meta.ts';

/** The algorithm block shared by an EHPA's spec.prediction and a TSP's metrics (docs/crane-behaviour.md §D.5, §E.1). */
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

export const TSP_GROUP = 'prediction.crane.io';
export const TSP_VERSION = 'v1alpha1';
export const TSP_PLURAL = 'timeseriespredictions';
export const TSP_KIND = 'TimeSeriesPrediction';
export const TSP_API_VERSION = `${TSP_GROUP}/${TSP_VERSION}` as const;

export interface PredictionMetricSpec {
  resourceIdentifier: string;
  type?: 'ResourceQuery' | 'MetricQuery' | 'ExpressionQuery';
  resourceQuery?: 'cpu' | 'memory' | string;
  metricQuery?: { metricName: string; labels?: { key: string; operator: string; value: string[] }[] };
  expressionQuery?: { expression: string };
  algorithm?: PredictionAlgorithm;
}

export interface TspSpec {
  targetRef: { kind: string; namespace?: string; name: string; apiVersion?: string };
  predictionWindowSeconds: number;
  predictionMetrics: PredictionMetricSpec[];
}

/** One forecast point; `value` is Go `%.5f` text, `timestamp` unix seconds. */
export interface PredictionSample {
  value: string;
  timestamp: number;
}

export interface PredictionMetricStatus {
  resourceIdentifier: string;
  ready: boolean;
  /**
   * Ours, not Crane's: set when `auto` mode judged that serving this forecast does not pay against a plain HPA
   * (why, with the replayed figures). The adapter then serves 0 for that metric (the HPA scales on its other metrics); the forecast stays here.
   */
  stepAside?: string;
  prediction?: { labels: { name: string; value: string }[]; samples: PredictionSample[] }[];
}

export interface TspStatus {
  conditions?: Condition[];
  predictionMetrics?: PredictionMetricStatus[];
}

export interface TimeSeriesPrediction {
  apiVersion: `${typeof TSP_GROUP}/${typeof TSP_VERSION}`;
  kind: typeof TSP_KIND;
  metadata: ObjectMeta;
  spec: TspSpec;
  status?: TspStatus;
}
