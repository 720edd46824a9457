// ClusterState bookkeeping (k8s.io/autoscaler vertical-pod-autoscaler v1.x pkg/recommender/model/cluster.go
// AddOrUpdateVpa, DeleteVpa, AddOrUpdatePod, garbageCollectAggregateCollectionStates; model/vpa.go
// UseAggregationIfMatching, SetResourcePolicy): pod counts follow label changes, a VPA only matches its own
// namespace, deleting a VPA un-marks its aggregates, and GC runs at most once per interval.
import { expect } from 'chai';
import { ClusterState, VpaState } from '../../../../src/vpa/model/index.ts';
import { MICROS_PER_HOUR } from '../../../../src/gomath/go-time.ts';

const T0 = 1767323045_000_000;
const H = MICROS_PER_HOUR;
const web = (ns = 'ns') => new VpaState(ns, 'web', (l) => l['app'] === 'web');

describe('ClusterState bookkeeping', () => {
  it('a VPA added after its pods counts them; pods in another namespace or with other labels do not count', () => {
    const c = new ClusterState();
    c.addOrUpdatePod({ namespace: 'ns', podName: 'a' }, { app: 'web' }, 'Running');
    c.addOrUpdatePod({ namespace: 'ns', podName: 'b' }, { app: 'web' }, 'Running');
    c.addOrUpdatePod({ namespace: 'other', podName: 'c' }, { app: 'web' }, 'Running');
    c.addOrUpdatePod({ namespace: 'ns', podName: 'd' }, { app: 'db' }, 'Running');
    const v = c.addOrUpdateVpa(web());
    expect(v.podCount).to.equal(2);
  });

  it('a pod whose labels change moves its count from one VPA to the other; same labels change nothing', () => {
    const c = new ClusterState();
    const w = c.addOrUpdateVpa(web());
    const d = c.addOrUpdateVpa(new VpaState('ns', 'db', (l) => l['app'] === 'db'));
    const id = { namespace: 'ns', podName: 'a' };
    c.addOrUpdatePod(id, { app: 'web' }, 'Running');
    expect([w.podCount, d.podCount]).to.deep.equal([1, 0]);
    c.addOrUpdatePod(id, { app: 'web' }, 'Running');
    expect([w.podCount, d.podCount]).to.deep.equal([1, 0]);
    c.addOrUpdatePod(id, { app: 'db' }, 'Running');
    expect([w.podCount, d.podCount]).to.deep.equal([0, 1]);
    expect(c.pods.get('ns/a')!.labels).to.deep.equal({ app: 'db' });
    c.deletePod(id);
    expect([w.podCount, d.podCount]).to.deep.equal([0, 0]);
  });

  it('links aggregates only to a VPA of the same namespace, and deleting the VPA marks them not autoscaled', () => {
    const c = new ClusterState();
    const w = c.addOrUpdateVpa(web());
    const elsewhere = c.addOrUpdateVpa(web('other'));
    const id = { namespace: 'ns', podName: 'a' };
    c.addOrUpdatePod(id, { app: 'web' }, 'Running');
    c.addOrUpdateContainer(id, 'app', T0);
    expect(w.aggregateContainerStates.size).to.equal(1);
    expect(elsewhere.aggregateContainerStates.size).to.equal(0);
    const state = [...w.aggregateContainerStates.values()][0]?.state;
    expect(state!.isUnderVPA).to.equal(true);
    c.deleteVpa('ns', 'web');
    expect(state!.isUnderVPA).to.equal(false);
    expect(c.vpas.has('ns/web')).to.equal(false);
    expect(c.vpas.has('other/web')).to.equal(true);
  });

  it('a new resource policy is applied to the aggregates already in use', () => {
    const c = new ClusterState();
    const w = c.addOrUpdateVpa(web());
    const id = { namespace: 'ns', podName: 'a' };
    c.addOrUpdatePod(id, { app: 'web' }, 'Running');
    c.addOrUpdateContainer(id, 'app', T0);
    const state = [...w.aggregateContainerStates.values()][0]?.state;
    expect(state!.scalingMode).to.equal('Auto');
    w.setResourcePolicy({ containerPolicies: [{ containerName: 'app', mode: 'Off' }] });
    expect(state!.scalingMode).to.equal('Off');
  });

  it('sample calls on an unknown container throw, naming pod and container', () => {
    const c = new ClusterState();
    const id = { namespace: 'ns', podName: 'a' };
    c.addOrUpdatePod(id, { app: 'web' }, 'Running');
    expect(() => c.addCPUSample(id, 'x', 1, T0)).to.throw('container ns/a/x does not exist');
    expect(() => c.addMemorySample(id, 'x', 1, T0)).to.throw('container ns/a/x does not exist');
    expect(() => c.recordOOM(id, 'x', T0, 1)).to.throw('container ns/a/x does not exist');
  });

  it('GC runs at most once per interval (exactly one interval later it runs) and drops empty aggregates of finished pods', () => {
    const c = new ClusterState();
    const id = { namespace: 'ns', podName: 'a' };
    c.addOrUpdatePod(id, { app: 'web' }, 'Running');
    c.addOrUpdateContainer(id, 'app', T0);
    c.garbageCollect(T0, H, () => false); // running pod: its (empty) aggregate is contributive
    expect(c.aggregates.size).to.equal(1);
    c.addOrUpdatePod(id, { app: 'web' }, 'Succeeded');
    c.garbageCollect(T0 + H - 1, H, () => false); // too soon after the last GC
    expect(c.aggregates.size).to.equal(1);
    c.garbageCollect(T0 + H, H, () => false);
    expect(c.aggregates.size).to.equal(0);
  });

  it('GC keeps the empty aggregate of a finished pod whose controller still exists', () => {
    const c = new ClusterState();
    const id = { namespace: 'ns', podName: 'a' };
    c.addOrUpdatePod(id, { app: 'web' }, 'Failed');
    c.addOrUpdateContainer(id, 'app', T0);
    c.garbageCollect(T0, H, () => true);
    expect(c.aggregates.size).to.equal(1);
  });

  it('a VPA whose selector matches every pod counts a new pod once', () => {
    const c = new ClusterState();
    const all = c.addOrUpdateVpa(new VpaState('ns', 'all', () => true));
    c.addOrUpdatePod({ namespace: 'ns', podName: 'a' }, { app: 'web' }, 'Running');
    expect(all.podCount).to.equal(1);
  });

  it('adding the same VpaState again keeps its aggregates under the VPA', () => {
    const c = new ClusterState();
    const w = c.addOrUpdateVpa(web());
    const id = { namespace: 'ns', podName: 'a' };
    c.addOrUpdatePod(id, { app: 'web' }, 'Running');
    c.addOrUpdateContainer(id, 'app', T0);
    expect(c.addOrUpdateVpa(w)).to.equal(w);
    const state = [...w.aggregateContainerStates.values()][0]?.state;
    expect(state!.isUnderVPA).to.equal(true);
    expect(w.podCount).to.equal(1);
  });
});
