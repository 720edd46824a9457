// Generates crds/*.yaml from the schema building blocks: `node --import tsx scripts/gen-crds.ts`.
// A unit test fails when the committed files differ from what this prints, so edit here, not the YAML.
import { writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { BOUNDS } from '../src/api/bounds.ts';
import {
  arr,
  bool,
  boundEverything,
  condition,
  crossVersionObjectReference,
  hpaBehavior,
  int32,
  int64,
  metricSpec,
  obj,
  predictionAlgorithm,
  quantity,
  resourceList,
  root,
  str,
  type Schema,
} from './crd-schemas.ts';
import { cronMetricNameRule, cronScheduleRules, cronTimeZoneRule } from './crane-webhook-rules.ts';

interface CrdInput {
  group: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
  version: string;
  schema: Schema;
  printerColumns?: { name: string; type: string; jsonPath: string; description?: string }[];
  subresources?: Schema;
}

function crd(c: CrdInput): Schema {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${c.plural}.${c.group}`,
      // *.k8s.io groups are protected: upstream VPA carries this approval annotation, so must we.
      ...(c.group.endsWith('.k8s.io') ? { annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/63797' } } : {}),
    },
    spec: {
      group: c.group,
      names: {
        kind: c.kind,
        listKind: `${c.kind}List`,
        plural: c.plural,
        singular: c.singular,
        ...(c.shortNames ? { shortNames: c.shortNames } : {}),
        ...(c.categories ? { categories: c.categories } : {}),
      },
      scope: 'Namespaced',
      versions: [
        {
          name: c.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: c.schema },
          ...(c.subresources ? { subresources: c.subresources } : {}),
          ...(c.printerColumns ? { additionalPrinterColumns: c.printerColumns } : {}),
        },
      ],
    },
  };
}

const age = { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' };

// --- EffectiveHorizontalPodAutoscaler (gocrane/api autoscaling/v1alpha1, docs/crane-behaviour.md §A) 
const cronSpec = obj(
  {
    // Defaulted so it can key the list: two unnamed crons collide, as Crane's webhook also refuses.
    name: str({ default: '', maxLength: BOUNDS.cronNameLength }),
    description: str({ maxLength: BOUNDS.descriptionLength }),
    // Crane's EHPA webhook refuses a zone or schedule Go cannot parse, on create and update: so do these
    // rules (scripts/crane-webhook-rules.ts, docs/crane-behaviour.md §A.4).
    timezone: str({ maxLength: BOUNDS.timeZoneLength, 'x-kubernetes-validations': [cronTimeZoneRule] }),
    start: str({ minLength: 1, maxLength: BOUNDS.cronExpressionLength, 'x-kubernetes-validations': cronScheduleRules('start') }),
    end: str({ minLength: 1, maxLength: BOUNDS.cronExpressionLength, 'x-kubernetes-validations': cronScheduleRules('end') }),
    targetReplicas: int32({ minimum: 0 }),
  },
  ['start', 'end'],
);

// Defaults for fields with no bound of their own (boundEverything): a Kubernetes name's length, and a
// list size no EHPA or TSP needs.
const DEFAULT_MAX_LENGTH = BOUNDS.nameLength;
const DEFAULT_MAX_ITEMS = 64;

const predictionWindowSeconds = (extra = {}) => int32({ minimum: BOUNDS.predictionWindowSeconds.min, maximum: BOUNDS.predictionWindowSeconds.max, ...extra });

const ehpaSpec = boundEverything(obj(
  {
    // The same bounds the controller applies (src/ehpa/validation.ts), so admission and run time agree.
    scaleTargetRef: obj(
      {
        apiVersion: str({ maxLength: BOUNDS.apiVersionLength }),
        kind: str({ maxLength: BOUNDS.kindLength }),
        name: str({ maxLength: BOUNDS.nameLength }),
      },
      ['kind', 'name'],
    ),
    minReplicas: int32({ default: 1, minimum: 0 }),
    maxReplicas: int32({ minimum: 1 }),
    scaleStrategy: str({ default: 'Auto', enum: ['Auto', 'Preview'] }),
    specificReplicas: int32({ minimum: 0 }),
    metrics: arr(metricSpec(), { 'x-kubernetes-list-type': 'atomic' }),
    crons: arr(cronSpec, { maxItems: BOUNDS.crons, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-validations': [cronMetricNameRule] }),
    behavior: hpaBehavior(),
    prediction: obj({
      predictionWindowSeconds: predictionWindowSeconds({ default: 3600 }),
      predictionAlgorithm: predictionAlgorithm(),
    }),
  },
  ['scaleTargetRef', 'maxReplicas'],
  {
    'x-kubernetes-validations': [
      { rule: '!has(self.minReplicas) || self.minReplicas <= self.maxReplicas', message: 'minReplicas must not be greater than maxReplicas' },
    ],
  },
), DEFAULT_MAX_LENGTH, DEFAULT_MAX_ITEMS);

const ehpaStatus = obj({
  expectReplicas: int32(),
  currentReplicas: int32(),
  lastScaleTime: str({ format: 'date-time' }),
  conditions: arr(condition(), { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
});

const ehpa = crd({
  group: 'autoscaling.crane.io',
  kind: 'EffectiveHorizontalPodAutoscaler',
  plural: 'effectivehorizontalpodautoscalers',
  singular: 'effectivehorizontalpodautoscaler',
  shortNames: ['ehpa'],
  version: 'v1alpha1',
  schema: root(ehpaSpec, ehpaStatus, 'EffectiveHorizontalPodAutoscaler scales a workload on observed, predicted and cron metrics through a backing HPA.'),
  subresources: { status: {} },
  printerColumns: [
    { name: 'STRATEGY', type: 'string', jsonPath: '.spec.scaleStrategy', description: 'The scale strategy of the EHPA.' },
    { name: 'MINPODS', type: 'integer', jsonPath: '.spec.minReplicas' },
    { name: 'MAXPODS', type: 'integer', jsonPath: '.spec.maxReplicas' },
    { name: 'SPECIFICPODS', type: 'integer', jsonPath: '.spec.specificReplicas' },
    { name: 'REPLICAS', type: 'integer', jsonPath: '.status.expectReplicas', description: 'The desired replicas computed by the backing HPA.' },
    age,
  ],
});

// --- Substitute (Preview's stand-in scale target, docs/crane-behaviour.md §B.5) ---------------------
const substitute = crd({
  group: 'autoscaling.crane.io',
  kind: 'Substitute',
  plural: 'substitutes',
  singular: 'substitute',
  shortNames: ['subs'],
  version: 'v1alpha1',
  schema: root(
    obj({ substituteTargetRef: crossVersionObjectReference(), replicas: int32({ minimum: 0 }) }, ['substituteTargetRef']),
    obj({ labelSelector: str(), replicas: int32() }),
    'Substitute is the scale target of a Preview EHPA\'s HPA: it mirrors the real workload so the HPA computes replicas without acting.',
  ),
  subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' } },
  printerColumns: [
    { name: 'TARGET', type: 'string', jsonPath: '.spec.substituteTargetRef.name' },
    { name: 'REPLICAS', type: 'integer', jsonPath: '.status.replicas' },
    age,
  ],
});

// --- TimeSeriesPrediction (gocrane/api prediction/v1alpha1, docs/crane-behaviour.md §D.1) ----------
const predictionMetric = obj(
  {
    resourceIdentifier: str({ minLength: 1, maxLength: BOUNDS.metricNameLength }),
    type: str({ enum: ['ResourceQuery', 'MetricQuery', 'ExpressionQuery'] }),
    resourceQuery: str(),
    metricQuery: obj({ metricName: str(), labels: arr(obj({ key: str(), operator: str(), value: arr(str()) }, ['key', 'operator', 'value'])) }, ['metricName']),
    expressionQuery: obj({ expression: str({ maxLength: BOUNDS.promqlLength }) }),
    algorithm: predictionAlgorithm(),
  },
  ['resourceIdentifier'],
  {
    'x-kubernetes-validations': [
      // Crane's TSP webhook refuses these on create (docs/crane-behaviour.md §A.4); a metric without its query
      // cannot be predicted, so they hold on update too.
      { rule: "!has(self.type) || self.type != 'ExpressionQuery' || has(self.expressionQuery)", message: 'type ExpressionQuery needs expressionQuery: no query is specified for this metric' },
      { rule: "!has(self.type) || self.type != 'ResourceQuery' || has(self.resourceQuery)", message: 'type ResourceQuery needs resourceQuery: no query is specified for this metric' },
      { rule: "!has(self.type) || self.type != 'MetricQuery' || has(self.metricQuery)", message: 'type MetricQuery needs metricQuery: no query is specified for this metric' },
    ],
  },
);

const tsp = crd({
  group: 'prediction.crane.io',
  kind: 'TimeSeriesPrediction',
  plural: 'timeseriespredictions',
  singular: 'timeseriesprediction',
  shortNames: ['tsp'],
  version: 'v1alpha1',
  schema: root(
    boundEverything(
      obj(
        {
          targetRef: obj(
            {
              apiVersion: str({ maxLength: BOUNDS.apiVersionLength }),
              kind: str({ maxLength: BOUNDS.kindLength }),
              name: str({ minLength: 1, maxLength: BOUNDS.nameLength }),
              namespace: str({ maxLength: BOUNDS.nameLength }),
              uid: str(),
              resourceVersion: str(),
              fieldPath: str(),
            },
            ['name'],
          ),
          predictionWindowSeconds: predictionWindowSeconds(),
          predictionMetrics: arr(predictionMetric, { minItems: 1, maxItems: BOUNDS.predictionMetrics, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['resourceIdentifier'] }),
        },
        ['targetRef', 'predictionMetrics'],
      ),
      DEFAULT_MAX_LENGTH,
      DEFAULT_MAX_ITEMS,
    ),
    obj({
      conditions: arr(condition(), { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
      predictionMetrics: arr(
        obj({
          resourceIdentifier: str(),
          ready: bool(),
          stepAside: str({ maxLength: 1024 }),
          prediction: arr(
            obj({
              labels: arr(obj({ name: str(), value: str() }, ['name', 'value'])),
              samples: arr(obj({ value: str(), timestamp: int64() }, ['value', 'timestamp'])),
            }),
          ),
        }),
      ),
    }),
    'TimeSeriesPrediction asks for a forecast of metrics of a target; the controller writes it into status.',
  ),
  subresources: { status: {} },
  printerColumns: [
    { name: 'TargetRefName', type: 'string', jsonPath: '.spec.targetRef.name' },
    { name: 'TargetRefKind', type: 'string', jsonPath: '.spec.targetRef.kind' },
    { name: 'PredictionWindowSeconds', type: 'string', jsonPath: '.spec.predictionWindowSeconds' },
    age,
  ],
});

// --- VerticalPodAutoscaler and its checkpoints (autoscaling.k8s.io/v1, docs/vpa-recommender.md §5) --
const containerPolicy = obj({
  containerName: str(),
  mode: str({ enum: ['Auto', 'Off'] }),
  minAllowed: resourceList(),
  maxAllowed: resourceList(),
  controlledResources: arr(str()),
  controlledValues: str({ enum: ['RequestsAndLimits', 'RequestsOnly'] }),
  oomBumpUpRatio: quantity(),
  oomMinBumpUp: quantity(),
  memoryAggregationIntervalSeconds: int32(),
  memoryAggregationIntervalCount: int64(),
  startupBoost: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
});

const recommendedContainer = obj(
  { containerName: str(), target: resourceList(), lowerBound: resourceList(), upperBound: resourceList(), uncappedTarget: resourceList() },
  ['target'],
);

const vpa = crd({
  group: 'autoscaling.k8s.io',
  kind: 'VerticalPodAutoscaler',
  plural: 'verticalpodautoscalers',
  singular: 'verticalpodautoscaler',
  shortNames: ['vpa'],
  version: 'v1',
  schema: root(
    obj(
      {
        targetRef: crossVersionObjectReference(),
        updatePolicy: obj({
          updateMode: str({ enum: ['Off', 'Initial', 'Recreate', 'Auto', 'InPlaceOrRecreate', 'InPlace'] }),
          minReplicas: int32(),
          evictAfterOOMSeconds: int32(),
          evictionRequirements: arr(obj({ resources: arr(str()), changeRequirement: str({ enum: ['TargetHigherThanRequests', 'TargetLowerThanRequests'] }) }, ['resources', 'changeRequirement'])),
        }),
        resourcePolicy: obj({ containerPolicies: arr(containerPolicy) }),
        recommenders: arr(obj({ name: str() }, ['name'])),
        startupBoost: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
      ['targetRef'],
      // Upstream adds alpha fields often; keep them rather than reject a manifest written for a newer VPA.
      { 'x-kubernetes-preserve-unknown-fields': true },
    ),
    obj({
      recommendation: obj({ containerRecommendations: arr(recommendedContainer) }),
      conditions: arr(obj({ type: str(), status: str(), lastTransitionTime: str({ format: 'date-time' }), reason: str(), message: str() }, ['type', 'status'])),
      observedGeneration: int64(),
    }),
    'VerticalPodAutoscaler: resource recommendations for the containers of a workload.',
  ),
  subresources: { status: {} },
  printerColumns: [
    { name: 'Mode', type: 'string', jsonPath: '.spec.updatePolicy.updateMode' },
    { name: 'CPU', type: 'string', jsonPath: '.status.recommendation.containerRecommendations[0].target.cpu' },
    { name: 'Mem', type: 'string', jsonPath: '.status.recommendation.containerRecommendations[0].target.memory' },
    { name: 'Provided', type: 'string', jsonPath: ".status.conditions[?(@.type=='RecommendationProvided')].status" },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});

const histogram = obj({
  referenceTimestamp: { type: 'string', format: 'date-time', nullable: true },
  bucketWeights: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  totalWeight: { type: 'number' },
});

const vpaCheckpoint = crd({
  group: 'autoscaling.k8s.io',
  kind: 'VerticalPodAutoscalerCheckpoint',
  plural: 'verticalpodautoscalercheckpoints',
  singular: 'verticalpodautoscalercheckpoint',
  shortNames: ['vpacheckpoint'],
  version: 'v1',
  schema: root(
    obj({ vpaObjectName: str(), containerName: str() }),
    obj({
      lastUpdateTime: { type: 'string', format: 'date-time', nullable: true },
      version: str(),
      cpuHistogram: histogram,
      memoryHistogram: histogram,
      firstSampleStart: { type: 'string', format: 'date-time', nullable: true },
      lastSampleStart: { type: 'string', format: 'date-time', nullable: true },
      totalSamplesCount: { type: 'integer' },
    }),
    'VerticalPodAutoscalerCheckpoint: the recommender state of one container of a VPA, for restarts.',
  ),
});

export const CRDS: Record<string, Schema> = {
  'autoscaling.crane.io_effectivehorizontalpodautoscalers.yaml': ehpa,
  'autoscaling.crane.io_substitutes.yaml': substitute,
  'prediction.crane.io_timeseriespredictions.yaml': tsp,
  'autoscaling.k8s.io_verticalpodautoscalers.yaml': vpa,
  'autoscaling.k8s.io_verticalpodautoscalercheckpoints.yaml': vpaCheckpoint,
};

export function renderCrd(doc: Schema): string {
  return `# Generated by scripts/gen-crds.ts; edit the generator, not this file.\n${stringify(doc, { lineWidth: 0 })}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = fileURLToPath(new URL('../crds/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  for (const [file, doc] of Object.entries(CRDS)) writeFileSync(dir + file, renderCrd(doc));
  console.log(`wrote ${Object.keys(CRDS).length} CRDs to crds/`);
}
