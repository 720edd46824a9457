// The slice of a core/v1 Pod this project reads (plain JSON from the API or an informer cache).

/** The fields of a core/v1 Pod the controllers and the adapter read (plain JSON from the API). */
export interface PodLike {
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { containers?: { name: string; resources?: { requests?: Record<string, string> } }[] };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
  };
}

/** Crane's minReadySeconds for "available" pods (gocrane/crane pkg/utils/pod.go GetAvailablePods). */
export const POD_MIN_READY_MS = 30_000;

/**
 * Crane's available pod, the one rule for the EHPA controller's request sums (docs/crane-behaviour.md §B.3) and
 * the adapter's per-pod split (§C.3): gocrane/crane pkg/utils/pod.go IsPodAvailable(pod, 30, now), a copy of
 * k8s.io/kubernetes pkg/api/v1/pod/util.go IsPodAvailable with Crane's IsPodReady (not being deleted, phase
 * Running, condition Ready=True), then `!c.LastTransitionTime.IsZero() && c.LastTransitionTime.Add(30s).Before(now)`.
 * So a Ready condition without a transition time is not available, and exactly 30 s after it is not yet
 * (Before is strict). A time that does not parse counts as missing: Go would not have decoded the pod at all.
 */
export function isPodAvailable(pod: PodLike, nowMs: number): boolean {
  if (pod.metadata.deletionTimestamp || pod.status?.phase !== 'Running') return false;
  const ready = pod.status.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return false;
  const since = ready.lastTransitionTime === undefined ? NaN : Date.parse(ready.lastTransitionTime);
  return Number.isFinite(since) && since + POD_MIN_READY_MS < nowMs;
}

/** Running and not being deleted: the pods an observed-usage fallback averages over while none is available. */
export function isPodRunning(pod: PodLike): boolean {
  return !pod.metadata.deletionTimestamp && pod.status?.phase === 'Running';
}
