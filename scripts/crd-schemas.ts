// Building blocks of our CRDs' OpenAPI v3 schemas, written once and reused, shaped after the upstream
// Kubernetes types (autoscaling/v2 MetricSpec, metav1.Condition, LabelSelector, ...) so that manifests
// written for Crane and for the upstream VPA validate unchanged (also under kubectl's strict field
// validation). `scripts/gen-crds.ts` turns them into crds/*.yaml.

import { BOUNDS } from '../src/api/bounds.ts';
import { DEFAULT_DSP_SETTINGS, DEFAULT_PERCENTILE_SETTINGS } from '../src/prediction/crane-config.ts';

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

// Crane's duration strings: "<N>d" or a Go duration, "" meaning the default. The apiserver checks the
// pattern with Go's regexp (RE2, linear time); the CEL rules below then bound the value in seconds.
const GO_DURATION = '[+-]?(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+|[+-]?0';
const durationStr = (): Schema => str({ maxLength: BOUNDS.durationStringLength, pattern: `^(|[0-9]+d|${GO_DURATION})$` });
/** strconv.ParseFloat decimal syntax, "" meaning the default. */
const floatStr = (): Schema =>
  str({ maxLength: BOUNDS.floatStringLength, pattern: '^(|[+-]?(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?|[iI][nN][fF]([iI][nN][iI][tT][yY])?|[nN][aA][nN]))$' });

/** CEL: the seconds a duration field of `self` holds ("Nd" or a Go duration). Only used behind the
 *  pattern above and a non-empty check, so int() and duration() always parse. */
const seconds = (f: string) => `(self.${f}.endsWith('d') ? int(self.${f}.substring(0, self.${f}.size() - 1)) * 86400 : duration(self.${f}).getSeconds())`;
const set = (f: string) => `has(self.${f}) && self.${f} != ''`;

/** The bounds of api/bounds.ts on one algorithm block's interval and history, as CEL rules; an unset
 *  field counts as Crane's default for the block (what will run). */
const historyRules = (defaults: { intervalSeconds: number; historySeconds: number }): Schema[] => {
  const { min, max } = BOUNDS.sampleIntervalSeconds;
  const intervalS = `(${set('sampleInterval')} ? duration(self.sampleInterval).getSeconds() : ${defaults.intervalSeconds})`;
  const historyS = `(${set('historyLength')} ? ${seconds('historyLength')} : ${defaults.historySeconds})`;
  const badInterval = `(${set('sampleInterval')} && (self.sampleInterval.endsWith('d') || duration(self.sampleInterval) < duration('${min}s')))`;
  return [
    {
      rule: `!(${set('sampleInterval')}) || (!self.sampleInterval.endsWith('d') && duration(self.sampleInterval) >= duration('${min}s') && duration(self.sampleInterval) <= duration('${max}s'))`,
      message: `sampleInterval must be from ${min}s to ${max}s`,
    },
    { rule: `!(${set('historyLength')}) || ${seconds('historyLength')} <= ${BOUNDS.historyLengthSeconds.max}`, message: `historyLength must be at most ${BOUNDS.historyLengthSeconds.max / 86_400}d` },
    { rule: `${badInterval} || ${historyS} <= ${BOUNDS.historyPoints} * ${intervalS}`, message: `historyLength / sampleInterval must be at most ${BOUNDS.historyPoints} points` },
  ];
};

/** Crane's PredictionAlgorithm (numbers as strings, docs/crane-behaviour.md §A.1), with our bounds. */
export const predictionAlgorithm = (): Schema =>
  obj({
    algorithmType: str({ maxLength: 32 }),
    dsp: obj(
      {
        sampleInterval: durationStr(),
        historyLength: durationStr(),
        estimators: obj({
          maxValue: arr(obj({ marginFraction: floatStr() }), { maxItems: BOUNDS.estimatorsPerKind }),
          fft: arr(
            obj({
              marginFraction: floatStr(),
              lowAmplitudeThreshold: floatStr(),
              highFrequencyThreshold: floatStr(),
              minNumOfSpectrumItems: int32({ minimum: 0, maximum: BOUNDS.spectrumItems.max }),
              maxNumOfSpectrumItems: int32({ minimum: 0, maximum: BOUNDS.spectrumItems.max }),
            }),
            { maxItems: BOUNDS.estimatorsPerKind },
          ),
        }),
      },
      [],
      { 'x-kubernetes-validations': historyRules(DEFAULT_DSP_SETTINGS) },
    ),
    percentile: obj(
      {
        aggregated: bool(),
        historyLength: durationStr(),
        sampleInterval: durationStr(),
        minSampleWeight: floatStr(),
        marginFraction: floatStr(),
        percentile: floatStr(),
        targetUtilization: floatStr(),
        histogram: obj(
          {
            maxValue: floatStr(),
            epsilon: floatStr(),
            halfLife: durationStr(),
            bucketSize: floatStr(),
            firstBucketSize: floatStr(),
            bucketSizeGrowthRatio: floatStr(),
          },
          [],
          { 'x-kubernetes-validations': [{ rule: `!(${set('halfLife')}) || ${seconds('halfLife')} <= ${BOUNDS.halfLifeSeconds.max}`, message: `halfLife must be at most ${BOUNDS.halfLifeSeconds.max / 86_400}d` }] },
        ),
      },
      [],
      { 'x-kubernetes-validations': historyRules(DEFAULT_PERCENTILE_SETTINGS) },
    ),
  });

/** Every string and list in a spec gets a bound, so no field is left unlimited by oversight: strings that
 *  have none get `maxLength`, lists `maxItems` (explicit bounds set where the schema is written win). */
export function boundEverything(schema: Schema, maxLength: number, maxItems: number): Schema {
  const out: Schema = { ...schema };
  if (out.type === 'string' && out.maxLength === undefined && out.enum === undefined && out.format === undefined) out.maxLength = maxLength;
  if (out.type === 'array' && out.maxItems === undefined) out.maxItems = maxItems;
  if (out.items) out.items = boundEverything(out.items as Schema, maxLength, maxItems);
  if (out.properties) {
    out.properties = Object.fromEntries(Object.entries(out.properties as Record<string, Schema>).map(([k, v]) => [k, boundEverything(v, maxLength, maxItems)]));
  }
  if (out.additionalProperties && typeof out.additionalProperties === 'object') out.additionalProperties = boundEverything(out.additionalProperties as Schema, maxLength, maxItems);
  return out;
}

/** Standard apiVersion/kind/metadata around a spec and status. */
export const root = (spec: Schema, status: Schema, description: string): Schema =>
  obj({ apiVersion: str(), kind: str(), metadata: { type: 'object' }, spec, status }, [], { description });
