// Building blocks of our CRDs' OpenAPI v3 schemas, written once and reused, shaped after the upstream
// Kubernetes types (autoscaling/v2 MetricSpec, metav1.Condition, LabelSelector, ...) so that manifests
// written for Crane and for the upstream VPA validate unchanged (also under kubectl's strict field
// validation). `scripts/gen-crds.ts` turns them into crds/*.yaml.

export type Schema = Record<string, unknown>;

export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const int32 = (extra: Schema = {}): Schema => ({ type: 'integer', format: 'int32', ...extra });
export const int64 = (extra: Schema = {}): Schema => ({ type: 'integer', format: 'int64', ...extra });
export const bool = (): Schema => ({ type: 'boolean' });
export const arr = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
export const obj = (properties: Record<string, Schema>, required: string[] = [], extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  ...extra,
});

/** resource.Quantity: int-or-string with apimachinery's pattern. */
export const quantity = (): Schema => ({
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  'x-kubernetes-int-or-string': true,
});

export const resourceList = (): Schema => ({ type: 'object', additionalProperties: quantity() });

export const labelSelector = (): Schema =>
  obj(
    {
      matchExpressions: arr(obj({ key: str(), operator: str(), values: arr(str(), { 'x-kubernetes-list-type': 'atomic' }) }, ['key', 'operator']), {
        'x-kubernetes-list-type': 'atomic',
      }),
      matchLabels: { type: 'object', additionalProperties: str() },
    },
    [],
    { 'x-kubernetes-map-type': 'atomic' },
  );

export const crossVersionObjectReference = (): Schema => obj({ apiVersion: str(), kind: str(), name: str() }, ['kind', 'name']);

const metricIdentifier = () => obj({ name: str(), selector: labelSelector() }, ['name']);
const metricTarget = () =>
  obj({ type: str(), value: quantity(), averageValue: quantity(), averageUtilization: int32() }, ['type']);

/** autoscaling/v2 MetricSpec. */
export const metricSpec = (): Schema =>
  obj(
    {
      type: str(),
      resource: obj({ name: str(), target: metricTarget() }, ['name', 'target']),
      containerResource: obj({ name: str(), container: str(), target: metricTarget() }, ['container', 'name', 'target']),
      pods: obj({ metric: metricIdentifier(), target: metricTarget() }, ['metric', 'target']),
      object: obj({ describedObject: crossVersionObjectReference(), metric: metricIdentifier(), target: metricTarget() }, ['describedObject', 'metric', 'target']),
      external: obj({ metric: metricIdentifier(), target: metricTarget() }, ['metric', 'target']),
    },
    ['type'],
  );

const scalingRules = () =>
  obj({
    policies: arr(obj({ type: str(), value: int32(), periodSeconds: int32() }, ['type', 'value', 'periodSeconds']), { 'x-kubernetes-list-type': 'atomic' }),
    selectPolicy: str(),
    stabilizationWindowSeconds: int32(),
  });

export const hpaBehavior = (): Schema => obj({ scaleUp: scalingRules(), scaleDown: scalingRules() });

/** metav1.Condition, with its validation. */
export const condition = (): Schema =>
  obj(
    {
      type: str({ maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' }),
      status: str({ enum: ['True', 'False', 'Unknown'] }),
      observedGeneration: int64({ minimum: 0 }),
      lastTransitionTime: str({ format: 'date-time' }),
      reason: str({ maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
      message: str({ maxLength: 32768 }),
    },
    ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
  );

/** Crane's PredictionAlgorithm (numbers as strings, docs/crane-behaviour.md §A.1). */
export const predictionAlgorithm = (): Schema =>
  obj({
    algorithmType: str(),
    dsp: obj({
      sampleInterval: str(),
      historyLength: str(),
      estimators: obj({
        maxValue: arr(obj({ marginFraction: str() })),
        fft: arr(
          obj({
            marginFraction: str(),
            lowAmplitudeThreshold: str(),
            highFrequencyThreshold: str(),
            minNumOfSpectrumItems: int32(),
            maxNumOfSpectrumItems: int32(),
          }),
        ),
      }),
    }),
    percentile: obj({
      aggregated: bool(),
      historyLength: str(),
      sampleInterval: str(),
      minSampleWeight: str(),
      marginFraction: str(),
      percentile: str(),
      targetUtilization: str(),
      histogram: obj({
        maxValue: str(),
        epsilon: str(),
        halfLife: str(),
        bucketSize: str(),
        firstBucketSize: str(),
        bucketSizeGrowthRatio: str(),
      }),
    }),
  });

/** Standard apiVersion/kind/metadata around a spec and status. */
export const root = (spec: Schema, status: Schema, description: string): Schema =>
  obj({ apiVersion: str(), kind: str(), metadata: { type: 'object' }, spec, status }, [], { description });
