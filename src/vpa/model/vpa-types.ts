// The parts of the autoscaling.k8s.io/v1 VerticalPodAutoscaler API the recommender reads and writes,
// as plain JSON shapes (quantities are strings as they appear in the API).

export type ContainerScalingMode = 'Auto' | 'Off';
export type ContainerControlledValues = 'RequestsAndLimits' | 'RequestsOnly';
export type UpdateMode = 'Off' | 'Initial' | 'Recreate' | 'Auto' | 'InPlaceOrRecreate' | 'InPlace';
/** A ResourceList: resource name -> quantity string. */
export type ResourceList = Record<string, string>;

export interface ContainerResourcePolicy {
  containerName?: string;
  mode?: ContainerScalingMode;
  minAllowed?: ResourceList;
  maxAllowed?: ResourceList;
  controlledResources?: string[];
  controlledValues?: ContainerControlledValues;
  /** Alpha, honoured only with the PerVPAConfig feature gate. */
  oomBumpUpRatio?: string;
  oomMinBumpUp?: string;
  memoryAggregationIntervalSeconds?: number;
  memoryAggregationIntervalCount?: number;
}

export interface PodResourcePolicy {
  containerPolicies?: ContainerResourcePolicy[];
}

export interface RecommendedContainerResources {
  containerName: string;
  target: ResourceList;
  lowerBound?: ResourceList;
  upperBound?: ResourceList;
  uncappedTarget?: ResourceList;
}

export interface RecommendedPodResources {
  containerRecommendations?: RecommendedContainerResources[];
}

export interface VerticalPodAutoscaler {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> };
  spec?: {
    targetRef?: { apiVersion?: string; kind?: string; name?: string };
    updatePolicy?: { updateMode?: UpdateMode };
    resourcePolicy?: PodResourcePolicy;
    recommenders?: { name: string }[];
  };
  status?: { recommendation?: RecommendedPodResources };
}

/** Wildcard container name in a resource policy. */
export const DEFAULT_CONTAINER_RESOURCE_POLICY = '*';

/**
 * Upstream GetContainerResourcePolicy: the policy naming the container exactly wins; otherwise the
 * (last) "*" entry; otherwise none.
 */
export function getContainerResourcePolicy(
  containerName: string,
  policy: PodResourcePolicy | null | undefined,
): ContainerResourcePolicy | undefined {
  let defaultPolicy: ContainerResourcePolicy | undefined;
  for (const p of policy?.containerPolicies ?? []) {
    if (p.containerName === containerName) return p;
    if (p.containerName === DEFAULT_CONTAINER_RESOURCE_POLICY) defaultPolicy = p;
  }
  return defaultPolicy;
}
