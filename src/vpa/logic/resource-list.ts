// From model amounts to API quantities (upstream model.ResourcesAsResourceList and
// logic.MapToListOfRecommendedContainerResources).
import { Quantity } from '../../quantity/index.ts';
import { roundUpToScale, type Resources } from '../model/resource-amount.ts';
import type { RecommendedPodResourceAmounts } from './pod-recommender.ts';

/** A ResourceList of quantities, keyed by resource name. */
export type QuantityList = Map<string, Quantity>;

export interface ContainerRecommendation {
  containerName: string;
  target: QuantityList;
  lowerBound: QuantityList;
  upperBound: QuantityList;
  uncappedTarget: QuantityList;
}

export interface RecommendationFormat {
  /** Deprecated upstream flag --humanize-memory. */
  humanizeMemory: boolean;
  roundCPUMillicores: number;
  roundMemoryBytes: number;
}

export const DEFAULT_RECOMMENDATION_FORMAT: Readonly<RecommendationFormat> = {
  humanizeMemory: false,
  roundCPUMillicores: 1,
  roundMemoryBytes: 1,
};

/** Go's fmt "%.2f": exact decimal rounding with ties to even (JS toFixed rounds ties up). */
export function goFormatFixed2(x: number): string {
  const t = x * 1000;
  if (Number.isInteger(t) && Math.abs(t) % 10 === 5 && t / 1000 === x) {
    let n = (Math.abs(t) - 5) / 10;
    if (n % 2 === 1) n++;
    const s = (n / 100).toFixed(2);
    return x < 0 ? `-${s}` : s;
  }
  return x.toFixed(2);
}

/** Upstream HumanizeMemoryQuantity: bytes in the largest binary unit from Ti down to Ki, two decimals. */
export function humanizeMemoryQuantity(bytes: number): string {
  const KiB = 1024;
  const MiB = 1024 * KiB;
  const GiB = 1024 * MiB;
  const TiB = 1024 * GiB;
  if (bytes >= TiB) return `${goFormatFixed2(bytes / TiB)}Ti`;
  if (bytes >= GiB) return `${goFormatFixed2(bytes / GiB)}Gi`;
  if (bytes >= MiB) return `${goFormatFixed2(bytes / MiB)}Mi`;
  if (bytes >= KiB) return `${goFormatFixed2(bytes / KiB)}Ki`;
  return String(bytes);
}

/** ResourcesAsResourceList: CPU as NewScaledQuantity(m, -3), memory as NewQuantity(bytes, BinarySI). */
export function resourcesAsResourceList(resources: Resources, format: RecommendationFormat = DEFAULT_RECOMMENDATION_FORMAT): QuantityList {
  const out: QuantityList = new Map();
  const cpu = resources.cpu;
  if (cpu !== undefined) {
    let q = Quantity.scaled(cpu, -3);
    if (format.roundCPUMillicores !== 1 && !q.isZero()) q = Quantity.scaled(roundUpToScale(cpu, format.roundCPUMillicores).value, -3);
    out.set('cpu', q);
  }
  const mem = resources.memory;
  if (mem !== undefined) {
    let q = Quantity.of(mem, 'BinarySI');
    if (format.roundMemoryBytes !== 1 && !q.isZero()) q = Quantity.of(roundUpToScale(mem, format.roundMemoryBytes).value, 'BinarySI');
    if (format.humanizeMemory && !q.isZero()) q = Quantity.parse(humanizeMemoryQuantity(q.value()));
    out.set('memory', q);
  }
  return out;
}

/** The API list, sorted by container name; UncappedTarget starts equal to Target. */
export function mapToListOfRecommendedContainerResources(
  resources: RecommendedPodResourceAmounts,
  format: RecommendationFormat = DEFAULT_RECOMMENDATION_FORMAT,
): ContainerRecommendation[] {
  return [...resources.keys()].sort().map((name) => {
    const r = resources.get(name)!;
    return {
      containerName: name,
      target: resourcesAsResourceList(r.target, format),
      lowerBound: resourcesAsResourceList(r.lowerBound, format),
      upperBound: resourcesAsResourceList(r.upperBound, format),
      uncappedTarget: resourcesAsResourceList(r.target, format),
    };
  });
}

function listToJSON(list: QuantityList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...list.keys()].sort()) out[k] = list.get(k)!.toString();
  return out;
}

export interface ContainerRecommendationJSON {
  containerName: string;
  target: Record<string, string>;
  lowerBound?: Record<string, string>;
  upperBound?: Record<string, string>;
  uncappedTarget?: Record<string, string>;
}

/**
 * The JSON the VPA status carries, as Go encodes it: map keys sorted, quantities as strings, and the
 * omitempty fields (empty bounds, an empty list) left out.
 */
export function recommendationToJSON(list: readonly ContainerRecommendation[]): { containerRecommendations?: ContainerRecommendationJSON[] } {
  if (list.length === 0) return {};
  return {
    containerRecommendations: list.map((r) => {
      const out: ContainerRecommendationJSON = { containerName: r.containerName, target: listToJSON(r.target) };
      if (r.lowerBound.size > 0) out.lowerBound = listToJSON(r.lowerBound);
      if (r.upperBound.size > 0) out.upperBound = listToJSON(r.upperBound);
      if (r.uncappedTarget.size > 0) out.uncappedTarget = listToJSON(r.uncappedTarget);
      return out;
    }),
  };
}
