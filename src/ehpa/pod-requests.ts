// Which pods a converted CPU target is averaged over, and their summed CPU requests (docs/crane-behaviour.md §B.3). Pure: the
// caller passes pods from the informer cache and the current time.
import { quantityMilli } from '../quantity/index.ts';
import type { PodCpuRequests, PodRequests } from './desired-hpa.ts';
import { isPodAvailable, type PodLike } from '../api/pod.ts';

function isLivePod(pod: PodLike): boolean {
  const phase = pod.status?.phase;
  return !pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
}

/**
 * Sums `resource` requests (of the one named container, for a ContainerResource metric) over the available
 * pods, in milli-units (gocrane/crane pkg/utils/pod.go CalculatePodRequests). Crane errors when none is
 * available yet (a fresh rollout); we fall back to every live pod instead, because requests are a property
 * of the pod spec, not of its readiness, and the HPA should not lose its prediction metric during a rollout.
 */
export function summarizeRequests(pods: readonly PodLike[], nowMs: number, resource: string, container?: string): PodRequests {
  let counted = pods.filter((p) => isPodAvailable(p, nowMs));
  if (counted.length === 0) counted = pods.filter(isLivePod);
  let requestMilli = 0;
  const missing: string[] = [];
  for (const pod of counted) {
    let podMissing = false;
    const containers = (pod.spec?.containers ?? []).filter((c) => container === undefined || c.name === container);
    for (const c of containers) {
      const text = c.resources?.requests?.[resource];
      const milli = text === undefined ? undefined : quantityMilli(text);
      if (milli === undefined) podMissing = true;
      else requestMilli += milli;
    }
    if (podMissing || containers.length === 0) missing.push(pod.metadata.name);
  }
  return { pods: counted.length, requestMilli, missing: missing.sort() };
}

/** CPU requests of every container (the Resource cpu conversion). */
export function summarizeCpuRequests(pods: readonly PodLike[], nowMs: number): PodCpuRequests {
  return summarizeRequests(pods, nowMs, 'cpu');
}
