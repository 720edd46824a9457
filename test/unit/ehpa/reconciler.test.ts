// EhpaReconciler.reconcile() through its narrow seams, with an in-memory object store instead of
// kube-apiserver (the real one is exercised by test/e2e/controllers.test.ts): create, update, an HPA
// owned by someone else, Preview, and deletion. Expected objects follow Crane's controller
// (docs/crane-behaviour.md §B.1-§B.6), not the code under test.
import { expect } from 'chai';
import { pino } from 'pino';
import { EhpaReconciler } from '../../../src/ehpa/reconciler.ts';
import { StatusWriter } from '../../../src/kube/status-writer.ts';
import { resourcePath } from '../../../src/kube/api-client.ts';
import type { ScaleAccess } from '../../../src/kube/scale-client.ts';
import type { EffectiveHorizontalPodAutoscaler, EhpaStatus } from '../../../src/api/ehpa.ts';
import type { HorizontalPodAutoscaler, Scale, Substitute } from '../../../src/api/autoscaling.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import type { PodLike } from '../../../src/api/pod.ts';
import { InMemoryObjects } from '../../helpers/in-memory-objects.ts';
import { ehpa as ehpaFixture, cpuUtilization50, prediction } from './fixtures.ts';

const NS = 'default';
const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const EHPAS = (ns: string) => resourcePath('autoscaling.crane.io/v1alpha1', 'effectivehorizontalpodautoscalers', ns);
const HPAS = (ns: string) => resourcePath('autoscaling/v2', 'horizontalpodautoscalers', ns);
const TSPS = (ns: string) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns);
const SUBS = (ns: string) => resourcePath('autoscaling.crane.io/v1alpha1', 'substitutes', ns);
const PODS = (ns: string) => resourcePath('v1', 'pods', ns);

class FakeScale implements ScaleAccess {
  replicas = 2;
  readonly set: number[] = [];
  async get(): Promise<Scale> {
    return { metadata: { name: 'php-apache', namespace: NS }, spec: { replicas: this.replicas }, status: { replicas: this.replicas, selector: 'app=php' } };
  }
  async setReplicas(_ns: string, _ref: unknown, replicas: number): Promise<Scale> {
    this.set.push(replicas);
    this.replicas = replicas;
    return this.get();
  }
}

function setup(spec: Parameters<typeof ehpaFixture>[0]) {
  const store = new InMemoryObjects();
  const seeded = store.seed(EHPAS(NS), ehpaFixture(spec));
  const scale = new FakeScale();
  const events: { type: string; reason: string; message: string }[] = [];
  const observed: (EhpaStatus | undefined)[] = [];
  const reconciler = new EhpaReconciler({
    client: store,
    ehpas: store.cache<EffectiveHorizontalPodAutoscaler>(EHPAS),
    hpas: store.cache<HorizontalPodAutoscaler>(HPAS),
    tsps: store.cache<TimeSeriesPrediction>(TSPS),
    substitutes: store.cache<Substitute>(SUBS),
    pods: store.cache<PodLike>(PODS),
    scale,
    events: { event: (_o, type, reason, message) => events.push({ type, reason, message }) },
    status: new StatusWriter(store),
    log: pino({ level: 'silent' }),
    now: () => NOW,
    resyncMs: 300_000,
    observeStatus: (_ns, _name, s) => observed.push(s),
  });
  const key = `${NS}/${seeded.metadata.name}`;
  const hpa = () => store.read<HorizontalPodAutoscaler>(`${HPAS(NS)}/ehpa-php-apache`);
  const tsp = () => store.read<TimeSeriesPrediction>(`${TSPS(NS)}/ehpa-php-apache`);
  const ehpa = () => store.read<EffectiveHorizontalPodAutoscaler>(`${EHPAS(NS)}/php-apache`)!;
  const ready = () => ehpa().status?.conditions?.find((c) => c.type === 'Ready');
  return { store, scale, events, observed, reconciler, key, hpa, tsp, ehpa, ready, uid: seeded.metadata.uid as string };
}

describe('EhpaReconciler.reconcile (in-memory seams)', function () {
  this.timeout(1000); // each case must run well under a second

  it('create: the backing HPA and the TSP, owned by the EHPA, events, and Ready=True', async () => {
    const t = setup({ metrics: [cpuUtilization50 as never], prediction: prediction as never });
    // Two available pods of 200m each: the utilization target becomes an average value on the forecast metric.
    for (const name of ['php-1', 'php-2']) {
      t.store.seed(PODS(NS), {
        metadata: { name, namespace: NS, labels: { app: 'php' } },
        spec: { containers: [{ name: 'app', resources: { requests: { cpu: '200m' } } }] },
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-24T11:00:00Z' }] },
      });
    }
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({ requeueAfterMs: 300_000 });
    const hpa = t.hpa()!;
    expect(hpa.spec.scaleTargetRef).to.deep.equal({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'php-apache' });
    expect(hpa.spec.maxReplicas).to.equal(10);
    // 50 % of 200m = 100m per pod on crane_pod_cpu_usage (Crane's GetHPAMetrics, §B.3), beside the original.
    const pods = hpa.spec.metrics?.find((m) => m.type === 'Pods');
    expect(pods?.pods?.metric.name).to.equal('crane_pod_cpu_usage');
    expect(pods?.pods?.target).to.deep.equal({ type: 'AverageValue', averageValue: '100m' });
    expect(hpa.metadata.ownerReferences).to.deep.equal([
      { apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler', name: 'php-apache', uid: t.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(t.tsp()!.spec.predictionWindowSeconds).to.equal(3600);
    expect(t.tsp()!.metadata.ownerReferences?.[0]?.uid).to.equal(t.uid);
    expect(t.events.map((e) => e.reason)).to.include.members(['HPACreated', 'PredictionCreated']);
    expect(t.ready()).to.include({ status: 'True', reason: 'EffectiveHorizontalPodAutoscalerReady' });
    expect(t.ehpa().status?.currentReplicas).to.equal(undefined); // the HPA has no status yet
  });

  it('update: a spec change replaces the HPA in place; an unchanged EHPA writes nothing', async () => {
    const t = setup({ metrics: [cpuUtilization50 as never] });
    await t.reconciler.reconcile(t.key);
    const first = t.hpa()!;
    const e = t.ehpa();
    t.store.seed(EHPAS(NS), { ...e, spec: { ...e.spec, maxReplicas: 20 } });
    await t.reconciler.reconcile(t.key);
    const second = t.hpa()!;
    expect(second.spec.maxReplicas).to.equal(20);
    expect(second.metadata.uid).to.equal(first.metadata.uid); // replaced, not recreated
    const writes = t.store.writes.length;
    await t.reconciler.reconcile(t.key);
    await t.reconciler.reconcile(t.key);
    expect(t.store.writes.slice(writes)).to.deep.equal([]);
  });

  it('not owned: an HPA of the same name controlled by someone else is left alone; Ready=False with the reason', async () => {
    const t = setup({ metrics: [cpuUtilization50 as never] });
    const foreign = t.store.seed(HPAS(NS), {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'ehpa-php-apache', namespace: NS, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: 'someone-else', controller: true }] },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 3 },
    });
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({ requeueAfterMs: 300_000 }); // not retried: it cannot heal by itself
    expect(t.hpa()).to.deep.equal(foreign);
    expect(t.ready()).to.include({ status: 'False', reason: 'FailedReconcileHPA' });
    expect(t.ready()!.message).to.match(/exists and is not controlled by this EHPA/);
    expect(t.events).to.deep.include({ type: 'Warning', reason: 'FailedReconcileHPA', message: t.ready()!.message });
  });

  it('Preview: a Substitute mirrors the target, the HPA scales the Substitute, specificReplicas is applied once', async () => {
    const t = setup({ scaleStrategy: 'Preview', specificReplicas: 5, metrics: [cpuUtilization50 as never] });
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({ requeueAfterMs: 15_000 });
    const sub = t.store.read<Substitute>(`${SUBS(NS)}/ehpa-php-apache`)!;
    expect(sub.spec).to.deep.equal({ substituteTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'php-apache' }, replicas: 2 });
    expect(sub.status).to.deep.equal({ labelSelector: 'app=php', replicas: 2 });
    expect(t.hpa()!.spec.scaleTargetRef).to.deep.equal({ apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'Substitute', name: 'ehpa-php-apache' });
    expect(t.scale.set).to.deep.equal([5]);
    expect(t.events.map((e) => e.reason)).to.include.members(['SubstituteCreated', 'SuccessfulManualScale']);
    expect(t.ehpa().status?.currentReplicas).to.equal(5);
    await t.reconciler.reconcile(t.key);
    expect(t.scale.set).to.deep.equal([5]); // already at 5: no second scale
  });

  it('Preview: the Substitute is owned like the HPA: a drifted spec is put back, one of another owner is left alone', async () => {
    const t = setup({ scaleStrategy: 'Preview', metrics: [cpuUtilization50 as never] });
    await t.reconciler.reconcile(t.key);
    const path = `${SUBS(NS)}/ehpa-php-apache`;
    const sub = t.store.read<Substitute>(path)!;
    t.store.seed(SUBS(NS), { ...sub, spec: { ...sub.spec, replicas: 7 } });
    const writes = t.store.writes.length;
    await t.reconciler.reconcile(t.key);
    expect(t.store.read<Substitute>(path)!.spec.replicas).to.equal(2);
    expect(t.store.writes.slice(writes).map((w) => w.verb)).to.deep.equal(['patch']);

    const foreign = t.store.seed(SUBS(NS), { ...sub, metadata: { ...sub.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: 'someone-else', controller: true }] }, spec: { ...sub.spec, replicas: 9 } });
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({ requeueAfterMs: 15_000 }); // not retried: it cannot heal by itself
    expect(t.store.read<Substitute>(path)).to.deep.equal(foreign);
    expect(t.ready()).to.include({ status: 'False', reason: 'FailedReconcileSubstitute' });
    expect(t.ready()!.message).to.match(/exists and is not controlled by this EHPA/);
  });

  it('deletion: a deleted or terminating EHPA is forgotten without a write (ownerReferences collect the rest)', async () => {
    const t = setup({ metrics: [cpuUtilization50 as never] });
    await t.reconciler.reconcile(t.key);
    const writes = t.store.writes.length;
    const e = t.ehpa();
    t.store.seed(EHPAS(NS), { ...e, metadata: { ...e.metadata, deletionTimestamp: '2026-11-24T12:00:00Z' } });
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({});
    t.store.remove(`${EHPAS(NS)}/php-apache`);
    expect(await t.reconciler.reconcile(t.key)).to.deep.equal({});
    expect(t.store.writes.slice(writes)).to.deep.equal([]);
    expect(t.observed.slice(-2)).to.deep.equal([undefined, undefined]);
  });

  it('deletion: what the reconciler remembers of its HPA and TSP writes goes with the EHPA (bounded by live EHPAs)', async () => {
    const t = setup({ metrics: [cpuUtilization50 as never], prediction: prediction as never });
    await t.reconciler.reconcile(t.key);
    expect(t.reconciler.rememberedWrites).to.equal(2); // the HPA and the TSP it created
    t.store.remove(`${EHPAS(NS)}/php-apache`);
    await t.reconciler.reconcile(t.key);
    expect(t.reconciler.rememberedWrites).to.equal(0);
    // The informer's delete handler path (forget) clears it too, e.g. when the last reconcile never ran.
    const u = setup({ metrics: [cpuUtilization50 as never] });
    await u.reconciler.reconcile(u.key);
    expect(u.reconciler.rememberedWrites).to.equal(1);
    u.reconciler.forget(u.key);
    expect(u.reconciler.rememberedWrites).to.equal(0);
  });
});
