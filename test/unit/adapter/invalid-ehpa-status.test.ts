// A metrics request for an EHPA the controller flags invalid answers 422 Invalid naming the EHPA and the
// field, never a 500 (cron `61 * * * *` used to give HTTP 500 on the cron metric).
import { expect } from 'chai';
import { asUser, startTestAdapter, type Running } from '../../helpers/adapter-fixture.ts';
import { seed, UID } from './fixtures.ts';

const CM = '/apis/custom.metrics.k8s.io/v1beta2';
const EM = '/apis/external.metrics.k8s.io/v1beta1';
const HPA = asUser('system:serviceaccount:kube-system:horizontal-pod-autoscaler');
const podCpu = (uid: string) => `${CM}/namespaces/default/pods/%2A/crane_pod_cpu_usage?labelSelector=app%3Dweb&metricLabelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3D${uid}`;

describe('metrics for an EHPA flagged invalid', function () {
  this.timeout(30_000);
  let a: Running;
  before(async () => {
    a = await startTestAdapter();
    seed(a.sources, a.clock.now);
    a.authorizer.allowedUsers.add('system:serviceaccount:kube-system:horizontal-pod-autoscaler');
  });
  after(async () => a.close());

  it('crane_pod_cpu_usage: invalid prediction settings are 422 with one cause per field', async () => {
    const e = a.sources.ehpas.find((x) => x.metadata.uid === UID)!;
    const saved = e.spec.prediction;
    e.spec.prediction = { predictionWindowSeconds: 0, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: 'x'.repeat(300) } } } as never;
    try {
      const r = await a.get(podCpu(UID), { headers: HPA });
      expect(r.status).to.equal(422);
      expect(r.json).to.include({ kind: 'Status', reason: 'Invalid', code: 422 });
      expect(r.json.details).to.include({ name: 'web', group: 'autoscaling.crane.io', kind: 'EffectiveHorizontalPodAutoscaler' });
      const fields = r.json.details.causes.map((c: { field: string }) => c.field);
      expect(fields).to.include('spec.prediction.predictionWindowSeconds');
      expect(fields.some((f: string) => f.startsWith('spec.prediction.predictionAlgorithm.dsp.sampleInterval'))).to.equal(true);
      expect(r.json.message).to.match(/^EffectiveHorizontalPodAutoscaler default\/web is invalid: spec\.prediction\.predictionWindowSeconds: /);
    } finally {
      // A new object, as the informer hands out after an update (the provider keeps answers per object).
      const i = a.sources.ehpas.indexOf(e);
      a.sources.ehpas[i] = { ...e, spec: { ...e.spec, prediction: saved } };
    }
    expect((await a.get(podCpu(UID), { headers: HPA })).status).to.equal(200);
  });

  it('crane_pod_cpu_usage: a bad cron does not touch the CPU metric; the cron metric answers 422', async () => {
    const e = a.sources.ehpas.find((x) => x.metadata.uid === UID)!;
    const i = a.sources.ehpas.indexOf(e);
    a.sources.ehpas[i] = { ...e, spec: { ...e.spec, crons: [{ name: 'typo', start: '61 * * * *', end: '0 17 * * *', targetReplicas: 3 }] } };
    try {
      expect((await a.get(podCpu(UID), { headers: HPA })).status).to.equal(200);
      const r = await a.get(`${EM}/namespaces/default/crane_cron_web`, { headers: HPA });
      expect(r.status).to.equal(422);
      expect(r.json.details.causes).to.deep.equal([{ reason: 'FieldValueInvalid', field: 'spec.crons[0].start', message: 'invalid cron start: "61 * * * *": minute value 61 is above the maximum 59' }]);
    } finally {
      a.sources.ehpas[i] = e;
    }
  });

  it('crane_autoscaling_prediction reads the TSP, not the EHPA: an invalid EHPA never makes it a 500', async () => {
    const e = a.sources.ehpas.find((x) => x.metadata.uid === UID)!;
    const i = a.sources.ehpas.indexOf(e);
    a.sources.ehpas[i] = { ...e, spec: { ...e.spec, prediction: { predictionWindowSeconds: 0 } as never, crons: [{ start: '61 * * * *', end: '@daily' }] } };
    try {
      const sel = 'labelSelector=targetKind%3DDeployment%2CtargetName%3Dweb%2CtargetNamespace%3Ddefault%2CresourceIdentifier%3Dcrane_pod_cpu_usage';
      const r = await a.get(`${EM}/namespaces/default/crane_autoscaling_prediction?${sel}`, { headers: HPA });
      expect(r.status).to.be.oneOf([200, 404, 503]);
    } finally {
      a.sources.ehpas[i] = e;
    }
  });
});
