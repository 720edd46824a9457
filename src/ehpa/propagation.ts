// Which EHPA labels and annotations are copied onto the backing HPA: craned's
// --ehpa-propagation-{label,annotation}-prefixes and --ehpa-propagation-{labels,annotations} (docs/crane-behaviour.md §B.2).
import type { EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';

export interface PropagationConfig {
  labelPrefixes: readonly string[];
  labels: readonly string[];
  annotationPrefixes: readonly string[];
  annotations: readonly string[];
}

function pick(from: Record<string, string> | undefined, prefixes: readonly string[], exact: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(from ?? {})) {
    if (exact.includes(k) || prefixes.some((p) => k.startsWith(p))) out[k] = v;
  }
  return out;
}

export function propagatedMetadata(ehpa: EffectiveHorizontalPodAutoscaler, c: PropagationConfig): { labels: Record<string, string>; annotations: Record<string, string> } {
  return {
    labels: pick(ehpa.metadata.labels, c.labelPrefixes, c.labels),
    annotations: pick(ehpa.metadata.annotations, c.annotationPrefixes, c.annotations),
  };
}

/** Splits a comma-separated flag value, dropping blanks. */
export function commaList(text: string | undefined): string[] {
  return (text ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}
