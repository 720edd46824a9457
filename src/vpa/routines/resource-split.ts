// "HPA on CPU, VPA on memory": when an EffectiveHorizontalPodAutoscaler scales the same workload on CPU,
// a CPU recommendation from the VPA would fight it (the HPA's utilisation target is relative to the CPU
// request the VPA would move), so the VPA recommends memory only. Pure.

/** The parts of an EHPA this decision reads (structurally compatible with src/api/ehpa.ts). */
export interface EhpaForSplit {
  metadata: { name: string; namespace?: string };
  spec: {
    scaleTargetRef: { apiVersion?: string; kind: string; name: string };
    metrics?: { type?: string; resource?: { name?: string }; containerResource?: { name?: string } }[];
    crons?: unknown[];
  };
}

export interface TargetRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
}

/** Condition type and event reason written on the VPA while the split is in effect. */
export const SPLIT_CONDITION = 'ResourcesSplitWithHPA';
export const SPLIT_REASON = 'HPAScalesOnCPU';

function group(apiVersion: string | undefined): string {
  const v = apiVersion ?? '';
  const i = v.indexOf('/');
  return i < 0 ? '' : v.slice(0, i);
}

/** Same object: namespace, kind, name and API group (versions of one group name the same object). */
export function sameTarget(a: TargetRef, b: TargetRef): boolean {
  return !!a.kind && a.kind === b.kind && !!a.name && a.name === b.name && group(a.apiVersion) === group(b.apiVersion);
}

/**
 * Whether the EHPA's HPA scales on CPU: a Resource or ContainerResource cpu metric (prediction, when on,
 * only ever forecasts that metric), or no metrics and no crons at all, which autoscaling/v2 turns into
 * the default 80% CPU utilisation.
 */
export function ehpaScalesOnCpu(ehpa: EhpaForSplit): boolean {
  const metrics = ehpa.spec.metrics ?? [];
  if (metrics.length === 0 && (ehpa.spec.crons ?? []).length === 0) return true;
  return metrics.some((m) => (m.type === 'Resource' && m.resource?.name === 'cpu') || (m.type === 'ContainerResource' && m.containerResource?.name === 'cpu'));
}

/** The EHPA (first by name) in the VPA's namespace that scales the VPA's target on CPU, if any. */
export function cpuEhpaFor(vpaNamespace: string, targetRef: TargetRef | undefined, ehpas: Iterable<EhpaForSplit>): EhpaForSplit | undefined {
  if (!targetRef) return undefined;
  let found: EhpaForSplit | undefined;
  for (const e of ehpas) {
    if ((e.metadata.namespace ?? '') !== vpaNamespace || !sameTarget(e.spec.scaleTargetRef, targetRef) || !ehpaScalesOnCpu(e)) continue;
    if (!found || e.metadata.name < found.metadata.name) found = e;
  }
  return found;
}

/**
 * cpuEhpaFor over many VPAs: the CPU EHPAs indexed once by namespace, group, kind and name, so a loop
 * over N VPAs does not scan every EHPA N times. Same answers as cpuEhpaFor.
 */
export function cpuEhpaIndex(ehpas: Iterable<EhpaForSplit>): (vpaNamespace: string, targetRef: TargetRef | undefined) => EhpaForSplit | undefined {
  const byTarget = new Map<string, EhpaForSplit>();
  const key = (ns: string, r: TargetRef) => `${ns}\u0000${group(r.apiVersion)}\u0000${r.kind}\u0000${r.name}`;
  for (const e of ehpas) {
    const r = e.spec.scaleTargetRef;
    if (!r?.kind || !r.name || !ehpaScalesOnCpu(e)) continue;
    const k = key(e.metadata.namespace ?? '', r);
    const prev = byTarget.get(k);
    if (!prev || e.metadata.name < prev.metadata.name) byTarget.set(k, e);
  }
  return (ns, ref) => (ref?.kind && ref.name ? byTarget.get(key(ns, ref)) : undefined);
}

/** Controlled resources under the split: whatever the policy controls, minus CPU. */
export function withoutCpu<T extends string>(controlled: readonly T[]): T[] {
  return controlled.filter((r) => r !== 'cpu');
}

export function splitMessage(ehpaName: string): string {
  return `EffectiveHorizontalPodAutoscaler ${ehpaName} scales this workload on CPU: the HPA owns CPU, this VPA recommends memory only`;
}
