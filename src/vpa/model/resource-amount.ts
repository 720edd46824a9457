// Resource amounts (upstream recommender/model/types.go): int64 millicores for CPU and bytes for memory,
// held in a JS number (exact below 2^53; amounts are capped at MaxResourceAmount = 1e14 anyway).
// Every float->int conversion truncates toward zero like Go.

export type ResourceName = 'cpu' | 'memory';
export type ResourceAmount = number;
/** Resources keyed by name; a missing key means "not recommended for this resource". */
export type Resources = Partial<Record<ResourceName, ResourceAmount>>;

export const MAX_RESOURCE_AMOUNT: ResourceAmount = 1e14;
/** Go's ResourceAmount(NaN) on amd64: math.MinInt64 (always hidden later by max(..., podMinimum)). */
const GO_NAN_TO_INT64 = -9223372036854775808;

export function resourceAmountFromFloat(amount: number): ResourceAmount {
  if (amount > MAX_RESOURCE_AMOUNT) return MAX_RESOURCE_AMOUNT;
  if (amount < 0) return 0;
  if (Number.isNaN(amount)) return GO_NAN_TO_INT64;
  return Math.trunc(amount);
}

export function cpuAmountFromCores(cores: number): ResourceAmount {
  return resourceAmountFromFloat(cores * 1000.0);
}

export function coresFromCPUAmount(millicores: ResourceAmount): number {
  return millicores / 1000.0;
}

export function memoryAmountFromBytes(bytes: number): ResourceAmount {
  return resourceAmountFromFloat(bytes);
}

export function bytesFromMemoryAmount(amount: ResourceAmount): number {
  return amount;
}

export function scaleResource(amount: ResourceAmount, factor: number): ResourceAmount {
  return resourceAmountFromFloat(amount * factor);
}

export function resourceAmountMax(a: ResourceAmount, b: ResourceAmount): ResourceAmount {
  return a > b ? a : b;
}

/** ceil(value/scale)*scale with Go's float division; scale <= 0 leaves the value and reports an error. */
export function roundUpToScale(value: ResourceAmount, scale: number): { value: ResourceAmount; error: string | null } {
  if (scale <= 0) return { value, error: 'scale must be greater than zero' };
  return { value: Math.trunc(Math.ceil(value / scale)) * scale, error: null };
}
