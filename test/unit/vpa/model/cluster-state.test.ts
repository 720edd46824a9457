// The cluster view the recommender loop will drive: aggregation keys, label changes, VPA updates, GC.
import { expect } from 'chai';
import { AggregateContainerState, ClusterState, VpaState, containerNameToAggregateStateMap, labelSetKey } from '../../../../src/vpa/model/index.ts';

const T = Date.UTC(2024, 2, 10) * 1000;
const MIN = 60_000_000;
const DAY = 24 * 60 * MIN;

describe('ClusterState', () => {
  it('keys aggregates by namespace, container name and sorted labels (pods with equal labels share one)', () => {
    expect(labelSetKey({ b: '2', a: '1' })).to.equal('a=1,b=2');
    const c = new ClusterState();
    for (const p of ['p-0', 'p-1']) {
      c.addOrUpdatePod({ namespace: 'ns', podName: p }, { app: 'web' }, 'Running');
      c.addOrUpdateContainer({ namespace: 'ns', podName: p }, 'app', T);
    }
    expect(c.aggregates.size).to.equal(1);
    // Same timestamp in two pods: both CPU samples count (each container has its own last-sample time).
    expect(c.addCPUSample({ namespace: 'ns', podName: 'p-0' }, 'app', 100, T)).to.equal(true);
    expect(c.addCPUSample({ namespace: 'ns', podName: 'p-1' }, 'app', 100, T)).to.equal(true);
    expect([...c.aggregates.values()][0]!.state.totalSamplesCount).to.equal(2);
  });

  it('re-links a pod to a new aggregate when its labels change; a VPA counts matching pods', () => {
    const c = new ClusterState();
    const vpa = c.addOrUpdateVpa(new VpaState('ns', 'v', (l) => l.app === 'web'));
    const id = { namespace: 'ns', podName: 'p-0' };
    c.addOrUpdatePod(id, { app: 'web' }, 'Running');
    c.addOrUpdateContainer(id, 'app', T);
    c.addCPUSample(id, 'app', 100, T);
    expect(vpa.podCount).to.equal(1);
    c.addOrUpdatePod(id, { app: 'web', track: 'canary' }, 'Running');
    c.addCPUSample(id, 'app', 100, T + MIN);
    expect(c.aggregates.size).to.equal(2);
    expect(vpa.aggregateContainerStates.size).to.equal(2);
    expect(vpa.aggregateStateByContainerName(c.config, T).get('app')!.totalSamplesCount).to.equal(2);
    c.addOrUpdatePod(id, { app: 'db' }, 'Running');
    expect(vpa.podCount).to.equal(0);
  });

  it('updates a VPA in place when its selector is unchanged (keeping checkpointed state), replaces it otherwise', () => {
    const c = new ClusterState();
    const first = new VpaState('ns', 'v', () => true);
    first.selectorKey = 'app=web';
    c.addOrUpdateVpa(first);
    first.containersInitialAggregateState.set('app', new AggregateContainerState());
    const again = new VpaState('ns', 'v', () => true, { containerPolicies: [{ containerName: 'app', mode: 'Off' }] });
    again.selectorKey = 'app=web';
    expect(c.addOrUpdateVpa(again)).to.equal(first);
    expect(first.containersInitialAggregateState.size).to.equal(1);
    expect(containerNameToAggregateStateMap(first, c.config, T).size).to.equal(0); // mode Off drops the name
    const moved = new VpaState('ns', 'v', () => true);
    moved.selectorKey = 'app=api';
    expect(c.addOrUpdateVpa(moved)).to.equal(moved);
    expect(moved.containersInitialAggregateState.size).to.equal(0);
  });

  it('garbage-collects expired aggregates at most once per interval; containers then write to a fresh one', () => {
    const c = new ClusterState();
    const id = { namespace: 'ns', podName: 'p-0' };
    c.addOrUpdatePod(id, {}, 'Running');
    c.addOrUpdateContainer(id, 'app', T);
    c.addCPUSample(id, 'app', 100, T);
    const before = [...c.aggregates.values()][0]!.state;
    c.garbageCollect(T + 7 * DAY, 60 * MIN);
    expect(c.aggregates.size).to.equal(1);
    c.garbageCollect(T + 8 * DAY, 60 * MIN); // a day after the last GC it runs again: 8 days without samples
    expect(c.aggregates.size).to.equal(0);
    expect(before.removed).to.equal(true);
    c.addCPUSample(id, 'app', 100, T + 8 * DAY + MIN);
    const after = [...c.aggregates.values()][0]!.state;
    expect(after).to.not.equal(before);
    expect(after.totalSamplesCount).to.equal(1);
  });

  it('refuses samples for unknown pods and containers', () => {
    const c = new ClusterState();
    expect(() => c.addCPUSample({ namespace: 'ns', podName: 'x' }, 'app', 1, T)).to.throw(/does not exist/);
    expect(() => c.addOrUpdateContainer({ namespace: 'ns', podName: 'x' }, 'app', T)).to.throw(/does not exist/);
  });
});
