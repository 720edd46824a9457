import { expect } from 'chai';
import { DEFAULT_RECOMMENDATION_CONFIG, DEFAULT_RECOMMENDATION_FORMAT, PodResourceRecommender } from '../../../../src/vpa/logic/index.ts';
import { AggregationsConfig } from '../../../../src/vpa/model/aggregations-config.ts';
import { MICROS_PER_HOUR, parseInstant } from '../../../../src/gomath/go-time.ts';
import { RecommenderLoop, type LoopOptions } from '../../../../src/vpa/routines/recommender-loop.ts';
import type { PodHistory } from '../../../../src/vpa/input/cluster-feeder.ts';
import { FakeIO, podObj, vpaObj } from './fixtures.ts';

const START_MS = parseInstant('2026-11-22T09:00:00Z') / 1000;

function options(clock: { ms: number }, extra: Partial<LoopOptions> = {}): LoopOptions {
  return {
    settings: {
      aggregations: new AggregationsConfig(),
      gates: {},
      recommender: new PodResourceRecommender(DEFAULT_RECOMMENDATION_CONFIG),
      format: DEFAULT_RECOMMENDATION_FORMAT,
      cpuIntegerPostProcessorEnabled: false,
    },
    filter: { recommenderName: 'default' },
    splitWithEhpa: true,
    checkpointsTimeoutMs: 60_000,
    checkpointsGcIntervalMs: 600_000,
    updateWorkers: 2,
    now: () => clock.ms,
    ...extra,
  };
}

/** Two days of hourly history for one pod of "web": CPU 200m..500m, memory 400 MB. */
function history(nowMs: number): PodHistory[] {
  const cpu: [number, number][] = [];
  const memory: [number, number][] = [];
  for (let h = 48; h >= 1; h--) {
    const t = (nowMs - h * 3_600_000) * 1000;
    cpu.push([t, 200 + (h % 4) * 100]);
    memory.push([t, 400e6]);
  }
  return [{ namespace: 'ns', pod: 'web-5f7c9d8b4-hx2lq', containers: new Map([['app', { cpu, memory }]]) }];
}

function setup() {
  const clock = { ms: START_MS };
  const io = new FakeIO();
  io.vpaList = [vpaObj('web', 'web'), vpaObj('other', 'web', { recommenders: [{ name: 'someone-else' }] })];
  io.podList = [podObj('web-1', { app: 'web' }), podObj('web-2', { app: 'web' })];
  io.history = async () => history(clock.ms);
  const live = () => {
    const t = clock.ms * 1000;
    io.usage = ['web-1', 'web-2'].map((pod) => ({ namespace: 'ns', pod, container: 'app', cpuMillicores: 50, memoryBytes: 100e6, time: t }));
  };
  const attribute = (_ns: string, pod: string) => (pod.startsWith('web-') ? { app: 'web' } : undefined);
  return { clock, io, live, attribute };
}

function target(io: FakeIO, name = 'web'): Record<string, string> | undefined {
  const st = io.vpaList.find((v) => v.metadata.name === name)!.status as { recommendation?: { containerRecommendations?: { target: Record<string, string> }[] } } | undefined;
  return st?.recommendation?.containerRecommendations?.[0]?.target;
}

describe('vpa routines: recommender loop', () => {
  it('recommends from history + live usage, honours spec.recommenders, writes checkpoints, and writes nothing when nothing changed', async () => {
    const { clock, io, live, attribute } = setup();
    const loop = new RecommenderLoop(io, options(clock, { historyPodLabels: attribute }));
    live();
    const s1 = await loop.runOnce();
    expect(s1).to.include({ vpas: 1, trackedPods: 2, trackedContainers: 2, statusWrites: 1, checkpointWrites: 1, ooms: 0 });
    expect(s1.historySamples).to.equal(96);
    expect(io.statusWrites.map((w) => w.name)).to.deep.equal(['web']);
    expect(Object.keys(target(io)!)).to.deep.equal(['cpu', 'memory']);
    // The 400 MB history peaks are the p90 memory peak; upstream's Percentile answers with the END of
    // that histogram bucket (buckets grow by 5%), then the 15% margin.
    const mem = Number(target(io)!['memory']);
    expect(mem).to.be.within(400e6 * 1.15, 400e6 * 1.05 * 1.15);
    expect([...io.stored.keys()]).to.deep.equal(['ns/web-app']);
    // Same instant, no new samples: the status is semantically unchanged, so no write.
    const s2 = await loop.runOnce();
    expect(s2.statusWrites).to.equal(0);
    expect(io.vpaList[1]!.status).to.equal(undefined);
  });

  it('recommends memory only, with a condition and one event, while an EHPA scales the target on CPU', async () => {
    const { clock, io, live, attribute } = setup();
    io.ehpaList = [{ metadata: { name: 'web', namespace: 'ns' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, metrics: [{ type: 'Resource', resource: { name: 'cpu' } }] } }];
    const loop = new RecommenderLoop(io, options(clock, { historyPodLabels: attribute }));
    live();
    await loop.runOnce();
    expect(Object.keys(target(io)!)).to.deep.equal(['memory']);
    clock.ms += 60_000;
    live();
    await loop.runOnce();
    expect(io.events).to.have.length(1);
    expect(io.events[0]).to.include({ name: 'web', reason: 'ResourcesSplitWithHPA' });
    // The EHPA goes away: CPU comes back and the condition is removed.
    io.ehpaList = [];
    clock.ms += 60_000;
    live();
    await loop.runOnce();
    expect(Object.keys(target(io)!)).to.deep.equal(['cpu', 'memory']);
    const conds = (io.vpaList[0]!.status as { conditions: { type: string }[] }).conditions.map((c) => c.type);
    expect(conds).to.deep.equal(['RecommendationProvided']);
  });

  it('an OOM raises the memory target', async () => {
    const { clock, io, live, attribute } = setup();
    const loop = new RecommenderLoop(io, options(clock, { historyPodLabels: attribute }));
    live();
    await loop.runOnce();
    const before = Number(target(io)!['memory']);
    clock.ms += 60_000;
    io.ooms = [{ namespace: 'ns', pod: 'web-1', container: 'app', memoryBytes: 1073741824, timestamp: clock.ms * 1000 }];
    const s = await loop.runOnce();
    expect(s.ooms).to.equal(1);
    const after = Number(target(io)!['memory']);
    expect(after).to.be.above(before);
    expect(after).to.be.at.least(1288490188); // max(1Gi × 1.2, 1Gi + 100Mi), plus the margin
  });

  it('a new process restores from the checkpoints instead of history and recommends the same', async () => {
    const { clock, io, live, attribute } = setup();
    const first = new RecommenderLoop(io, options(clock, { historyPodLabels: attribute }));
    live();
    await first.runOnce();
    const before = target(io);
    const samples = io.stored.get('ns/web-app')!.status.totalSamplesCount!;
    expect(samples).to.equal(48 + 2);
    // Restart: a fresh loop on the same "API". History would double-count, so it must not be read.
    let historyCalls = 0;
    const h = io.history!;
    io.history = async () => {
      historyCalls++;
      return h();
    };
    clock.ms += 120_000;
    const second = new RecommenderLoop(io, options(clock, { historyPodLabels: attribute }));
    live();
    const s = await second.runOnce();
    expect(s.checkpointsRestored).to.equal(1);
    expect(historyCalls).to.equal(1);
    expect(s.historySamples).to.equal(0);
    expect(target(io)).to.deep.equal(before);
    expect(io.stored.get('ns/web-app')!.status.totalSamplesCount).to.equal(samples + 2);
    // And without the checkpoints it would have been a different (from-scratch) recommendation.
    const scratch = new FakeIO();
    scratch.vpaList = [vpaObj('web', 'web')];
    scratch.podList = io.podList;
    scratch.usage = ['web-1', 'web-2'].map((pod) => ({ namespace: 'ns', pod, container: 'app', cpuMillicores: 50, memoryBytes: 100e6, time: clock.ms * 1000 }));
    await new RecommenderLoop(scratch, options(clock)).runOnce();
    expect(target(scratch)!['memory']).to.equal('250Mi'); // the pod minimum
    expect(target(scratch)).to.not.deep.equal(before);
  });

  it('deletes checkpoints whose VPA is gone and keeps the others', async () => {
    const { clock, io, live } = setup();
    io.stored.set('ns/gone-app', { metadata: { name: 'gone-app', namespace: 'ns' }, spec: { vpaObjectName: 'gone', containerName: 'app' }, status: { lastUpdateTime: null, firstSampleStart: null, lastSampleStart: null, version: 'v3' } });
    const loop = new RecommenderLoop(io, options(clock));
    live();
    const s = await loop.runOnce();
    expect(s.checkpointDeletes).to.equal(1);
    expect(io.deleted).to.deep.equal(['ns/gone-app']);
    expect([...io.stored.keys()]).to.deep.equal(['ns/web-app']);
  });

  it('a VPA whose target cannot be resolved gets ConfigUnsupported and NoPodsMatched', async () => {
    const { clock, io } = setup();
    io.selectorFor = () => ({ selectorKey: 'x', unsupported: 'Cannot read targetRef' });
    await new RecommenderLoop(io, options(clock)).runOnce();
    const conds = (io.vpaList[0]!.status as { conditions: { type: string; status: string }[] }).conditions;
    expect(conds.map((c) => `${c.type}=${c.status}`)).to.deep.equal(['ConfigUnsupported=True', 'NoPodsMatched=True', 'RecommendationProvided=False']);
  });

  it('loads history once per process: a second loop does not query it again', async () => {
    const { clock, io, live, attribute } = setup();
    let calls = 0;
    const h = io.history!;
    io.history = async () => {
      calls++;
      return h();
    };
    const loop = new RecommenderLoop(io, options(clock, { historyPodLabels: attribute }));
    live();
    await loop.runOnce();
    clock.ms += MICROS_PER_HOUR / 1000;
    live();
    await loop.runOnce();
    expect(calls).to.equal(1);
  });

  it('a refused history load is a Warning event and FetchingHistory=False on the VPAs it was for, not only a log line', async () => {
    const { clock, io, live, attribute } = setup();
    // "cached" is restored from a checkpoint (so it needs no history); "web" has none.
    io.vpaList.push(vpaObj('cached', 'cached'));
    io.podList.push(podObj('cached-1', { app: 'cached' }));
    io.stored.set('ns/cached-app', { metadata: { name: 'cached-app', namespace: 'ns' }, spec: { vpaObjectName: 'cached', containerName: 'app' }, status: { lastUpdateTime: null, firstSampleStart: null, lastSampleStart: null, version: 'v3' } });
    io.history = () => Promise.reject(new Error('prometheus at https://prom:9090 refused the credentials: HTTP 401'));
    const logged: unknown[] = [];
    const log = { info: () => undefined, warn: (o: unknown) => logged.push(o) } as unknown as LoopOptions['log'];
    const loop = new RecommenderLoop(io, options(clock, { historyPodLabels: attribute, log }));
    live();
    const s1 = await loop.runOnce();
    expect(logged).to.deep.equal([{ err: 'prometheus at https://prom:9090 refused the credentials: HTTP 401' }]);
    expect(s1.events).to.equal(1);
    expect(io.events).to.have.length(1);
    expect(io.events[0]).to.include({ name: 'web', reason: 'HistoryUnavailable' });
    expect(io.events[0]!.message).to.match(/^Prometheus history could not be loaded when this recommender started: prometheus at https:\/\/prom:9090 refused the credentials: HTTP 401\. /);
    const cond = (name: string) => (io.vpaList.find((v) => v.metadata.name === name)!.status as { conditions: { type: string; status: string; reason?: string; message?: string }[] }).conditions.find((c) => c.type === 'FetchingHistory');
    expect(cond('web')).to.include({ status: 'False', reason: 'HistoryUnavailable', message: io.events[0]!.message });
    expect(cond('cached')).to.equal(undefined);
    // The loop goes on from live usage, and the condition stays (no second event, no needless write).
    expect(target(io)!['memory']).to.equal('250Mi');
    clock.ms += 60_000;
    const s2 = await loop.runOnce();
    expect(s2).to.include({ events: 0, statusWrites: 0 });
    expect(cond('web')).to.include({ status: 'False', reason: 'HistoryUnavailable' });
    // The next term loads its history: the condition goes, the recommendation comes from the history.
    io.history = async () => history(clock.ms);
    io.stored.clear();
    clock.ms += 60_000;
    live();
    const next = await new RecommenderLoop(io, options(clock, { historyPodLabels: attribute })).runOnce();
    expect(next.historySamples).to.equal(96);
    expect(cond('web')).to.equal(undefined);
    expect(Number(target(io)!['memory'])).to.be.within(400e6 * 1.15, 400e6 * 1.05 * 1.15);
  });
});

// The loop shares serve's thread with the metrics APIs: its synchronous steps hand the event loop a turn
// every sliceBudgetMs (kube/event-loop-turns.ts). FakeIO answers from memory, so without those turns a
// whole loop is one chain of resolved promises and no other callback runs until it ends.
describe('vpa routines: recommender loop in time slices', () => {
  const APPS = 60;
  /** 60 VPAs, two pods each, a day of hourly history and one usage sample per pod. */
  function cluster(clockMs: number): FakeIO {
    const io = new FakeIO();
    io.vpaList = Array.from({ length: APPS }, (_, i) => vpaObj(`app-${i}`, `app-${i}`));
    io.podList = io.vpaList.flatMap((_, i) => [podObj(`app-${i}-a`, { app: `app-${i}` }), podObj(`app-${i}-b`, { app: `app-${i}` })]);
    io.history = async () =>
      io.podList.map((p, k) => {
        const cpu: [number, number][] = [];
        const memory: [number, number][] = [];
        for (let h = 24; h >= 1; h--) {
          const t = (clockMs - h * 3_600_000) * 1000;
          cpu.push([t, 100 + ((h + k) % 5) * 40]);
          memory.push([t, 200e6 + k * 1e6]);
        }
        return { namespace: 'ns', pod: p.metadata.name, containers: new Map([['app', { cpu, memory }]]) };
      });
    io.usage = io.podList.map((p, k) => ({ namespace: 'ns', pod: p.metadata.name, container: 'app', cpuMillicores: 60 + k, memoryBytes: 150e6, time: clockMs * 1000 }));
    return io;
  }

  /** One loop; also the turns the event loop took while it ran (a setImmediate that re-arms itself). */
  async function loopCountingTurns(sliceBudgetMs: number) {
    const clock = { ms: START_MS };
    const io = cluster(clock.ms);
    const loop = new RecommenderLoop(io, options(clock, { sliceBudgetMs, historyPodLabels: (_ns, pod) => ({ app: pod.replace(/-[ab]$/, '') }) }));
    let turns = 0;
    let running = true;
    const turn = () => {
      if (!running) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    const stats = await loop.runOnce();
    running = false;
    return { io, stats, turns };
  }

  it('with a tiny budget other callbacks run between its steps, and the model ends the same as in one stretch', async () => {
    const sliced = await loopCountingTurns(1e-9);
    const whole = await loopCountingTurns(1e9);
    expect(sliced.stats).to.include({ vpas: APPS, trackedPods: 2 * APPS, statusWrites: APPS });
    expect(sliced.stats.historySamples).to.equal(2 * APPS * 48);
    // At least one turn per VPA recommended (the update step pauses before each).
    expect(sliced.turns).to.be.at.least(APPS);
    // In one stretch nothing else ran at all.
    expect(whole.turns).to.equal(0);
    expect(sliced.io.statusWrites).to.deep.equal(whole.io.statusWrites);
    expect([...sliced.io.stored.entries()]).to.deep.equal([...whole.io.stored.entries()]);
  });
});
