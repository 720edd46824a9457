// The `recommend` command's input: one JSON object per line, a CPU sample, a memory sample or an OOM.
import { parseInstant, type Instant } from '../gomath/go-time.ts';
import { cpuAmountFromCores, memoryAmountFromBytes, type ResourceAmount } from './model/resource-amount.ts';
import type { Labels } from './model/cluster-state.ts';

export interface UsageEvent {
  time: Instant;
  container: string;
  /** Defaults to "pod". */
  pod: string;
  /** Pod labels, taken when the pod is first seen (pods with equal labels share aggregates). */
  labels: Labels;
  kind: 'cpu' | 'memory' | 'oom';
  /** Millicores for cpu, bytes for memory, the container's memory request in bytes for oom. */
  amount: ResourceAmount;
}

/** The fields that carry an event's value; exactly one per event. */
export const VALUE_FIELDS = ['cpuCores', 'cpuMillicores', 'memoryBytes', 'oomMemoryRequestBytes'] as const;
const KNOWN = new Set<string>(['time', 'container', 'pod', 'labels', ...VALUE_FIELDS]);

function num(v: unknown, field: string, integer: boolean): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`${field} must be a finite number`);
  if (integer && !Number.isSafeInteger(v)) throw new Error(`${field} must be an integer`);
  if (Math.abs(v) > 9e15) throw new Error(`${field} is out of range`);
  return v;
}

/** Validates one decoded JSON object; throws an Error whose message says what is wrong. */
export function parseUsageEvent(obj: unknown): UsageEvent {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new Error('expected a JSON object');
  const o = obj as Record<string, unknown>;
  let field: (typeof VALUE_FIELDS)[number] | undefined;
  let count = 0;
  for (const k in o) {
    if (!KNOWN.has(k)) throw new Error(`unknown field "${k}"`);
    if (k === 'cpuCores' || k === 'cpuMillicores' || k === 'memoryBytes' || k === 'oomMemoryRequestBytes') {
      if (o[k] !== undefined) {
        field = k;
        count++;
      }
    }
  }
  if (typeof o.time !== 'string') throw new Error('"time" (RFC 3339) is required');
  const time = parseInstant(o.time);
  const container = o.container;
  if (typeof container !== 'string' || container === '') throw new Error('"container" must be a non-empty string');
  const pod = o.pod;
  if (pod !== undefined && (typeof pod !== 'string' || pod === '')) throw new Error('"pod" must be a non-empty string');
  let labels: Labels = NO_LABELS;
  if (o.labels !== undefined) {
    if (typeof o.labels !== 'object' || o.labels === null || Array.isArray(o.labels)) throw new Error('"labels" must be an object');
    for (const [k, v] of Object.entries(o.labels)) if (typeof v !== 'string') throw new Error(`label "${k}" must be a string`);
    labels = o.labels as Labels;
  }
  if (count !== 1 || field === undefined) throw new Error(`exactly one of ${VALUE_FIELDS.join(', ')} is required`);
  let kind: UsageEvent['kind'];
  let amount: number;
  switch (field) {
    case 'cpuCores':
      kind = 'cpu';
      amount = cpuAmountFromCores(num(o.cpuCores, field, false));
      break;
    case 'cpuMillicores':
      kind = 'cpu';
      amount = num(o.cpuMillicores, field, true);
      break;
    case 'memoryBytes':
      kind = 'memory';
      amount = memoryAmountFromBytes(num(o.memoryBytes, field, false));
      break;
    default:
      kind = 'oom';
      amount = num(o.oomMemoryRequestBytes, field, true);
  }
  return { time, container, pod: (pod as string | undefined) ?? 'pod', labels, kind, amount };
}

const NO_LABELS: Labels = Object.freeze({});
