// The informers' cache transforms: managedFields never reach the cache, and a trimmed pod or eviction
// event drives every reader of the pod cache exactly as the whole object does (each reader is run on
// both and the answers compared), while taking a fraction of the bytes.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { cacheTransformFor, dropManagedFields, trimEvent, trimPod } from '../../../src/kube/cache-transforms.ts';
import { summarizeCpuRequests } from '../../../src/ehpa/pod-requests.ts';
import { oomsFromEvictionEvent, oomsFromPodUpdate, type EventJSON, type PodJSON } from '../../../src/vpa/input/oom-observer.ts';
import { ClusterFeeder, type PodObject } from '../../../src/vpa/input/cluster-feeder.ts';
import { ClusterState } from '../../../src/vpa/model/cluster-state.ts';
import { isPodAvailable, isPodRunning, type PodLike } from '../../../src/api/pod.ts';
import { parseInstant } from '../../../src/gomath/go-time.ts';

type Json = Record<string, unknown>;
const POD: Json = JSON.parse(readFileSync(new URL('./fixtures/deployment-pod.json', import.meta.url), 'utf8'));
const fresh = (): Json => structuredClone(POD);
const NOW = Date.parse('2026-03-02T12:00:00Z');

/** The same pod one restart earlier: running, no OOM yet (for the OOM observer's before/after). */
function previous(pod: Json): Json {
  const p = structuredClone(pod) as { status: { containerStatuses: Json[] } };
  const cs = p.status.containerStatuses[0]!;
  cs['restartCount'] = 0;
  cs['state'] = { running: { startedAt: '2026-03-02T09:14:29Z' } };
  cs['lastState'] = {};
  return p as unknown as Json;
}

const EVICTION: Json = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: {
    name: 'checkout-7d9f8c6b5-x2kqz.1829a',
    namespace: 'shop',
    uid: 'e1',
    resourceVersion: '9',
    creationTimestamp: '2026-03-02T11:00:00Z',
    annotations: { offending_containers: 'checkout,log-shipper', offending_containers_usage: '700Mi,10Mi', starved_resource: 'memory,memory' },
    managedFields: [{ manager: 'kubelet', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:count': {} } }],
  },
  involvedObject: { kind: 'Pod', namespace: 'shop', name: 'checkout-7d9f8c6b5-x2kqz', uid: 'p1', apiVersion: 'v1', resourceVersion: '48211937' },
  reason: 'Evicted',
  message: 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 91Mi. Container checkout was using 700Mi, request is 384Mi, has larger consumption of memory.',
  source: { component: 'kubelet', host: 'worker-eu-west-1b-07' },
  firstTimestamp: '2026-03-02T11:00:00Z',
  lastTimestamp: '2026-03-02T11:00:00Z',
  count: 1,
  type: 'Warning',
  reportingComponent: 'kubelet',
  reportingInstance: 'worker-eu-west-1b-07',
};

describe('informer cache transforms', () => {
  it('every kind loses metadata.managedFields and keeps the rest', () => {
    const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'n', resourceVersion: '3', managedFields: [{ manager: 'x' }] }, spec: { maxReplicas: 3 } };
    const t = cacheTransformFor({ apiVersion: 'autoscaling/v2', plural: 'horizontalpodautoscalers' });
    expect(t).to.equal(dropManagedFields);
    expect(t(structuredClone(hpa))).to.deep.equal({ ...hpa, metadata: { name: 'h', namespace: 'n', resourceVersion: '3' } });
    const pod = cacheTransformFor({ apiVersion: 'v1', plural: 'pods' })(fresh());
    expect(pod['metadata']).not.to.have.property('managedFields');
    expect(cacheTransformFor({ apiVersion: 'v1', plural: 'events' })(structuredClone(EVICTION))['metadata']).not.to.have.property('managedFields');
  });

  it('a trimmed pod keeps identity, labels, owner, phase, Ready, requests and container statuses; drops the rest', () => {
    const t = trimPod(fresh()) as {
      apiVersion: string;
      kind: string;
      metadata: Json;
      spec: { containers: Json[]; volumes?: unknown; nodeName?: unknown };
      status: { phase: string; conditions: Json[]; containerStatuses: Json[]; podIP?: unknown };
    };
    expect(t.apiVersion).to.equal('v1');
    expect(t.kind).to.equal('Pod');
    expect(Object.keys(t.metadata).sort()).to.deep.equal(['creationTimestamp', 'labels', 'name', 'namespace', 'ownerReferences', 'resourceVersion', 'uid']);
    expect(t.spec.containers).to.deep.equal([
      { name: 'checkout', resources: { limits: { memory: '512Mi' }, requests: { cpu: '250m', memory: '384Mi' } } },
      { name: 'log-shipper', resources: { limits: { memory: '64Mi' }, requests: { cpu: '20m', memory: '32Mi' } } },
    ]);
    expect(t.spec).not.to.have.any.keys('volumes', 'nodeName', 'tolerations', 'affinity');
    expect(t.status).not.to.have.any.keys('podIP', 'hostIP', 'qosClass', 'startTime');
    // Ready is the one condition any loop reads; the others are dropped.
    expect(t.status.conditions).to.deep.equal([{ type: 'Ready', status: 'True', lastTransitionTime: '2026-03-02T09:14:41Z' }]);
    expect(t.status.containerStatuses[0]).to.deep.equal({
      name: 'checkout',
      restartCount: 1,
      resources: { limits: { memory: '512Mi' }, requests: { cpu: '250m', memory: '384Mi' } },
      state: { running: { startedAt: '2026-03-02T10:02:13Z' } },
      lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: '2026-03-02T10:02:12Z' } },
    });
    // A terminating pod keeps its deletionTimestamp (every availability check reads it).
    const dying = fresh();
    (dying['metadata'] as Json)['deletionTimestamp'] = '2026-03-02T11:59:00Z';
    expect((trimPod(dying)['metadata'] as Json)['deletionTimestamp']).to.equal('2026-03-02T11:59:00Z');
  });

  it('every reader of the pod cache gives the same answer on the trimmed pod as on the whole one', () => {
    const variants: Json[] = [fresh(), previous(fresh())];
    const dying = fresh();
    (dying['metadata'] as Json)['deletionTimestamp'] = '2026-03-02T11:59:00Z';
    const pending = fresh();
    (pending['status'] as Json)['phase'] = 'Pending';
    variants.push(dying, pending);
    for (const whole of variants) {
      const trimmed = trimPod(structuredClone(whole));
      // EHPA controller: CPU requests over available pods; the metrics adapter: availability.
      expect(summarizeCpuRequests([trimmed as unknown as PodLike], NOW)).to.deep.equal(summarizeCpuRequests([whole as unknown as PodLike], NOW));
      expect(isPodAvailable(trimmed as unknown as PodLike, NOW)).to.equal(isPodAvailable(whole as unknown as PodLike, NOW));
      expect(isPodRunning(trimmed as unknown as PodLike)).to.equal(isPodRunning(whole as unknown as PodLike));
      // VPA recommender: the model the feeder builds from the pod.
      const model = (p: Json) => {
        const f = new ClusterFeeder(new ClusterState());
        f.syncVpas([{ obj: { metadata: { name: 'checkout', namespace: 'shop', generation: 1 } }, target: { selector: (l) => l?.['app.kubernetes.io/name'] === 'checkout', selectorKey: 'k' } }]);
        f.syncPods([p as unknown as PodObject], parseInstant('2026-03-02T12:00:00Z'));
        return [...f.cluster.pods.values()].map((s) => ({ id: s.id, labels: s.labels, phase: s.phase, init: s.initContainers, containers: [...s.containers.entries()].map(([n, c]) => [n, c.request]) }));
      };
      expect(model(trimmed)).to.deep.equal(model(whole));
      if (whole === variants[0]) expect(model(whole)).to.have.length(1); // the running pod is modelled
    }
    // The readers did see something: the fixture is an available pod with 270m of CPU requests.
    expect(summarizeCpuRequests([trimPod(fresh()) as unknown as PodLike], NOW)).to.deep.include({ pods: 1, requestMilli: 270 });
    // OOM observer: the restart with lastState OOMKilled is found on trimmed pods as on whole ones.
    const [before, after] = [previous(fresh()), fresh()];
    const whole = oomsFromPodUpdate(before as PodJSON, after as PodJSON);
    expect(whole).to.have.length(1);
    expect(oomsFromPodUpdate(trimPod(structuredClone(before)) as PodJSON, trimPod(structuredClone(after)) as PodJSON)).to.deep.equal(whole);
  });

  it('a trimmed eviction event gives the VPA recommender the same OOMs', () => {
    const whole = oomsFromEvictionEvent(EVICTION as EventJSON);
    expect(whole).to.have.length(2);
    const trimmed = trimEvent(structuredClone(EVICTION));
    expect(oomsFromEvictionEvent(trimmed as EventJSON)).to.deep.equal(whole);
    expect(trimmed).not.to.have.any.keys('message', 'source', 'count', 'firstTimestamp');
  });

  it('bytes per cached pod: the trimmed pod is under a fifth of the whole one', () => {
    const wholeBytes = JSON.stringify(POD).length;
    const noManaged = JSON.stringify(dropManagedFields(fresh())).length;
    const trimmedBytes = JSON.stringify(trimPod(fresh())).length;
    expect(noManaged).to.be.below(wholeBytes * 0.7);
    expect(trimmedBytes).to.be.below(wholeBytes / 5);
  });
});
