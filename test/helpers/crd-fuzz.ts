// Hostile cases generated from the CRDs themselves: every tenant-writable field of every CRD in crds/ gets
// its extremes (zero, negative, the schema's largest and one past it, 1e308, 1e-320, NaN/±Inf where a string
// or int-or-string lets them through, empty, 64 KiB, 10,000 items), one field at a time on a valid base
// object, and in pairs where two fields multiply into a size. Because the list is walked from the schemas, a
// field added to a CRD is fuzzed without anyone writing a case for it (test/unit/crd-fuzz.test.ts checks
// that every leaf is reached). Pure: no cluster, no I/O beyond reading crds/.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { mulberry32 } from './seeded-random.ts';

export const CRDS_DIR = fileURLToPath(new URL('../../crds/', import.meta.url));

export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  maxItems?: number;
  maxLength?: number;
  maximum?: number;
  minimum?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  description?: string;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

export interface Crd {
  file: string;
  group: string;
  version: string;
  kind: string;
  plural: string;
  schema: Schema;
  /** With a status subresource, a create's status is dropped: only spec is the tenant's. */
  statusSubresource: boolean;
}

export function loadCrds(dir = CRDS_DIR): Crd[] {
  const out: Crd[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(readFileSync(`${dir}/${file}`, 'utf8'))) {
      const o = doc.toJS() as { kind?: string; spec?: { group: string; names: { kind: string; plural: string }; versions: { name: string; served?: boolean; schema: { openAPIV3Schema: Schema }; subresources?: { status?: unknown } }[] } };
      if (o.kind !== 'CustomResourceDefinition' || !o.spec) continue;
      for (const v of o.spec.versions.filter((x) => x.served !== false)) {
        out.push({ file, group: o.spec.group, version: v.name, kind: o.spec.names.kind, plural: o.spec.names.plural, schema: v.schema.openAPIV3Schema, statusSubresource: v.subresources?.status !== undefined });
      }
    }
  }
  return out;
}

/** What a leaf holds, as far as the fuzzer cares: the schema's type, refined by name, pattern and description. */
export type Semantic =
  | 'integer' | 'number' | 'boolean'
  | 'duration' | 'float' | 'quantity' | 'cron' | 'zone' | 'promql' | 'enum' | 'date-time' | 'selector' | 'text'
  | 'list' | 'map' | 'opaque';

export interface Leaf {
  crd: Crd;
  /** Segments from the object's root; '[]' is a list's item, '{}' a map's value. */
  path: string[];
  schema: Schema;
  semantic: Semantic;
}

export const pathText = (path: readonly string[]) => path.join('.').replace(/\.\[\]/g, '[]').replace(/\.\{\}/g, '{}');

/** The roots a tenant writes: spec, and status when a create keeps it (no status subresource). */
export function tenantRoots(crd: Crd): string[] {
  const props = Object.keys(crd.schema.properties ?? {});
  return props.filter((p) => p === 'spec' || (p === 'status' && !crd.statusSubresource));
}

function classify(s: Schema, path: string[]): Semantic {
  const name = path.filter((p) => p !== '[]' && p !== '{}').at(-1) ?? '';
  const text = `${name} ${s.description ?? ''}`;
  if (s['x-kubernetes-int-or-string']) return 'quantity';
  if (s.type === 'integer') return 'integer';
  if (s.type === 'number') return 'number';
  if (s.type === 'boolean') return 'boolean';
  if (s.type === 'array') return 'list';
  if (s.type === 'object' || s.type === undefined) return s.additionalProperties && typeof s.additionalProperties === 'object' ? 'map' : 'opaque';
  if (s.enum) return 'enum';
  if (s.format === 'date-time') return 'date-time';
  if (s.pattern?.includes('ns|us')) return 'duration';
  if (s.pattern?.includes('[nN][aA][nN]')) return 'float';
  if (/^(start|end)$/.test(name) && path.includes('crons')) return 'cron';
  if (/cron expression/i.test(text) && !/zone/i.test(name)) return 'cron';
  if (/zone/i.test(name)) return 'zone';
  if (/^expression$/.test(name) || /PromQL/.test(s.description ?? '')) return 'promql';
  if (path.some((p) => /selector|labels/i.test(p))) return 'selector';
  return 'text';
}

/** Every tenant-writable leaf of `crd`: scalars, lists (and their items), maps (and their values), opaque objects. */
export function leaves(crd: Crd): Leaf[] {
  const out: Leaf[] = [];
  const walk = (s: Schema, path: string[]) => {
    if (s.properties && Object.keys(s.properties).length) {
      for (const [k, c] of Object.entries(s.properties)) walk(c, [...path, k]);
      return;
    }
    out.push({ crd, path, schema: s, semantic: classify(s, path) });
    if (s.type === 'array' && s.items) walk(s.items, [...path, '[]']);
    else if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(s.additionalProperties, [...path, '{}']);
  };
  for (const root of tenantRoots(crd)) walk(crd.schema.properties![root]!, [root]);
  return out;
}

const KIB64 = 64 * 1024;
const long = (n: number, ch = 'x') => ch.repeat(n);

/** A value and how the case names it in the table. */
interface Extreme {
  label: string;
  value: unknown;
}
const ex = (label: string, value: unknown): Extreme => ({ label, value });

/** The extremes of one leaf. `item` is a valid list item (from the base) for the list sizes. */
function extremes(leaf: Leaf, item: unknown): Extreme[] {
  const s = leaf.schema;
  const strings = (vals: string[]) => vals.map((v) => ex(JSON.stringify(v.length > 40 ? `${v.slice(0, 12)}…(${v.length})` : v), v));
  const lengths = (): Extreme[] => [
    ex('""', ''),
    ...(s.maxLength !== undefined ? [ex(`maxLength ${s.maxLength}`, long(s.maxLength)), ex(`maxLength+1 ${s.maxLength + 1}`, long(s.maxLength + 1))] : []),
    ex('64 KiB', long(KIB64)),
  ];
  switch (leaf.semantic) {
    case 'integer': {
      const out = [ex('0', 0), ex('-1', -1), ex('int32 max', 2_147_483_647), ex('int32 max+1', 2_147_483_648), ex('int32 min-1', -2_147_483_649), ex('2^53', 2 ** 53), ex('1e308', 1e308), ex('1e-320', 1e-320)];
      if (s.maximum !== undefined) out.push(ex(`maximum ${s.maximum}`, s.maximum), ex(`maximum+1`, s.maximum + 1));
      if (s.minimum !== undefined && s.minimum !== 0) out.push(ex(`minimum-1`, s.minimum - 1));
      return out;
    }
    case 'number':
      return [ex('0', 0), ex('-1', -1), ex('1e308', 1e308), ex('-1e308', -1e308), ex('1e-320', 1e-320), ex('max double', Number.MAX_VALUE), ex('"NaN"', 'NaN')];
    case 'boolean':
      return [ex('true', true), ex('false', false), ex('"true"', 'true')];
    case 'duration':
      return [...strings(['', '0', '-1s', '1ns', '0.5s', '-24h', '100000000d', '99999999999999999999999999999h', '2562047h47m16.854775808s', 'NaN', '1e308s']), ...lengths().slice(1)];
    case 'float':
      return [...strings(['', '0', '-1', '-0', 'NaN', 'Inf', '-Inf', '1e308', '1e309', '-1e308', '1e-320', '4.9e-324']), ...lengths().slice(1)];
    case 'quantity':
      return [
        ...strings(['0', '-1', '1e308', '-1e308', '1e-320', '9223372036854775807', '8E', '-8Ei', '0.000000001n', 'NaN', '']),
        ex('number 1e308', 1e308),
        ex('number -1', -1),
        ex('64 KiB digits', long(KIB64, '9')),
      ];
    case 'cron':
      return [...strings(['', '* * * * *', '0 0 30 2 *', '*/0 * * * *', '0 0 * * * * * *', 'CRON_TZ=Nowhere/Zone 0 9 * * *', 'TZ=Etc/GMT+14 59 23 31 12 *', '0-59 0-23 1-31 1-12 0-7']), ...lengths().slice(1)];
    case 'zone':
      return [...strings(['', 'Local', 'Nowhere/Zone', '../../../../etc/passwd', 'Etc/GMT+14']), ...lengths().slice(1)];
    case 'promql':
      return [
        ...strings(['', 'vector(-1)', 'vector(NaN)', 'vector(+Inf)', 'vector(1e308)', 'sum(rate(container_cpu_usage_seconds_total[30d:1s]))', 'count_values("x", up) * 1e308']),
        ...lengths().slice(1),
      ];
    case 'enum':
      return [...strings(['', 'NotInTheEnum']), ...(s.enum ?? []).map((v) => ex(JSON.stringify(v), v))];
    case 'date-time':
      return strings(['', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '1970-01-01T00:00:00Z', 'yesterday']);
    case 'selector':
      return [...strings(['', 'NotAnOperator', 'a/b/c', '!@#$%']), ...lengths().slice(1)];
    case 'text':
      return [...strings(['', '-1', '../../x', 'UPPER lower_space']), ...lengths().slice(1)];
    case 'list': {
      const max = s.maxItems;
      const list = (n: number) => copies(item, n);
      return [
        ex('[]', []),
        ...(max !== undefined ? [ex(`maxItems ${max}`, list(max)), ex(`maxItems+1 ${max + 1}`, list(max + 1))] : []),
        ex('10,000 items', list(10_000)),
      ];
    }
    case 'map':
    case 'opaque': {
      const value = leaf.semantic === 'map' ? (leaf.schema.additionalProperties as Schema).type === 'string' ? 'x' : '1' : 1;
      const keys = (n: number, key: (i: number) => string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [key(i), value]));
      const out = [ex('{}', {}), ex('10,000 keys', keys(10_000, (i) => `k${i}`)), ex('64 KiB key', keys(1, () => long(KIB64)))];
      // Keys a histogram would read as bucket indexes.
      if (/bucket/i.test(leaf.path.at(-1) ?? '')) out.push(ex('bucket 2147483647', { 2147483647: 1 }), ex('bucket -1', { '-1': 1 }), ex('bucket 1e308', { '1e308': 1e308 }));
      return out;
    }
  }
}

export interface FuzzCase {
  /** Stable and unique: "<Kind> <field> = <value label>". */
  id: string;
  crd: Crd;
  /** The leaf paths this case sets (pathText form); one, or two/three for a pair. */
  fields: string[];
  /** Names a condition message should contain (any of them): the set fields' own names. */
  names: string[];
  semantics: Semantic[];
  pair: boolean;
  object: Record<string, unknown>;
}

/** Minimal valid objects per kind; for fields under an algorithm's percentile block, the percentile base. */
export function baseObjects(kind: string): Record<string, unknown>[] {
  const dsp = { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d', estimators: { maxValue: [{ marginFraction: '0.1' }], fft: [{ marginFraction: '0.1', lowAmplitudeThreshold: '1', highFrequencyThreshold: '0.05', minNumOfSpectrumItems: 3, maxNumOfSpectrumItems: 100 }] } } };
  const percentile = { algorithmType: 'percentile', percentile: { sampleInterval: '60s', historyLength: '1d', aggregated: true, percentile: '0.95', marginFraction: '0.1', targetUtilization: '1', minSampleWeight: '0.1', histogram: { maxValue: '100', bucketSize: '0.1', epsilon: '1e-10', halfLife: '12h' } } };
  const expPercentile = { ...percentile, percentile: { ...percentile.percentile, histogram: { maxValue: '100', firstBucketSize: '0.01', bucketSizeGrowthRatio: '1.05', epsilon: '1e-10', halfLife: '12h' } } };
  const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
  switch (kind) {
    case 'EffectiveHorizontalPodAutoscaler': {
      const spec = (algorithm: unknown) => ({
        scaleTargetRef: target,
        minReplicas: 1,
        maxReplicas: 3,
        scaleStrategy: 'Preview',
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
        crons: [{ name: 'c', timezone: 'UTC', description: 'd', start: '0 9 * * *', end: '0 17 * * *', targetReplicas: 2 }],
        behavior: { scaleUp: { policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }], selectPolicy: 'Max', stabilizationWindowSeconds: 0 }, scaleDown: { policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }], selectPolicy: 'Max', stabilizationWindowSeconds: 300 } },
        prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: algorithm },
      });
      return [{ spec: spec(dsp) }, { spec: spec(percentile) }, { spec: spec(expPercentile) }];
    }
    case 'TimeSeriesPrediction': {
      const spec = (algorithm: unknown) => ({
        targetRef: { ...target },
        predictionWindowSeconds: 3600,
        predictionMetrics: [{ resourceIdentifier: 'cpu', type: 'ExpressionQuery', expressionQuery: { expression: 'sum(irate(container_cpu_usage_seconds_total{pod=~"fuzz-.*"}[3m]))' }, algorithm }],
      });
      return [{ spec: spec(dsp) }, { spec: spec(percentile) }, { spec: spec(expPercentile) }];
    }
    case 'VerticalPodAutoscaler':
      return [{
        spec: {
          targetRef: { ...target },
          updatePolicy: { updateMode: 'Off' },
          recommenders: [{ name: 'ehpa-adapter' }],
          resourcePolicy: { containerPolicies: [{ containerName: 'app', mode: 'Auto', minAllowed: { cpu: '10m', memory: '10Mi' }, maxAllowed: { cpu: '2', memory: '2Gi' }, controlledResources: ['cpu', 'memory'], controlledValues: 'RequestsAndLimits' }] },
        },
      }];
    case 'VerticalPodAutoscalerCheckpoint':
      return [{
        spec: { vpaObjectName: 'web', containerName: 'app' },
        status: {
          lastUpdateTime: '2026-01-01T00:00:00Z',
          version: 'v3',
          cpuHistogram: { referenceTimestamp: '2026-01-01T00:00:00Z', bucketWeights: { 1: 10000 }, totalWeight: 1 },
          memoryHistogram: { referenceTimestamp: '2026-01-01T00:00:00Z', bucketWeights: { 1: 10000 }, totalWeight: 1 },
          firstSampleStart: '2026-01-01T00:00:00Z',
          lastSampleStart: '2026-01-01T00:00:00Z',
          totalSamplesCount: 1,
        },
      }];
    case 'Substitute':
      return [{ spec: { substituteTargetRef: { ...target }, replicas: 1 } }];
    default:
      return [{ spec: {} }];
  }
}

/** The value at `path` in `o` ('[]' is the first item), or undefined. */
export function getPath(o: unknown, path: readonly string[]): unknown {
  let cur = o;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (seg === '[]') cur = Array.isArray(cur) ? cur[0] : undefined;
    else if (seg === '{}') cur = Object.values(cur as object)[0];
    else cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/** Sets `path` in `o` to `value`, creating missing objects and first list items on the way. */
export function setPath(o: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let cur: unknown = o;
  for (const [i, seg] of path.entries()) {
    const last = i === path.length - 1;
    const next = path[i + 1];
    const fresh = () => (next === '[]' ? [] : {});
    if (seg === '[]') {
      const a = cur as unknown[];
      if (last) a.splice(0, a.length ? 1 : 0, value);
      else {
        if (a[0] === null || typeof a[0] !== 'object') a[0] = fresh();
        cur = a[0];
      }
    } else if (seg === '{}') {
      const m = cur as Record<string, unknown>;
      const key = Object.keys(m)[0] ?? 'k';
      if (last) m[key] = value;
      else {
        if (m[key] === null || typeof m[key] !== 'object') m[key] = fresh();
        cur = m[key];
      }
    } else {
      const m = cur as Record<string, unknown>;
      if (last) m[seg] = value;
      else {
        if (m[seg] === null || typeof m[seg] !== 'object') m[seg] = fresh();
        cur = m[seg];
      }
    }
  }
}

/** The base a path is best fuzzed on: the percentile bases for percentile fields (exponential layout for its
 *  own fields), else the first. */
function baseFor(kind: string, path: readonly string[]): Record<string, unknown> {
  const bases = baseObjects(kind);
  const t = pathText(path);
  if (/firstBucketSize|bucketSizeGrowthRatio/.test(t)) return structuredClone(bases[2] ?? bases[0]!);
  if (/\.percentile\b/.test(t)) return structuredClone(bases[1] ?? bases[0]!);
  return structuredClone(bases[0]!);
}

/** A valid item for the list at `path`: the base's own first item, else a string or an empty object. */
function itemFor(leaf: Leaf, base: unknown): unknown {
  const own = getPath(base, [...leaf.path, '[]']);
  if (own !== undefined) return own;
  const t = leaf.schema.items?.type;
  return t === 'string' ? 'x' : t === 'integer' || t === 'number' ? 1 : {};
}

/** `n` copies of a list item, each with its own key (name, resourceIdentifier, containerName; a string item
 *  itself), so that a list keyed by them is refused for its length, not for a duplicate. */
export function copies(item: unknown, n: number): unknown[] {
  return Array.from({ length: n }, (_, i) => {
    if (i === 0) return structuredClone(item);
    if (typeof item === 'string') return `${item}${i}`;
    const c = structuredClone(item) as Record<string, unknown>;
    if (c && typeof c === 'object') for (const k of ['name', 'resourceIdentifier', 'containerName']) if (typeof c[k] === 'string') c[k] = `${c[k] as string}-${i}`;
    return c;
  });
}

const fieldName = (path: readonly string[]) => path.filter((p) => p !== '[]' && p !== '{}').at(-1) ?? '';

/** Two (or three) fields whose product is a size: [names of the fields, values of each, in order]. Found in
 *  every CRD by the fields' names, siblings unless `anywhere`. */
export const PAIR_RULES: { names: string[]; anywhere?: boolean; nested?: boolean; values: { label: string; values: unknown[] }[] }[] = [
  {
    names: ['maxValue', 'bucketSize'],
    values: [
      { label: '1e8 / 1', values: ['1e8', '1'] },
      { label: '1e308 / 1e-320', values: ['1e308', '1e-320'] },
      { label: '1e6 / 1e-6', values: ['1e6', '1e-6'] },
      { label: '1 / 1e308', values: ['1', '1e308'] },
    ],
  },
  {
    names: ['maxValue', 'firstBucketSize', 'bucketSizeGrowthRatio'],
    values: [
      { label: '1e308, 1e-320, ×1.0000001', values: ['1e308', '1e-320', '1.0000001'] },
      { label: '1e6, 1e-6, ×1', values: ['1e6', '1e-6', '1'] },
      { label: '1e8, 1, ×1e-320', values: ['1e8', '1', '1e-320'] },
    ],
  },
  {
    names: ['historyLength', 'sampleInterval'],
    values: [
      { label: '90d / 1s', values: ['90d', '1s'] },
      { label: '27h / 1s (97,200 points)', values: ['27h', '1s'] },
      { label: '1s / 3600s', values: ['1s', '3600s'] },
      { label: '100000000d / 1ns', values: ['100000000d', '1ns'] },
    ],
  },
  { names: ['minNumOfSpectrumItems', 'maxNumOfSpectrumItems'], values: [{ label: '1000 / 0', values: [1000, 0] }, { label: '1000 / 1000', values: [1000, 1000] }] },
  {
    names: ['predictionWindowSeconds', 'predictionMetrics'],
    anywhere: true,
    values: [{ label: '86400 × 16 metrics', values: [86_400, 16] }, { label: '86400 × 1 metric', values: [86_400, 1] }],
  },
  { names: ['predictionWindowSeconds', 'metrics'], anywhere: true, values: [{ label: '86400 × 64 metrics', values: [86_400, 64] }] },
  { names: ['matchExpressions', 'values'], anywhere: true, nested: true, values: [{ label: '64 × 64 values', values: [64, 64] }] },
  { names: ['memoryAggregationIntervalSeconds', 'memoryAggregationIntervalCount'], values: [{ label: 'int32 max × 2^62', values: [2_147_483_647, 2 ** 62] }, { label: '1 × 1e6', values: [1, 1_000_000] }] },
  { names: ['bucketWeights', 'totalWeight'], values: [{ label: '10,000 buckets × 1e308', values: [10_000, 1e308] }] },
];

function pairCases(crd: Crd, all: Leaf[]): FuzzCase[] {
  const out: FuzzCase[] = [];
  for (const rule of PAIR_RULES) {
    const byName = rule.names.map((n) => all.filter((l) => fieldName(l.path) === n && l.path.at(-1) !== '[]' && l.path.at(-1) !== '{}'));
    if (byName.some((ls) => ls.length === 0)) continue;
    // Every combination, one leaf per name, that share a parent (or any, for `anywhere`).
    const combos: Leaf[][] = [[]];
    for (const ls of byName) {
      const next: Leaf[][] = [];
      for (const c of combos) for (const l of ls) next.push([...c, l]);
      combos.splice(0, combos.length, ...next);
    }
    for (const combo of combos) {
      const parents = combo.map((l) => pathText(l.path.slice(0, -1)));
      if (!rule.anywhere && new Set(parents).size !== 1) continue;
      // A list nested in another (values in matchExpressions) pairs only with its own outer list.
      if (rule.nested && !pathText(combo[1]!.path).startsWith(`${pathText(combo[0]!.path)}[]`)) continue;
      for (const v of rule.values) {
        const object = baseFor(crd.kind, combo[0]!.path);
        // Deepest first: a count applied to an outer list copies the inner list already set.
        const order = combo.map((l, i) => [l, v.values[i]] as const).sort((a, b) => b[0].path.length - a[0].path.length);
        for (const [leaf, value] of order) {
          if (leaf.semantic === 'list') {
            const item = itemFor(leaf, object);
            setPath(object, leaf.path, copies(item, value as number));
          } else if (leaf.semantic === 'map' || leaf.semantic === 'opaque') {
            setPath(object, leaf.path, Object.fromEntries(Array.from({ length: value as number }, (_, i) => [String(i), 1e308])));
          } else setPath(object, leaf.path, value);
        }
        const fields = combo.map((l) => pathText(l.path));
        out.push({ id: `${crd.kind} ${fields.join(' × ')} = ${v.label}`, crd, fields, names: combo.map((l) => fieldName(l.path)), semantics: combo.map((l) => l.semantic), pair: true, object });
      }
    }
  }
  return out;
}

/** Every case of every CRD in `dir`: single fields, then pairs. */
export function fuzzCases(dir = CRDS_DIR): FuzzCase[] {
  const out: FuzzCase[] = [];
  for (const crd of loadCrds(dir)) {
    const all = leaves(crd);
    for (const leaf of all) {
      const probe = baseFor(crd.kind, leaf.path);
      for (const e of extremes(leaf, itemFor(leaf, probe))) {
        const object = baseFor(crd.kind, leaf.path);
        setPath(object, leaf.path, e.value);
        const field = pathText(leaf.path);
        out.push({ id: `${crd.kind} ${field} = ${e.label}`, crd, fields: [field], names: [fieldName(leaf.path)], semantics: [leaf.semantic], pair: false, object });
      }
    }
    out.push(...pairCases(crd, all));
  }
  const seen = new Set<string>();
  return out.filter((c) => !seen.has(c.id) && seen.add(c.id));
}

/**
 * A deterministic subset of about `size` cases: every pair, one case of every (kind, semantic) and every
 * leaf's first case as far as they fit, then seeded picks.
 */
export function fuzzSample(cases: readonly FuzzCase[], size: number, seed = 43): FuzzCase[] {
  const chosen = new Set<FuzzCase>(cases.filter((c) => c.pair));
  const firstOf = (key: (c: FuzzCase) => string) => {
    const seen = new Set<string>();
    return cases.filter((c) => !c.pair && !seen.has(key(c)) && seen.add(key(c)));
  };
  for (const c of firstOf((c) => `${c.crd.kind} ${c.semantics[0]}`)) chosen.add(c);
  const rand = mulberry32(seed);
  const rest = cases.filter((c) => !chosen.has(c));
  while (chosen.size < size && rest.length) chosen.add(rest.splice(Math.floor(rand() * rest.length), 1)[0]!);
  return cases.filter((c) => chosen.has(c));
}
