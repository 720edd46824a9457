// Kubernetes object vocabulary shared by every room (the slices of metav1 this project reads and writes),
// as plain JSON: times are RFC 3339 strings. Nothing here knows about EHPAs or the API server.

export interface ObjectMeta {
  name: string;
  namespace: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  ownerReferences?: {
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
    controller?: boolean;
    blockOwnerDeletion?: boolean;
  }[];
}

/** Where a kind lives on the API server, as the informers list and watch it. */
export interface KindRef {
  apiVersion: string;
  plural: string;
  /** Server-side field selector for both the list and the watch (e.g. `reason=Evicted` on events). */
  fieldSelector?: string;
  /**
   * A best-effort feed: retried like any other, but not waited for before the controllers start and not
   * part of readiness, so a missing permission on it cannot stall everything else.
   */
  optional?: boolean;
}

export interface CrossVersionObjectReference {
  apiVersion?: string;
  kind: string;
  name: string;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** metav1.Time text: RFC 3339 at whole seconds. */
export function metaTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Characters a condition message may hold. The CRDs allow 32,768 (metav1.Condition's bound), and a status
 * write with a longer one is refused whole, so a message built from what others wrote must be cut: the HPA
 * controller's AmbiguousSelector message lists every HPA on the same pods, and 2,000 EHPAs on one
 * Deployment made it long enough that none of their statuses could be written.
 */
export const CONDITION_MESSAGE_MAX = 4096;

const CUT_NOTE = ' … (cut)';

/**
 * `message`, cut to CONDITION_MESSAGE_MAX characters. The note does not say how much was cut: a message
 * that keeps growing past the bound (that HPA list, one name longer for each new EHPA) then stays the same
 * once cut, instead of changing, and so rewriting every status that carries it, on each new object.
 */
export function boundedMessage(message: string): string {
  if (message.length <= CONDITION_MESSAGE_MAX) return message;
  return message.slice(0, CONDITION_MESSAGE_MAX - CUT_NOTE.length) + CUT_NOTE;
}

/** Upsert by type; lastTransitionTime moves only when the status flips. The message is bounded. */
export function upsertCondition(
  previous: readonly Condition[] | undefined,
  next: Omit<Condition, 'lastTransitionTime'>,
  nowMs: number,
): Condition {
  const old = previous?.find((c) => c.type === next.type);
  const lastTransitionTime = old && old.status === next.status && old.lastTransitionTime ? old.lastTransitionTime : metaTime(nowMs);
  return { ...next, message: boundedMessage(next.message), lastTransitionTime };
}
