import { expect } from 'chai';
import { ClusterState, VpaState } from '../../../../src/vpa/model/cluster-state.ts';
import { MICROS_PER_HOUR, parseInstant } from '../../../../src/gomath/go-time.ts';
import { checkpointName, checkpointObjects, containersByAggregate, loadCheckpoints, orphanedCheckpoints } from '../../../../src/vpa/checkpoint/checkpoints.ts';
import { recommendForVpa } from '../../../../src/vpa/routines/recommend-vpa.ts';
import { DEFAULT_RECOMMENDATION_FORMAT, PodResourceRecommender, recommendationToJSON } from '../../../../src/vpa/logic/index.ts';

const NOW = parseInstant('2026-11-22T09:00:00Z');

/** Three workloads in two namespaces, pods with two label sets each, two container names, samples over 3 days. */
function cluster(): { c: ClusterState; vpas: VpaState[] } {
  const c = new ClusterState();
  const vpas = ['web', 'api', 'db'].map((app, i) => new VpaState(i === 2 ? 'other' : 'ns', app, (l) => l['app'] === app));
  for (const v of vpas) c.addOrUpdateVpa(v);
  let k = 0;
  for (const [ns, app] of [['ns', 'web'], ['ns', 'api'], ['other', 'db'], ['ns', 'db']] as const) {
    for (let p = 0; p < 4; p++) {
      const id = { namespace: ns, podName: `${app}-${p}` };
      c.addOrUpdatePod(id, { app, hash: p < 2 ? 'a' : 'b' }, 'Running');
      for (const name of ['main', 'sidecar']) {
        const cs = c.addOrUpdateContainer(id, name, NOW - 72 * MICROS_PER_HOUR);
        for (let h = 72; h >= 0; h -= 3) {
          const t = NOW - h * MICROS_PER_HOUR;
          cs.addCPUSample(100 + ((k * 37 + h * 11) % 300), t);
          cs.addMemorySample(2e8 + ((k * 101 + h * 7) % 50) * 4e6, t);
        }
        k++;
      }
    }
  }
  return { c, vpas };
}

describe('vpa routines: checkpoints', () => {
  it('the indexed checkpoint states equal the model\'s own (same subtractions, same order)', () => {
    const { c, vpas } = cluster();
    const index = containersByAggregate(c);
    for (const v of vpas) {
      const fast = checkpointObjects(c, v, NOW, index);
      const reference = checkpointObjects(cluster().c, cluster().vpas.find((x) => x.name === v.name)!, NOW);
      expect(fast.map((x) => x.metadata.name)).to.deep.equal([`${v.name}-main`, `${v.name}-sidecar`]);
      expect(fast).to.deep.equal(reference);
    }
  });

  it('a fresh model restored from the checkpoints recommends what the old one did (no pods needed)', () => {
    const { c, vpas } = cluster();
    const settings = { aggregations: c.config, gates: {}, recommender: new PodResourceRecommender(), format: DEFAULT_RECOMMENDATION_FORMAT, cpuIntegerPostProcessorEnabled: false };
    const web = vpas[0]!;
    const cps = checkpointObjects(c, web, NOW, containersByAggregate(c));
    const restored = new ClusterState();
    restored.addOrUpdateVpa(new VpaState('ns', 'web', (l) => l['app'] === 'web'));
    const r = loadCheckpoints(restored, [...cps, { ...cps[0]!, metadata: { name: 'x-main', namespace: 'ns' }, spec: { vpaObjectName: 'x', containerName: 'main' } }], NOW);
    expect(r).to.deep.include({ loaded: 2, errors: [] });
    expect([...r.restored]).to.deep.equal(['ns/web']);
    // The in-progress window peaks were left out of the checkpoint, so memory can only be lower or
    // equal; CPU (no windows) must come back exactly.
    const before = recommendationToJSON(recommendForVpa(web, settings, NOW, false)).containerRecommendations!;
    const after = recommendationToJSON(recommendForVpa(restored.vpas.get('ns/web')!, settings, NOW, false)).containerRecommendations!;
    expect(after.map((x) => x.target['cpu'])).to.deep.equal(before.map((x) => x.target['cpu']));
    expect(after.map((x) => x.containerName)).to.deep.equal(['main', 'sidecar']);
  });

  it('reports broken checkpoints and skips them', () => {
    const { c, vpas } = cluster();
    const cp = checkpointObjects(c, vpas[0]!, NOW)[0]!;
    const restored = new ClusterState();
    restored.addOrUpdateVpa(new VpaState('ns', 'web', () => true));
    const r = loadCheckpoints(restored, [{ ...cp, status: { ...cp.status, version: 'v2' } }, { ...cp, spec: {} as never }], NOW);
    expect(r.loaded).to.equal(0);
    expect(r.errors).to.have.length(2);
    expect(r.errors[0]).to.contain('unsupported checkpoint version v2');
  });

  it('names checkpoints <vpa>-<container> and finds the orphans', () => {
    expect(checkpointName('web', 'app')).to.equal('web-app');
    const cp = (ns: string, vpa: string) => ({ metadata: { name: `${vpa}-app`, namespace: ns }, spec: { vpaObjectName: vpa, containerName: 'app' }, status: { lastUpdateTime: null, firstSampleStart: null, lastSampleStart: null } });
    const exists = (ns: string, name: string) => ns === 'ns' && name === 'web';
    expect(orphanedCheckpoints([cp('ns', 'web'), cp('ns', 'gone'), cp('other', 'web')], exists)).to.deep.equal([
      { namespace: 'ns', name: 'gone-app' },
      { namespace: 'other', name: 'web-app' },
    ]);
  });
});
