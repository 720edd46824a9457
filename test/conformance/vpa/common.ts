// Shared helpers for the VPA conformance handlers: vector shape, offsets, histogram options.
import {
  ExponentialHistogramOptions,
  LinearHistogramOptions,
  defaultAggregationsConfig,
  parseInstant,
  type HistogramOptions,
  type Instant,
} from '../../../src/vpa/model/index.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
export interface Vector {
  source: string;
  description: string;
  kind: string;
  input: any;
  expected: any;
}

export const num = (x: unknown): number => Number(x);

/** '+24h', '-30h', '+30m', '+24h-1s', '+7d', 'creation+9d' -> microseconds. */
export function offsetMicros(text: string): number {
  const units: Record<string, number> = { d: 86400e6, h: 3600e6, m: 60e6, s: 1e6 };
  let total = 0;
  for (const m of text.matchAll(/([+-])(\d+)(d|h|m|s)/g)) total += (m[1] === '-' ? -1 : 1) * Number(m[2]) * (units[m[3] as string] as number);
  return total;
}

export function duration(text: string): number {
  return offsetMicros(text.startsWith('+') || text.startsWith('-') ? text : `+${text}`);
}

const optionsCache = new Map<string, HistogramOptions>();

/** Options objects are shared per layout: like upstream, histograms merge only with identical options. */
export function options(o: any): HistogramOptions {
  const key = JSON.stringify(o);
  let opts = optionsCache.get(key);
  if (!opts) {
    opts = o.type === 'linear' ? new LinearHistogramOptions(o.maxValue, o.bucketSize, o.epsilon) : new ExponentialHistogramOptions(o.maxValue, o.firstBucketSize, o.ratio, o.epsilon);
    optionsCache.set(key, opts);
  }
  return opts;
}

export function defaultOptions(which: string): HistogramOptions {
  const c = defaultAggregationsConfig();
  return which === 'cpu' ? c.cpuHistogramOptions : c.memoryHistogramOptions;
}


export function cpWeights(m: Map<number, number>): Record<string, number> {
  return Object.fromEntries([...m].map(([k, v]) => [String(k), v]));
}

export function cpFromJSON(cp: any): { totalWeight: number; bucketWeights: Map<number, number>; referenceTimestamp?: Instant } | null {
  if (cp === null) return null;
  const out: { totalWeight: number; bucketWeights: Map<number, number>; referenceTimestamp?: Instant } = {
    totalWeight: cp.totalWeight,
    bucketWeights: new Map(Object.entries(cp.bucketWeights ?? {}).map(([k, v]) => [Number(k), v as number])),
  };
  if (cp.referenceTimestamp) out.referenceTimestamp = parseInstant(cp.referenceTimestamp);
  return out;
}
