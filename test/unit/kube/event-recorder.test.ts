// The event recorder (src/kube/event-recorder.ts): the same event becomes one Event whose count grows, a
// flood of events waits in a bounded queue, and forgetting old events does not cost a scan per event.
import { expect } from 'chai';
import pino from 'pino';
import { EventRecorder, MAX_QUEUED_EVENTS } from '../../../src/kube/event-recorder.ts';
import type { KubeApiClient } from '../../../src/kube/api-client.ts';

interface Call {
  verb: 'create' | 'patch';
  path: string;
  body: Record<string, unknown>;
}

function fakeClient(calls: Call[], gate?: Promise<void>): KubeApiClient {
  const client = {
    create: async (path: string, body: Record<string, unknown>) => {
      await gate;
      calls.push({ verb: 'create', path, body });
      return body;
    },
    patch: async (path: string, body: Record<string, unknown>) => {
      await gate;
      calls.push({ verb: 'patch', path, body });
      return body;
    },
  };
  return client as unknown as KubeApiClient;
}

const obj = (name: string) => ({ apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler', metadata: { name, namespace: 'ns', uid: `uid-${name}` } });
const silent = pino({ level: 'silent' });

describe('EventRecorder', () => {
  it('the same event becomes one Event; its count is patched at most once a minute', async () => {
    const calls: Call[] = [];
    const clock = { now: 0 };
    const r = new EventRecorder(fakeClient(calls), 'test', silent, () => clock.now);
    r.event(obj('a'), 'Warning', 'FailedGetScale', 'no such Deployment');
    r.event(obj('a'), 'Warning', 'FailedGetScale', 'no such Deployment');
    await r.flush();
    clock.now = 61_000;
    r.event(obj('a'), 'Warning', 'FailedGetScale', 'no such Deployment');
    await r.flush();
    expect(calls.map((c) => c.verb)).to.deep.equal(['create', 'patch']);
    expect(calls[1]?.body['count']).to.equal(3);
    expect(calls[0]?.path).to.equal('/api/v1/namespaces/ns/events');
  });

  it(`at most ${MAX_QUEUED_EVENTS} events wait; the rest are dropped and counted`, async () => {
    const calls: Call[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const r = new EventRecorder(fakeClient(calls, gate), 'test', silent, () => 0);
    for (let i = 0; i < MAX_QUEUED_EVENTS + 500; i++) r.event(obj(`e${i}`), 'Normal', 'SuccessfulCreate', 'created HPA');
    expect(r.dropped).to.equal(500);
    open();
    await r.flush();
    expect(calls.length).to.equal(MAX_QUEUED_EVENTS);
    // Room again once the queue drained.
    r.event(obj('late'), 'Normal', 'SuccessfulCreate', 'created HPA');
    await r.flush();
    expect(calls.length).to.equal(MAX_QUEUED_EVENTS + 1);
  });

  it('an event not seen for the dedupe window is a new Event again', async () => {
    const calls: Call[] = [];
    const clock = { now: 0 };
    const r = new EventRecorder(fakeClient(calls), 'test', silent, () => clock.now);
    r.event(obj('a'), 'Normal', 'SuccessfulCreate', 'created HPA');
    await r.flush();
    clock.now = 11 * 60_000;
    r.event(obj('b'), 'Normal', 'SuccessfulCreate', 'created HPA');
    r.event(obj('a'), 'Normal', 'SuccessfulCreate', 'created HPA');
    await r.flush();
    expect(calls.map((c) => c.verb)).to.deep.equal(['create', 'create', 'create']);
  });

  it('20,000 distinct events in a row take under 2 s of bookkeeping (a scan of the dedupe cache per event took 5 s)', async () => {
    const calls: Call[] = [];
    const r = new EventRecorder(fakeClient(calls), 'test', silent, () => 0);
    const t0 = performance.now();
    for (let batch = 0; batch < 20; batch++) {
      for (let i = 0; i < MAX_QUEUED_EVENTS; i++) r.event(obj(`e${batch}-${i}`), 'Normal', 'SuccessfulCreate', 'created HPA');
      await r.flush();
    }
    expect(calls.length).to.equal(20_000);
    expect(performance.now() - t0).to.be.below(2_000);
  });
});
