// Recommendation post-processors applied after estimation, in upstream's order: integer CPU (opt-in per
// container by annotation), then capping to the VPA's minAllowed/maxAllowed and the global maximum.
// UncappedTarget is never capped. (upstream routines/cpu_integer_post_processor.go,
// routines/capping_post_processor.go, utils/vpa/capping.go ApplyVPAPolicy)
import { Quantity } from '../../quantity/index.ts';
import { getContainerResourcePolicy, type PodResourcePolicy, type ResourceList } from '../model/vpa-types.ts';
import type { ContainerRecommendation, QuantityList } from './resource-list.ts';

const INTEGER_CPU_PREFIX = 'vpa-post-processor.kubernetes.io/';
const INTEGER_CPU_SUFFIX = '_integerCPU';

/** The container name inside `prefix{name}suffix`, or "" when the key does not have that shape. */
export function extractContainerName(key: string, prefix: string, suffix: string): string {
  if (!key.startsWith(prefix)) return '';
  if (!key.endsWith(suffix)) return '';
  if (key.length < prefix.length + suffix.length) return '';
  return key.slice(prefix.length, key.length - suffix.length);
}

function roundCPUUp(list: QuantityList): void {
  const cpu = list.get('cpu');
  if (cpu) list.set('cpu', cpu.roundUp(0));
}

/** Rounds CPU up to whole cores for containers annotated `vpa-post-processor.kubernetes.io/{name}_integerCPU: "true"`. */
export function integerCPUPostProcess(annotations: Readonly<Record<string, string>>, recs: ContainerRecommendation[]): ContainerRecommendation[] {
  const out = recs.map(cloneRecommendation);
  for (const [key, value] of Object.entries(annotations)) {
    const name = extractContainerName(key, INTEGER_CPU_PREFIX, INTEGER_CPU_SUFFIX);
    if (name === '' || value !== 'true') continue;
    for (const r of out) {
      if (r.containerName !== name) continue;
      roundCPUUp(r.target);
      roundCPUUp(r.lowerBound);
      roundCPUUp(r.upperBound);
      roundCPUUp(r.uncappedTarget);
    }
  }
  return out;
}

function cloneRecommendation(r: ContainerRecommendation): ContainerRecommendation {
  return {
    containerName: r.containerName,
    target: new Map(r.target),
    lowerBound: new Map(r.lowerBound),
    upperBound: new Map(r.upperBound),
    uncappedTarget: new Map(r.uncappedTarget),
  };
}

/** Parses a ResourceList (quantity strings) into quantities; throws on a malformed quantity. */
export function parseResourceList(list: ResourceList | undefined): QuantityList | undefined {
  if (!list) return undefined;
  const out: QuantityList = new Map();
  for (const [k, v] of Object.entries(list)) out.set(k, Quantity.parse(String(v)));
  return out;
}

/**
 * ApplyVPAPolicy: for target, lower and upper bound, raise each resource to minAllowed, then lower it to
 * maxAllowed (the policy's, completed per resource from the global maximum). Zero limits are ignored, and so
 * are negative maximums (upstream would publish them);
 * a capped value IS the limit quantity, with its own formatting.
 */
export function applyVPAPolicy(
  recs: ContainerRecommendation[] | null,
  policy: PodResourcePolicy | null | undefined,
  globalMaxAllowed: QuantityList | undefined,
): ContainerRecommendation[] | null {
  if (recs === null) return null;
  return recs.map((rec) => {
    const capped = cloneRecommendation(rec);
    const cp = getContainerResourcePolicy(rec.containerName, policy);
    const minAllowed = parseResourceList(cp?.minAllowed);
    let maxAllowed = parseResourceList(cp?.maxAllowed);
    if (!maxAllowed) maxAllowed = globalMaxAllowed;
    else for (const [k, q] of globalMaxAllowed ?? []) if (!maxAllowed.has(k)) maxAllowed.set(k, q);
    const process = (list: QuantityList): void => {
      for (const [name, value] of list) {
        let v = value;
        const min = minAllowed?.get(name);
        if (min && !min.isZero() && v.cmp(min) < 0) v = min;
        const max = maxAllowed?.get(name);
        // A negative maxAllowed is ignored like a zero one. Upstream caps to it and publishes a negative
        // request, which no pod can take; the VPA CRD admits any quantity, so a tenant can write one.
        if (max && max.sign() > 0 && v.cmp(max) > 0) v = max;
        list.set(name, v);
      }
    };
    process(capped.target);
    process(capped.lowerBound);
    process(capped.upperBound);
    return capped;
  });
}
