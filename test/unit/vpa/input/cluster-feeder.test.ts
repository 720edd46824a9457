import { expect } from 'chai';
import { AggregateContainerState } from '../../../../src/vpa/model/aggregate-container-state.ts';
import { ClusterState } from '../../../../src/vpa/model/cluster-state.ts';
import { MICROS_PER_HOUR, parseInstant } from '../../../../src/gomath/go-time.ts';
import { ClusterFeeder, type PodHistory } from '../../../../src/vpa/input/cluster-feeder.ts';
import { appSelector, podObj, vpaObj } from '../routines/fixtures.ts';

const NOW = parseInstant('2026-11-22T09:00:00Z');
const web = vpaObj('web', 'web');

function feeder(): ClusterFeeder {
  const f = new ClusterFeeder(new ClusterState());
  f.syncVpas([{ obj: web, target: appSelector(web) }]);
  return f;
}

describe('vpa routines: cluster feeder', () => {
  it('tracks only non-Pending pods some VPA selects, and forgets pods that go away', () => {
    const f = feeder();
    const pods = [
      podObj('web-1', { app: 'web' }),
      podObj('web-2', { app: 'web' }, { phase: 'Pending' }),
      podObj('api-1', { app: 'api' }),
      podObj('web-3', { app: 'web' }, { namespace: 'other' }),
    ];
    expect(f.syncPods(pods, NOW).tracked).to.equal(1);
    expect([...f.cluster.pods.keys()]).to.deep.equal(['ns/web-1']);
    expect(f.cluster.vpas.get('ns/web')!.podCount).to.equal(1);
    expect(f.cluster.getContainer({ namespace: 'ns', podName: 'web-1' }, 'app')!.request).to.deep.equal({ cpu: 100, memory: 1073741824 });
    f.syncPods([], NOW);
    expect(f.cluster.pods.size).to.equal(0);
    expect(f.cluster.vpas.get('ns/web')!.podCount).to.equal(0);
  });

  it('starts tracking a pod once a VPA selects it, and stops when the VPA is deleted', () => {
    const f = feeder();
    const api = [podObj('api-1', { app: 'api' })];
    f.syncPods(api, NOW);
    expect(f.cluster.pods.size).to.equal(0);
    const vApi = vpaObj('api', 'api');
    f.syncVpas([{ obj: web, target: appSelector(web) }, { obj: vApi, target: appSelector(vApi) }]);
    f.syncPods(api, NOW);
    expect([...f.cluster.pods.keys()]).to.deep.equal(['ns/api-1']);
    f.syncVpas([{ obj: web, target: appSelector(web) }]);
    f.syncPods(api, NOW);
    expect(f.cluster.pods.size).to.equal(0);
    expect(f.cluster.vpas.has('ns/api')).to.equal(false);
  });

  it('keeps the checkpointed state of a VPA across spec updates', () => {
    const f = feeder();
    const before = f.cluster.vpas.get('ns/web')!;
    before.containersInitialAggregateState.set('app', new AggregateContainerState(f.cluster.config, NOW));
    const updated = { ...web, metadata: { ...web.metadata, generation: 2 } };
    f.syncVpas([{ obj: updated, target: appSelector(updated) }]);
    const after = f.cluster.vpas.get('ns/web')!;
    expect(after).to.not.equal(before);
    expect([...after.containersInitialAggregateState.keys()]).to.deep.equal(['app']);
    // Unchanged generation and selector: the same state object stays (no re-linking every loop).
    f.syncVpas([{ obj: updated, target: appSelector(updated) }]);
    expect(f.cluster.vpas.get('ns/web')).to.equal(after);
  });

  it('feeds usage to tracked containers only, discarding duplicate CPU timestamps like upstream', () => {
    const f = feeder();
    f.syncPods([podObj('web-1', { app: 'web' }), podObj('api-1', { app: 'api' })], NOW);
    const n = f.addUsage([
      { namespace: 'ns', pod: 'web-1', container: 'app', cpuMillicores: 120, memoryBytes: 2e8, time: NOW },
      { namespace: 'ns', pod: 'web-1', container: 'app', cpuMillicores: 130, time: NOW },
      { namespace: 'ns', pod: 'api-1', container: 'app', cpuMillicores: 50, time: NOW },
    ]);
    expect(n).to.deep.equal({ accepted: 2, rejected: 1, untracked: 1 });
  });

  it('records an OOM as a bumped-up memory peak: request 1Gi gives 1.2Gi (upstream TestRecordOOM numbers)', () => {
    const f = feeder();
    f.syncPods([podObj('web-1', { app: 'web' })], NOW);
    const n = f.recordOoms([
      { namespace: 'ns', pod: 'web-1', container: 'app', memoryBytes: 1073741824, timestamp: NOW },
      { namespace: 'ns', pod: 'gone', container: 'app', memoryBytes: 1, timestamp: NOW },
    ]);
    expect(n).to.deep.equal({ accepted: 1, rejected: 0, untracked: 1 });
    expect(f.cluster.getContainer({ namespace: 'ns', podName: 'web-1' }, 'app')!.oomPeak).to.equal(1288490188);
  });

  it('history: live pods keep their labels, dead ones are attributed by the resolver, restored VPAs are skipped', () => {
    const f = feeder();
    f.syncPods([podObj('web-1', { app: 'web', hash: 'a' })], NOW);
    const h = (pod: string): PodHistory => ({
      namespace: 'ns',
      pod,
      containers: new Map([['app', { cpu: [[NOW - 2 * MICROS_PER_HOUR, 100], [NOW - MICROS_PER_HOUR, 200]], memory: [[NOW - MICROS_PER_HOUR, 3e8]] }]]),
    });
    const labelsOf = (x: PodHistory) => (x.pod === 'web-old' ? { app: 'web' } : undefined);
    const n = f.feedHistory([h('web-1'), h('web-old'), h('unknown')], NOW, labelsOf, () => false);
    expect(n).to.deep.equal({ accepted: 6, rejected: 0, untracked: 1 });
    expect(f.cluster.pods.get('ns/web-1')!.labels).to.deep.equal({ app: 'web', hash: 'a' });
    expect(f.cluster.aggregates.size).to.equal(2);
    // After the next pod sync the dead pod is gone, its aggregate (with its samples) stays.
    f.syncPods([podObj('web-1', { app: 'web', hash: 'a' })], NOW);
    expect(f.cluster.pods.has('ns/web-old')).to.equal(false);
    expect([...f.cluster.aggregates.values()].map((a) => a.state.totalSamplesCount)).to.deep.equal([2, 2]);
    const skipped = feeder().feedHistory([h('web-old')], NOW, labelsOf, () => true);
    expect(skipped).to.deep.equal({ accepted: 0, rejected: 0, untracked: 1 });
  });
});
