// Crane counts a pod as available when it is Running, Ready, not being deleted, and has been Ready for at
// least 30 s (docs/crane-behaviour.md §B.3, §C.3). Time comes in.
import type { PodLike } from '../../api/pod.ts';

export const POD_READY_DELAY_MS = 30_000;

export function podAvailable(pod: PodLike, nowMs: number, readyDelayMs = POD_READY_DELAY_MS): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  if (pod.status?.phase !== 'Running') return false;
  const ready = pod.status.conditions?.find((c) => c.type === 'Ready');
  if (!ready || ready.status !== 'True') return false;
  if (ready.lastTransitionTime === undefined) return true;
  const since = Date.parse(ready.lastTransitionTime);
  return Number.isNaN(since) || since + readyDelayMs <= nowMs;
}

export function podRunning(pod: PodLike): boolean {
  return !pod.metadata?.deletionTimestamp && pod.status?.phase === 'Running';
}
