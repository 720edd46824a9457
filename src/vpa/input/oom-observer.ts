// OOM detection from pod updates and eviction events (upstream recommender/input/oom/observer.go).
// Pure functions over Kubernetes JSON objects; the caller feeds the result to ContainerState.recordOOM.
import { parseQuantity } from '../../quantity/index.ts';
import { parseInstant, type Instant } from '../../gomath/go-time.ts';

interface ContainerStateJSON {
  running?: object | null;
  terminated?: { reason?: string; finishedAt?: string } | null;
  waiting?: object | null;
}

interface ContainerStatusJSON {
  name: string;
  restartCount?: number;
  state?: ContainerStateJSON;
  lastState?: ContainerStateJSON;
  resources?: { requests?: Record<string, string> } | null;
}

export interface PodJSON {
  metadata?: { name?: string; namespace?: string };
  spec?: { containers?: { name: string; resources?: { requests?: Record<string, string> } }[] };
  status?: { containerStatuses?: ContainerStatusJSON[] };
}

export interface OomInfo {
  namespace: string;
  pod: string;
  container: string;
  /** The container's memory request (bytes) at the time of the OOM, or the evicted usage. */
  memoryBytes: number;
  timestamp: Instant;
}

/** resourcehelpers.ContainerRequestsAndLimits: status resources when reported, else the spec. */
function memoryRequest(containerName: string, pod: PodJSON): number {
  const cs = pod.status?.containerStatuses?.find((s) => s.name === containerName);
  let requests: Record<string, string> | undefined;
  if (cs && cs.resources) requests = cs.resources.requests;
  else requests = pod.spec?.containers?.find((c) => c.name === containerName)?.resources?.requests;
  const q = requests?.memory;
  return q === undefined ? 0 : parseQuantity(q).value();
}

function finishedAt(t: { finishedAt?: string }): Instant {
  return t.finishedAt ? parseInstant(t.finishedAt) : 0;
}

/**
 * OOMs revealed by a pod update: a container newly terminated with OOMKilled (the new pod's request), or
 * a running container whose restart count grew and whose last state is OOMKilled (the old pod's request).
 */
export function oomsFromPodUpdate(oldPod: PodJSON, newPod: PodJSON): OomInfo[] {
  const out: OomInfo[] = [];
  for (const cs of newPod.status?.containerStatuses ?? []) {
    const old = oldPod.status?.containerStatuses?.find((s) => s.name === cs.name);
    if (!old) continue;
    const restarted = (cs.restartCount ?? 0) > (old.restartCount ?? 0);
    const isNewOOM = !!cs.state?.terminated && cs.state.terminated.reason === 'OOMKilled' && (!old.state?.terminated || restarted);
    const isPreviousOOM =
      !!cs.state?.running && !!old.state?.running && restarted && !!cs.lastState?.terminated && cs.lastState.terminated.reason === 'OOMKilled';
    if (!isNewOOM && !isPreviousOOM) continue;
    const term = (isNewOOM ? cs.state?.terminated : cs.lastState?.terminated) as { finishedAt?: string };
    out.push({
      namespace: newPod.metadata?.namespace ?? '',
      pod: newPod.metadata?.name ?? '',
      container: cs.name,
      memoryBytes: memoryRequest(cs.name, isNewOOM ? newPod : oldPod),
      timestamp: finishedAt(term),
    });
  }
  return out;
}

export interface EventJSON {
  reason?: string;
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  metadata?: { annotations?: Record<string, string>; creationTimestamp?: string };
}

/** Memory-starved containers named by a kubelet eviction event, with their usage as the OOM memory. */
export function oomsFromEvictionEvent(event: EventJSON): OomInfo[] {
  if (event.reason !== 'Evicted' || event.involvedObject?.kind !== 'Pod') return [];
  const ann = event.metadata?.annotations ?? {};
  const split = (k: string): string[] => (ann[k] === undefined ? [] : (ann[k] as string).split(','));
  const containers = split('offending_containers');
  const usage = split('offending_containers_usage');
  const starved = split('starved_resource');
  if (containers.length !== usage.length || containers.length !== starved.length) return [];
  const out: OomInfo[] = [];
  containers.forEach((container, i) => {
    if (starved[i] !== 'memory') return;
    let bytes: number;
    try {
      bytes = parseQuantity(usage[i] as string).value();
    } catch {
      return;
    }
    out.push({
      namespace: event.involvedObject?.namespace ?? '',
      pod: event.involvedObject?.name ?? '',
      container,
      memoryBytes: bytes,
      timestamp: event.metadata?.creationTimestamp ? parseInstant(event.metadata.creationTimestamp) : 0,
    });
  });
  return out;
}
