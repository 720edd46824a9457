// What an informer keeps of each object, like client-go's SharedInformer.SetTransform
// (k8s.io/client-go v0.34 tools/cache/shared_informer.go): applied to every listed item and watch event
// before it reaches the cache or a handler. Every kind loses metadata.managedFields (often half an
// object's bytes, and read by nothing here). Pods, the one kind whose count follows the cluster's size,
// and eviction events keep only the fields some loop reads; the lists below name those readers, so a new
// reader of another field must add it here (test/unit/kube/cache-transforms.test.ts runs the readers on a
// trimmed pod).
//
// Writing back an object read from the cache is safe without managedFields: an update that omits them
// keeps the live object's (k8s.io/apimachinery v0.34 pkg/util/managedfields/internal/fieldmanager.go).
import type { KindRef } from '../api/meta.ts';

/** Returns the object to cache (may be the argument, changed in place). */
export type CacheTransform = (obj: Record<string, unknown>) => Record<string, unknown>;

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `src` restricted to `keys` (absent keys stay absent). */
function pick(src: unknown, keys: readonly string[]): Json | undefined {
  if (!isObj(src)) return undefined;
  const out: Json = {};
  for (const k of keys) if (src[k] !== undefined) out[k] = src[k];
  return out;
}

function pickEach(src: unknown, f: (item: unknown) => Json | undefined): Json[] | undefined {
  return Array.isArray(src) ? src.map((x) => f(x) ?? {}) : undefined;
}

export function dropManagedFields(obj: Json): Json {
  if (isObj(obj['metadata'])) delete obj['metadata']['managedFields'];
  return obj;
}

// Pod readers: api/pod.ts isPodAvailable, through ehpa/pod-requests.ts and the adapter's pod providers
// (deletionTimestamp, phase, Ready condition and its lastTransitionTime), ehpa/pod-requests.ts (container
// CPU requests), ehpa/reconciler.ts and
// controller.ts (namespace, labels), vpa/input/cluster-feeder.ts (phase, labels, resourceVersion,
// container and init-container names and requests), vpa/input/oom-observer.ts (containerStatuses' name,
// restartCount, state/lastState terminated reason and finishedAt, running, resources; spec requests),
// and the cache itself (name, namespace, resourceVersion). uid, ownerReferences and creationTimestamp are
// kept too: small, and what an owner lookup would need.
const POD_METADATA = ['name', 'namespace', 'uid', 'resourceVersion', 'labels', 'ownerReferences', 'creationTimestamp', 'deletionTimestamp'] as const;
const CONTAINER = ['name', 'resources'] as const;
const CONDITION = ['type', 'status', 'lastTransitionTime'] as const;

function containerState(s: unknown): Json | undefined {
  if (!isObj(s)) return undefined;
  const out: Json = {};
  // Presence of `running`/`waiting` is what is read; terminated.message (up to 4 KiB) is not.
  if (s['running'] != null) out['running'] = pick(s['running'], ['startedAt']);
  if (s['waiting'] != null) out['waiting'] = pick(s['waiting'], ['reason']);
  if (s['terminated'] != null) out['terminated'] = pick(s['terminated'], ['reason', 'exitCode', 'finishedAt']);
  return out;
}

function containerStatus(cs: unknown): Json | undefined {
  if (!isObj(cs)) return undefined;
  const out = pick(cs, ['name', 'restartCount', 'resources']) as Json;
  if (cs['state'] !== undefined) out['state'] = containerState(cs['state']);
  if (cs['lastState'] !== undefined) out['lastState'] = containerState(cs['lastState']);
  return out;
}

export function trimPod(pod: Json): Json {
  const spec = isObj(pod['spec']) ? pod['spec'] : {};
  const status = isObj(pod['status']) ? pod['status'] : undefined;
  const out: Json = { metadata: pick(pod['metadata'], POD_METADATA) ?? {} };
  if (pod['apiVersion'] !== undefined) out['apiVersion'] = pod['apiVersion'];
  if (pod['kind'] !== undefined) out['kind'] = pod['kind'];
  const trimmedSpec: Json = {};
  const containers = pickEach(spec['containers'], (c) => pick(c, CONTAINER));
  if (containers) trimmedSpec['containers'] = containers;
  const init = pickEach(spec['initContainers'], (c) => pick(c, CONTAINER));
  if (init) trimmedSpec['initContainers'] = init;
  if (isObj(pod['spec'])) out['spec'] = trimmedSpec;
  if (status) {
    const s: Json = {};
    if (status['phase'] !== undefined) s['phase'] = status['phase'];
    // The Ready condition is the only one read; the other three of a running pod (PodScheduled, Initialized,
    // ContainersReady, PodReadyToStartContainers) were a fifth of a trimmed pod's strings.
    if (Array.isArray(status['conditions'])) s['conditions'] = status['conditions'].filter((c) => isObj(c) && c['type'] === 'Ready').map((c) => pick(c, CONDITION));
    const statuses = pickEach(status['containerStatuses'], containerStatus);
    if (statuses) s['containerStatuses'] = statuses;
    out['status'] = s;
  }
  return out;
}

// Eviction-event reader: vpa/input/oom-observer.ts oomsFromEvictionEvent and oom-watcher.ts (reason,
// involvedObject kind/name/namespace, the offending_containers* and starved_resource annotations,
// creationTimestamp).
const EVENT_METADATA = ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'annotations'] as const;

export function trimEvent(event: Json): Json {
  const out: Json = { metadata: pick(event['metadata'], EVENT_METADATA) ?? {} };
  for (const k of ['apiVersion', 'kind', 'reason']) if (event[k] !== undefined) out[k] = event[k];
  const involved = pick(event['involvedObject'], ['kind', 'name', 'namespace', 'uid']);
  if (involved) out['involvedObject'] = involved;
  return out;
}

// Workload (apps/v1 Deployment, StatefulSet) reader: kube/cached-scale.ts, which answers `/scale` from the
// cache (spec.replicas, spec.selector, status.replicas), and the cache itself.
const WORKLOAD_METADATA = ['name', 'namespace', 'uid', 'resourceVersion', 'generation'] as const;

export function trimWorkload(obj: Json): Json {
  const out: Json = { metadata: pick(obj['metadata'], WORKLOAD_METADATA) ?? {} };
  for (const k of ['apiVersion', 'kind']) if (obj[k] !== undefined) out[k] = obj[k];
  const spec = pick(obj['spec'], ['replicas', 'selector']);
  if (spec) out['spec'] = spec;
  const status = pick(obj['status'], ['replicas']);
  if (status) out['status'] = status;
  return out;
}

/** Kinds whose informer keeps only what kube/cached-scale.ts reads. */
const WORKLOAD_PLURALS = new Set(['deployments', 'statefulsets']);

/** The transform an informer of `kind` applies: trimmed pods, core events and workloads, managedFields off the rest. */
export function cacheTransformFor(kind: Pick<KindRef, 'apiVersion' | 'plural'>): CacheTransform {
  if (kind.apiVersion === 'v1' && kind.plural === 'pods') return trimPod;
  if (kind.apiVersion === 'v1' && kind.plural === 'events') return trimEvent;
  if (kind.apiVersion === 'apps/v1' && WORKLOAD_PLURALS.has(kind.plural)) return trimWorkload;
  return dropManagedFields;
}
