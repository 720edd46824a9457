// Which VPA a history pod belongs to when the pod no longer exists: Prometheus keeps the usage of pods
// long gone (earlier ReplicaSets, restarts), but not their labels. Like upstream we first read them from
// the pod-labels series (`--metric-for-pod-labels`); for a pod that series does not know, we attribute it
// by its name to the workload a VPA targets (the pod-name patterns Crane's queries use) and give it the
// labels the VPA's selector requires by equality. Pure.
import type { Labels } from '../model/cluster-state.ts';
import { podNameRegex } from '../../prediction/history/queries.ts';
import type { TargetSelection, VpaObject } from './cluster-feeder.ts';

const regexCache = new Map<string, RegExp>();

function nameRegex(kind: string, name: string): RegExp {
  const key = `${kind}/${name}`;
  let r = regexCache.get(key);
  if (!r) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    r = new RegExp(podNameRegex(kind, escaped));
    regexCache.set(key, r);
  }
  return r;
}

export function historyPodLabelsByName(namespace: string, pod: string, vpas: readonly { obj: VpaObject; target: TargetSelection }[]): Labels | undefined {
  for (const { obj, target } of vpas) {
    const ref = obj.spec?.targetRef;
    if ((obj.metadata.namespace ?? '') !== namespace || !ref?.kind || !ref.name) continue;
    if (!target.selector || !target.equalityLabels || Object.keys(target.equalityLabels).length === 0) continue;
    if (!nameRegex(ref.kind, ref.name).test(pod)) continue;
    // A selector with set-based parts the equality labels cannot satisfy: better no history than wrong history.
    if (!target.selector(target.equalityLabels)) continue;
    return target.equalityLabels;
  }
  return undefined;
}
