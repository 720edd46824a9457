// The one "available pod" rule of the EHPA controller (docs/crane-behaviour.md §B.3) and the adapter (§C.3):
// gocrane/crane pkg/utils/pod.go IsPodAvailable(pod, 30, now), copied from k8s.io/kubernetes
// pkg/api/v1/pod/util.go: `minReadySeconds == 0 || (!c.LastTransitionTime.IsZero() &&
// c.LastTransitionTime.Add(minReadySecondsDuration).Before(now.Time))`, behind Crane's IsPodReady (not
// deleting, phase Running, Ready=True). Each edge once.
import { expect } from 'chai';
import { isPodAvailable, isPodRunning, POD_MIN_READY_MS, type PodLike } from '../../../src/api/pod.ts';

const NOW = Date.parse('2026-11-22T08:00:00Z');
const readySince = (ms: number) => new Date(ms).toISOString();

function pod(over: { phase?: string; ready?: string; since?: string | null; deleting?: boolean } = {}): PodLike {
  const since = over.since === undefined ? readySince(NOW - 10 * 60_000) : over.since;
  return {
    metadata: { name: 'p', ...(over.deleting ? { deletionTimestamp: '2026-11-22T07:59:00Z' } : {}) },
    status: {
      phase: over.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: over.ready ?? 'True', ...(since === null ? {} : { lastTransitionTime: since }) }],
    },
  };
}

describe('isPodAvailable: Crane IsPodAvailable(pod, 30, now)', () => {
  it('Crane waits 30 s (GetAvailablePods passes minReadySeconds 30)', () => {
    expect(POD_MIN_READY_MS).to.equal(30_000);
  });

  it('a pod Ready long ago is available', () => {
    expect(isPodAvailable(pod(), NOW)).to.equal(true);
  });

  it('a Ready condition without lastTransitionTime is not (LastTransitionTime.IsZero())', () => {
    expect(isPodAvailable(pod({ since: null }), NOW)).to.equal(false);
  });

  it('exactly 30 s after the transition is not yet (Before is strict)', () => {
    expect(isPodAvailable(pod({ since: readySince(NOW - 30_000) }), NOW)).to.equal(false);
  });

  it('30 s + 1 ms after the transition is', () => {
    expect(isPodAvailable(pod({ since: readySince(NOW - 30_001) }), NOW)).to.equal(true);
  });

  it('a pod being deleted is not (Crane IsPodReady: DeletionTimestamp != nil)', () => {
    expect(isPodAvailable(pod({ deleting: true }), NOW)).to.equal(false);
  });

  it('a pod not Running is not (Crane IsPodReady: Phase != PodRunning)', () => {
    expect(isPodAvailable(pod({ phase: 'Pending' }), NOW)).to.equal(false);
  });

  it('Ready=False is not (IsPodReady: condition.Status == ConditionTrue)', () => {
    expect(isPodAvailable(pod({ ready: 'False' }), NOW)).to.equal(false);
  });
});

describe('isPodRunning: the observed-usage fallback pods', () => {
  it('Running and not being deleted, readiness aside', () => {
    expect(isPodRunning(pod({ ready: 'False' }))).to.equal(true);
    expect(isPodRunning(pod({ deleting: true }))).to.equal(false);
    expect(isPodRunning(pod({ phase: 'Pending' }))).to.equal(false);
  });
});
