// Events only a kubelet writes, written by the harness as the kubelet would, for pods kwok runs.
//
// A kubelet's eviction manager records `Evicted` with annotations naming the offending containers, their
// usage and the starved resource (k8s.io/kubernetes v1.34.4 pkg/kubelet/eviction/eviction_manager.go evictPod:
// recorder.AnnotatedEventf with the annotations of helpers.go evictionMessage, offending_containers,
// offending_containers_usage, starved_resource), and the VPA recommender reads exactly those. kwok cannot produce it: a Stage's event step (sigs.k8s.io/kwok v0.8.0
// pkg/apis/v1alpha1/stage_types.go StageEvent) has only type, reason and message, and kwok records it
// through client-go's EventRecorder (pkg/kwok/controllers/pod_controller.go playStage), which sets no
// annotations; kwok has no eviction manager either (it simulates no node pressure).
import type { RestClient } from './rest.ts';

export interface EvictionOffender {
  container: string;
  /** The container's usage of the starved resource, a quantity (e.g. `2Gi`). */
  usage: string;
  /** `memory`, `cpu`, `ephemeral-storage`, ... */
  starved: string;
}

/**
 * The Event a kubelet's eviction manager records when it evicts `pod` under resource pressure (one entry per
 * offending container). The pod itself is left as it is: the recommender reads the Event only. `source.host`
 * is the pod's node (127.0.0.1 for a pod not bound to a node).
 */
export async function recordEviction(api: RestClient, namespace: string, pod: string, offenders: EvictionOffender[], now: () => Date = () => new Date()): Promise<void> {
  const p = await api.getJson<{ metadata: { uid?: string }; spec?: { nodeName?: string } }>(`/api/v1/namespaces/${namespace}/pods/${pod}`);
  const t = now().toISOString().replace(/\.\d+Z$/, 'Z');
  const starved = offenders.map((o) => o.starved);
  const res = await api.request('POST', `/api/v1/namespaces/${namespace}/events`, {
    body: {
      apiVersion: 'v1', kind: 'Event',
      metadata: {
        name: `${pod}.${Date.now().toString(16)}`, namespace,
        annotations: {
          offending_containers: offenders.map((o) => o.container).join(','),
          offending_containers_usage: offenders.map((o) => o.usage).join(','),
          starved_resource: starved.join(','),
        },
      },
      involvedObject: { kind: 'Pod', apiVersion: 'v1', name: pod, namespace, uid: p.metadata.uid },
      reason: 'Evicted', type: 'Warning',
      message: `The node was low on resource: ${[...new Set(starved)].join(', ')}.`,
      source: { component: 'kubelet', host: p.spec?.nodeName || '127.0.0.1' },
      firstTimestamp: t, lastTimestamp: t, count: 1,
    },
  });
  if (res.status !== 201) throw new Error(`record eviction of ${namespace}/${pod}: ${res.status} ${res.body.slice(0, 300)}`);
}
