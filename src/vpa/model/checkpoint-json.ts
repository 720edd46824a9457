// VerticalPodAutoscalerCheckpoint objects in their API JSON shape, converted to and from the model's
// checkpoint status. metav1.Time keeps whole seconds (sub-seconds are dropped) and writes Go's zero
// time as null, exactly what a round trip through the API server does.
import type { AggregateCheckpoint } from './aggregate-container-state.ts';
import { GO_ZERO_TIME, formatInstantSeconds, isZeroTime, parseInstant, truncateToSeconds, type Instant } from '../../gomath/go-time.ts';
import type { HistogramCheckpoint } from '../../histogram/histogram.ts';

export interface HistogramCheckpointJSON {
  referenceTimestamp: string | null;
  bucketWeights?: Record<string, number>;
  totalWeight?: number;
}

export interface CheckpointStatusJSON {
  lastUpdateTime: string | null;
  version?: string;
  cpuHistogram?: HistogramCheckpointJSON;
  memoryHistogram?: HistogramCheckpointJSON;
  firstSampleStart: string | null;
  lastSampleStart: string | null;
  totalSamplesCount?: number;
}

export interface VerticalPodAutoscalerCheckpointJSON {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string };
  spec: { vpaObjectName: string; containerName: string };
  status: CheckpointStatusJSON;
}

function timeToJSON(t: Instant): string | null {
  return isZeroTime(t) ? null : formatInstantSeconds(t);
}

function timeFromJSON(v: unknown, what: string): Instant {
  if (v === null || v === undefined) return GO_ZERO_TIME;
  if (typeof v !== 'string') throw new Error(`${what}: expected an RFC 3339 string`);
  return truncateToSeconds(parseInstant(v));
}

function histogramToJSON(h: HistogramCheckpoint): HistogramCheckpointJSON {
  const bucketWeights: Record<string, number> = {};
  for (const b of [...h.bucketWeights.keys()].sort((a, c) => a - c)) bucketWeights[String(b)] = h.bucketWeights.get(b) as number;
  const out: HistogramCheckpointJSON = { referenceTimestamp: timeToJSON(h.referenceTimestamp ?? GO_ZERO_TIME) };
  // Go's omitempty drops an empty map and a zero total.
  if (h.bucketWeights.size > 0) out.bucketWeights = bucketWeights;
  if (h.totalWeight !== 0) out.totalWeight = h.totalWeight;
  return out;
}

function histogramFromJSON(j: HistogramCheckpointJSON | undefined, what: string): HistogramCheckpoint {
  const bucketWeights = new Map<number, number>();
  for (const [k, v] of Object.entries(j?.bucketWeights ?? {})) {
    if (!/^-?\d+$/.test(k)) throw new Error(`${what}: bucket key "${k}" is not an integer`);
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new Error(`${what}: bucket weight ${v} is not a uint32`);
    bucketWeights.set(Number(k), v);
  }
  const totalWeight = j?.totalWeight ?? 0;
  if (typeof totalWeight !== 'number') throw new Error(`${what}: totalWeight must be a number`);
  return { totalWeight, bucketWeights, referenceTimestamp: timeFromJSON(j?.referenceTimestamp, `${what}.referenceTimestamp`) };
}

export function checkpointStatusToJSON(cp: AggregateCheckpoint): CheckpointStatusJSON {
  const out: CheckpointStatusJSON = {
    lastUpdateTime: timeToJSON(cp.lastUpdateTime),
    version: cp.version,
    cpuHistogram: histogramToJSON(cp.cpuHistogram),
    memoryHistogram: histogramToJSON(cp.memoryHistogram),
    firstSampleStart: timeToJSON(cp.firstSampleStart),
    lastSampleStart: timeToJSON(cp.lastSampleStart),
  };
  if (cp.totalSamplesCount !== 0) out.totalSamplesCount = cp.totalSamplesCount;
  return out;
}

export function checkpointStatusFromJSON(j: CheckpointStatusJSON, what = 'checkpoint status'): AggregateCheckpoint {
  if (typeof j !== 'object' || j === null) throw new Error(`${what}: expected an object`);
  return {
    lastUpdateTime: timeFromJSON(j.lastUpdateTime, `${what}.lastUpdateTime`),
    version: j.version ?? '',
    cpuHistogram: histogramFromJSON(j.cpuHistogram, `${what}.cpuHistogram`),
    memoryHistogram: histogramFromJSON(j.memoryHistogram, `${what}.memoryHistogram`),
    firstSampleStart: timeFromJSON(j.firstSampleStart, `${what}.firstSampleStart`),
    lastSampleStart: timeFromJSON(j.lastSampleStart, `${what}.lastSampleStart`),
    totalSamplesCount: j.totalSamplesCount ?? 0,
  };
}
