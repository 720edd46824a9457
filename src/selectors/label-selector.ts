// Kubernetes label selectors as the HPA and kubectl send them (apimachinery labels.Parse; grammar in
// docs/metrics-api.md §2.2): `key`, `!key`, `key=v`, `key==v`, `key!=v`, `key in (a,b)`,
// `key notin (a,b)`, `key>N`, `key<N`, comma-separated. Bad text is a SelectorError (a 400 for the client).

export class SelectorError extends Error {
  override name = 'SelectorError';
}

export type Operator = 'exists' | 'notexists' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface Requirement {
  key: string;
  op: Operator;
  values: string[];
}

export interface LabelSelector {
  requirements: Requirement[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The exact-match value of `key` (from `key=v`, `key==v` or `key in (v)`), if the selector pins one. */
  exactValue(key: string): string | undefined;
  /** metav1.LabelSelector form, echoed in custom metric items. */
  toLabelSelector(): { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | null;
  readonly empty: boolean;
}

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

function checkKey(key: string): void {
  const slash = key.indexOf('/');
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix))) {
    throw new SelectorError(`invalid label key "${key}": prefix must be a DNS subdomain`);
  }
  if (!NAME.test(name)) throw new SelectorError(`invalid label key "${key}": name part must be 63 characters or less, alphanumeric, '-', '_' or '.', starting and ending alphanumeric`);
}

function checkValue(value: string): void {
  if (value.length > 63 || !VALUE.test(value)) throw new SelectorError(`invalid label value "${value}": must be 63 characters or less, alphanumeric, '-', '_' or '.', starting and ending alphanumeric`);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits, within int64; else undefined. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** Splits on commas that are not inside parentheses. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth < 0) throw new SelectorError(`unbalanced ")" in selector "${text}"`);
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (depth !== 0) throw new SelectorError(`unbalanced "(" in selector "${text}"`);
  out.push(cur);
  return out;
}

function parseRequirement(raw: string, whole: string): Requirement {
  const text = raw.trim();
  if (text === '') throw new SelectorError(`empty requirement in selector "${whole}"`);
  let m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(text);
  if (m) {
    const key = m[1] as string;
    checkKey(key);
    // "()" is the one-value set {""} (Parser.parseValues), so `a in ()` selects exactly a="".
    const values = (m[3] as string).split(',').map((v) => v.trim());
    for (const v of values) checkValue(v);
    return { key, op: m[2] as 'in' | 'notin', values };
  }
  if (text.startsWith('!')) {
    const key = text.slice(1).trim();
    checkKey(key);
    return { key, op: 'notexists', values: [] };
  }
  m = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(.*)$/.exec(text);
  if (m) {
    const key = m[1] as string;
    checkKey(key);
    const value = (m[3] as string).trim();
    const op = m[2] as string;
    if (op === '>' || op === '<') {
      // NewRequirement: the value must parse as an int64 and be a valid label value (so no sign).
      if (parseInt64(value) === undefined) throw new SelectorError(`"${text}": ${op} needs an integer value`);
      checkValue(value);
      return { key, op: op === '>' ? 'gt' : 'lt', values: [value] };
    }
    checkValue(value);
    return { key, op: op === '!=' ? '!=' : '=', values: [value] };
  }
  if (/^\S+$/.test(text)) {
    checkKey(text);
    return { key: text, op: 'exists', values: [] };
  }
  throw new SelectorError(`unable to parse requirement "${text}" in selector "${whole}"`);
}

function matchOne(r: Requirement, labels: Readonly<Record<string, string>> | undefined): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = has ? (labels as Record<string, string>)[r.key] : undefined;
  switch (r.op) {
    case 'exists':
      return has;
    case 'notexists':
      return !has;
    case '=':
      return has && v === r.values[0];
    case '!=':
      return !has || v !== r.values[0];
    case 'in':
      return has && r.values.includes(v as string);
    case 'notin':
      return !has || !r.values.includes(v as string);
    case 'gt':
    case 'lt': {
      // strconv.ParseInt(v, 10, 64) on both sides: exact beyond 2^53, a sign allowed, out of range never matches.
      const a = has ? parseInt64(v as string) : undefined;
      const b = parseInt64(r.values[0] as string);
      if (a === undefined || b === undefined) return false;
      return r.op === 'gt' ? a > b : a < b;
    }
  }
}

class ParsedSelector implements LabelSelector {
  constructor(readonly requirements: Requirement[]) {}
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    for (const r of this.requirements) if (!matchOne(r, labels)) return false;
    return true;
  }
  exactValue(key: string): string | undefined {
    for (const r of this.requirements) {
      if (r.key === key && (r.op === '=' || (r.op === 'in' && r.values.length === 1))) return r.values[0];
    }
    return undefined;
  }
  toLabelSelector() {
    if (this.empty) return null;
    const matchLabels: Record<string, string> = {};
    const matchExpressions: { key: string; operator: string; values?: string[] }[] = [];
    for (const r of this.requirements) {
      if (r.op === '=') matchLabels[r.key] = r.values[0] as string;
      else if (r.op === 'exists') matchExpressions.push({ key: r.key, operator: 'Exists' });
      else if (r.op === 'notexists') matchExpressions.push({ key: r.key, operator: 'DoesNotExist' });
      else if (r.op === 'in') matchExpressions.push({ key: r.key, operator: 'In', values: r.values });
      else if (r.op === 'notin' || r.op === '!=') matchExpressions.push({ key: r.key, operator: 'NotIn', values: r.values });
      // gt/lt have no metav1.LabelSelector form; they still filter, they are just not echoed.
    }
    return {
      ...(Object.keys(matchLabels).length ? { matchLabels } : {}),
      ...(matchExpressions.length ? { matchExpressions } : {}),
    };
  }
}

/** Parses selector text; absent or blank means "everything". */
export function parseLabelSelector(text: string | undefined | null): LabelSelector {
  if (text === undefined || text === null || text.trim() === '') return new ParsedSelector([]);
  if (text.length > 10_000) throw new SelectorError('selector is longer than 10000 characters');
  return new ParsedSelector(splitTop(text).map((r) => parseRequirement(r, text)));
}

/** A selector built from exact matches (e.g. a workload's matchLabels). */
export function selectorFromLabels(labels: Record<string, string>): LabelSelector {
  return new ParsedSelector(Object.entries(labels).map(([key, v]) => ({ key, op: '=' as const, values: [v] })));
}

/** metav1.LabelSelector as the API server stores it in a workload's `spec.selector`. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/**
 * The string form the API server reports in a `/scale` subresource's `status.selector`:
 * metav1.LabelSelectorAsSelector(s).String() (k8s.io/apimachinery v0.34 pkg/apis/meta/v1/helpers.go and
 * pkg/labels/selector.go). Requirements are sorted by key (Selector.Add sorts them; matchLabels first where
 * a key appears in both, which Go leaves to its unstable sort); `in`/`notin` values are sorted; Exists is
 * `key`, DoesNotExist `!key`. An empty or absent selector is "". Throws on an operator Go refuses.
 */
export function formatLabelSelector(s: LabelSelectorObject | null | undefined): string {
  const parts: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(s?.matchLabels ?? {})) parts.push({ key: k, text: `${k}=${v}` });
  for (const e of s?.matchExpressions ?? []) {
    const vals = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') parts.push({ key: e.key, text: `${e.key} in (${vals})` });
    else if (e.operator === 'NotIn') parts.push({ key: e.key, text: `${e.key} notin (${vals})` });
    else if (e.operator === 'Exists') parts.push({ key: e.key, text: e.key });
    else if (e.operator === 'DoesNotExist') parts.push({ key: e.key, text: `!${e.key}` });
    else throw new SelectorError(`unknown label selector operator "${e.operator}"`);
  }
  return parts
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((p) => p.text)
    .join(',');
}
