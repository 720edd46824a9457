// controlledValues and limit scaling, as the admission controller and updater apply a recommendation
// (upstream utils/vpa/api.go GetContainerControlledValues and limit_and_request_scaling.go
// GetProportionalLimit): with RequestsAndLimits the original limit/request ratio is kept, computed on
// integer milli-units (CPU) or bytes (memory) with floor division, capped at MaxInt64.
import { Quantity } from '../../quantity/index.ts';
import { getContainerResourcePolicy, type ContainerControlledValues, type PodResourcePolicy } from '../model/vpa-types.ts';
import type { QuantityList } from './resource-list.ts';

const MAX_INT64 = 9223372036854775807n;

export function getContainerControlledValues(containerName: string, policy: PodResourcePolicy | null | undefined): ContainerControlledValues {
  return getContainerResourcePolicy(containerName, policy)?.controlledValues ?? 'RequestsAndLimits';
}

const ZERO = Quantity.of(0, 'DecimalSI');

function proportionalLimit(
  resource: 'cpu' | 'memory',
  originalLimit: Quantity,
  originalRequest: Quantity,
  recommended: Quantity,
  defaultLimit: Quantity,
): { limit?: Quantity; annotation: string } {
  let limit = originalLimit;
  if (limit.value() === 0) limit = defaultLimit;
  if (limit.value() === 0) return { annotation: `${resource}: limit NOT set since originalLimit is nil or 0` };
  if (recommended.value() === 0) return { annotation: `${resource}: limit NOT set since recommendedRequest is nil or 0` };
  if (originalRequest.value() === 0) return { limit: recommended, annotation: '' };
  if (originalRequest.asScale(-3).value === limit.asScale(-3).value) return { limit: recommended, annotation: '' };
  const capNote = `${resource}: failed to keep limit to request ratio; capping limit to int64`;
  if (resource === 'cpu') {
    const q = (limit.asScale(-3).value * recommended.asScale(-3).value) / originalRequest.asScale(-3).value;
    if (q > MAX_INT64) return { limit: Quantity.milli(MAX_INT64, limit.format), annotation: capNote };
    return { limit: Quantity.milli(q, limit.format), annotation: '' };
  }
  const v = (limit.asScale(0).value * recommended.asScale(0).value) / originalRequest.asScale(0).value;
  if (v > MAX_INT64) return { limit: Quantity.of(MAX_INT64, limit.format), annotation: capNote };
  return { limit: Quantity.of(v, limit.format), annotation: '' };
}

/**
 * The limits that keep the original limit/request ratio for a recommended request (missing entries count
 * as zero, like ResourceList.Cpu()). `limits` is undefined when neither resource gets a limit.
 */
export function getProportionalLimit(
  originalLimit: QuantityList,
  originalRequest: QuantityList,
  recommendation: QuantityList,
  defaultLimit: QuantityList,
): { limits: QuantityList | undefined; annotations: string[] } {
  const annotations: string[] = [];
  const out: QuantityList = new Map();
  for (const r of ['cpu', 'memory'] as const) {
    const res = proportionalLimit(r, originalLimit.get(r) ?? ZERO, originalRequest.get(r) ?? ZERO, recommendation.get(r) ?? ZERO, defaultLimit.get(r) ?? ZERO);
    if (res.annotation) annotations.push(res.annotation);
    if (res.limit) out.set(r, res.limit);
  }
  return { limits: out.size === 0 ? undefined : out, annotations: out.size === 0 ? [] : annotations };
}
