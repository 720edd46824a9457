// Beside other adapters: the verdict on each metrics APIService (who holds it, what to do), which serve
// logs and exposes but never acts on by writing; and which verdicts are worth a new log line.
import { expect } from 'chai';
import { changedVerdicts, judgeApiService, neighbourOf, remoteNames, type ApiServiceRead } from '../../../src/adapter/apiservice-claims.ts';

const EXT = 'v1beta1.external.metrics.k8s.io';
const CUSTOM = 'v1beta2.custom.metrics.k8s.io';
const SELF = { namespace: 'ehpa-system', name: 'ehpa-adapter' };
const pointing = (namespace: string, name: string, port?: number): ApiServiceRead => ({ found: { spec: { service: { namespace, name, ...(port ? { port } : {}) } } } });

describe('APIService claims beside other adapters', () => {
  it('our own Service: ours, at debug level', () => {
    const v = judgeApiService(EXT, pointing('ehpa-system', 'ehpa-adapter'), SELF);
    expect(v).to.include({ state: 'ours', owner: 'ehpa-system/ehpa-adapter', level: 'debug' });
  });

  it("KEDA's metrics server: other, named, with the --remote-adapter URL to use and what EHPAs lose otherwise", () => {
    const v = judgeApiService(EXT, pointing('keda', 'keda-operator-metrics-apiserver'), SELF);
    expect(v).to.include({ state: 'other', owner: 'keda/keda-operator-metrics-apiserver', neighbour: 'KEDA', level: 'warn' });
    expect(v.message).to.equal(
      'APIService v1beta1.external.metrics.k8s.io is served by KEDA (Service keda/keda-operator-metrics-apiserver), not by this adapter; serve leaves it as it is. ' +
        "To serve EHPAs' metrics beside it, point the APIService at this adapter's Service and start serve with " +
        '--remote-adapter=https://keda-operator-metrics-apiserver.keda.svc:443 so it keeps answering the rest; or leave it and do not claim this API here ' +
        '(EHPAs then lose the cron metrics and crane_autoscaling_prediction, which HPAs written by Crane v0.8+ read; --crane-exporter can hand them to prometheus-adapter instead)',
    );
  });

  it('prometheus-adapter on the custom group: the port from the APIService, and the custom metric EHPAs lose', () => {
    const v = judgeApiService(CUSTOM, pointing('monitoring', 'prometheus-adapter', 6443), SELF);
    expect(v).to.include({ state: 'other', neighbour: 'prometheus-adapter' });
    expect(v.message).to.contain('--remote-adapter=https://prometheus-adapter.monitoring.svc:6443 ');
    expect(v.message).to.contain('EHPAs then lose crane_pod_cpu_usage');
  });

  it('when --remote-adapter already names that Service, the advice is only to point the APIService here', () => {
    for (const url of ['https://keda-operator-metrics-apiserver.keda.svc:443', 'https://keda-operator-metrics-apiserver.keda.svc.cluster.local', 'https://keda-operator-metrics-apiserver.keda:6443']) {
      const v = judgeApiService(EXT, pointing('keda', 'keda-operator-metrics-apiserver'), SELF, url);
      expect(v.state).to.equal('other');
      expect(v.message, url).to.contain('--remote-adapter already points there');
      expect(v.message).to.not.contain('start serve with');
    }
    expect(judgeApiService(EXT, pointing('keda', 'keda-operator-metrics-apiserver'), SELF, 'https://prometheus-adapter.monitoring.svc').message).to.contain('start serve with --remote-adapter=');
  });

  it('another Service while ours is known: other even when its name means nothing to us', () => {
    const v = judgeApiService(EXT, pointing('team', 'my-adapter'), SELF);
    expect(v).to.include({ state: 'other', owner: 'team/my-adapter', level: 'warn' });
    expect(v.neighbour).to.equal(undefined);
    expect(v.message).to.match(/^APIService v1beta1\.external\.metrics\.k8s\.io is served by Service team\/my-adapter, not by this adapter/);
  });

  it('without --adapter-service-name/namespace: a well-known neighbour is still other; any other Service is unknown', () => {
    expect(judgeApiService(EXT, pointing('keda', 'keda-operator-metrics-apiserver'), {}).state).to.equal('other');
    expect(judgeApiService(EXT, pointing('keda', 'keda-operator-metrics-apiserver'), { name: 'ehpa-adapter' }).state).to.equal('other');
    const v = judgeApiService(EXT, pointing('ehpa-system', 'ehpa-adapter'), {});
    expect(v).to.include({ state: 'unknown', owner: 'ehpa-system/ehpa-adapter', level: 'info' });
    expect(v.message).to.contain('pass --adapter-service-name and --adapter-service-namespace');
  });

  it('absent, served locally, or unreadable', () => {
    expect(judgeApiService(EXT, { absent: true }, SELF)).to.include({ state: 'absent', level: 'info' });
    expect(judgeApiService(EXT, { found: { spec: { service: null } } }, SELF)).to.include({ state: 'local', level: 'warn' });
    const v = judgeApiService(EXT, { error: 'HTTP 403 Forbidden' }, SELF);
    expect(v).to.include({ state: 'unreadable', level: 'info' });
    expect(v.message).to.contain('HTTP 403 Forbidden').and.contain('grant get on apiservices.apiregistration.k8s.io');
  });

  it('neighbours by their charts\' Service names, release prefixes included', () => {
    expect(neighbourOf('keda-operator-metrics-apiserver')).to.equal('KEDA');
    expect(neighbourOf('my-release-prometheus-adapter')).to.equal('prometheus-adapter');
    expect(neighbourOf('metric-adapter')).to.equal("Crane's metric-adapter");
    expect(neighbourOf('prometheus-adapter-x')).to.equal(undefined);
    expect(remoteNames('not a url', { namespace: 'a', name: 'b' })).to.equal(false);
  });

  it('a verdict is logged again only when its state or owner changes', () => {
    const keda = judgeApiService(EXT, pointing('keda', 'keda-operator-metrics-apiserver'), SELF);
    const ours = judgeApiService(CUSTOM, pointing('ehpa-system', 'ehpa-adapter'), SELF);
    expect(changedVerdicts(undefined, [keda, ours])).to.deep.equal([keda, ours]);
    expect(changedVerdicts([keda, ours], [keda, ours])).to.deep.equal([]);
    const moved = judgeApiService(EXT, pointing('ehpa-system', 'ehpa-adapter'), SELF);
    expect(changedVerdicts([keda, ours], [moved, ours])).to.deep.equal([moved]);
    const otherKeda = judgeApiService(EXT, pointing('keda-2', 'keda-operator-metrics-apiserver'), SELF);
    expect(changedVerdicts([keda], [otherKeda])).to.deep.equal([otherKeda]);
  });
});
