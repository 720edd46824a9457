// End-to-end scenario, Cron: a cron window active now scales a Deployment to its targetReplicas through the
// real HPA reading crane_autoscaling_cron from `ehpa-adapter serve` behind the aggregator; when the window
// ends the metric falls back per docs/crane-behaviour.md §C.5.2 (as HEAD Crane: spec.minReplicas when
// the EHPA has other metrics, else the target's current replicas) and the HPA follows.
import { expect } from 'chai';
import { createDeployment, createNamespace, followWorkloadUsage, getDeployment, waitFor, waitHpa, waitReplicas, type AdapterProcess, type HpaState } from './harness/index.ts';
import { sleep, useCluster } from './helpers.ts';
import {
  cronSelector, cronWindowNow, ehpaObject, ehpaPath, externalItems, installForServe, mergePatch, post, quantityMilli, startServe, waitObj,
} from './scenario-helpers.ts';

const NS = 'cron';
// The window opens at the current minute (cron has minute resolution), so up to a minute of it is already
// gone: 5 minutes leaves at least 4 for both rollouts (each waitReplicas allows 3) on a loaded machine.
const WINDOW_MINUTES = 5;

describe('e2e scenario 1: cron scaling through the real HPA', function () {
  this.timeout(600_000);
  // Pods are scheduled by kube-scheduler onto a kwok node and made Running/Ready (and deleted) by kwok.
  const env = useCluster();
  let serve: AdapterProcess;
  let window: ReturnType<typeof cronWindowNow>;
  let stopUsage: (() => void) | undefined;

  const cronValue = async (target: string): Promise<number> => {
    const r = await env.cluster.admin.get(`/apis/external.metrics.k8s.io/v1beta1/namespaces/${NS}/crane_autoscaling_cron?labelSelector=${cronSelector(NS, target)}`);
    expect(r.status, r.body).to.equal(200);
    const items = externalItems(r.json);
    expect(items).to.have.length(1);
    return quantityMilli(items[0]!.value) / 1000;
  };

  before(async function () {
    this.timeout(300_000);
    const c = env.cluster;
    await installForServe(c);
    await createNamespace(c, NS);
    await createDeployment(c, NS, 'solo', { replicas: 1, cpuRequest: '200m' });
    await createDeployment(c, NS, 'mixed', { replicas: 1, cpuRequest: '200m' });
    serve = await startServe(c, 'serve-cron');
    await waitReplicas(c, NS, 'solo', 1);
    await waitReplicas(c, NS, 'mixed', 1);
  });

  after(async () => {
    stopUsage?.();
    await serve?.stop();
  });

  it('a window active now scales both Deployments to targetReplicas; the HPA reads the cron metric via the aggregator', async () => {
    const c = env.cluster;
    window = cronWindowNow('burst', WINDOW_MINUTES, 3);
    // "solo" has crons only; "mixed" also scales on its pods' CPU (crane_pod_cpu_usage, served from the
    // pods' observed usage as it has no prediction) — low usage, so on its own that metric wants 1 replica.
    await post(c, ehpaPath(NS), ehpaObject(NS, 'solo', 'solo', { minReplicas: 1, maxReplicas: 5, crons: [window.cron] }));
    const mixed = await post(c, ehpaPath(NS), ehpaObject(NS, 'mixed', 'mixed', { minReplicas: 1, maxReplicas: 5, crons: [window.cron] }));
    stopUsage = followWorkloadUsage(c, NS, 'app=mixed', 'app', () => ({ cpuCores: 0.02 }));
    const podsMetric = {
      type: 'Pods',
      pods: {
        metric: { name: 'crane_pod_cpu_usage', selector: { matchLabels: { 'autoscaling.crane.io/effective-hpa-uid': mixed.metadata.uid } } },
        target: { type: 'AverageValue', averageValue: '100m' },
      },
    };
    await mergePatch(c, ehpaPath(NS, 'mixed'), { spec: { metrics: [podsMetric] } });

    // serve sees the new EHPA through its informer a moment after the create.
    await waitFor('cron metric 3 for solo', async () => (await cronValue('solo').catch(() => 0)) === 3, { timeoutMs: 30_000 });
    await waitReplicas(c, NS, 'solo', 3, 180_000);
    await waitReplicas(c, NS, 'mixed', 3, 180_000);
    expect(Date.now(), 'scaled within the window').to.be.below(window.endMs);
    const solo = await waitHpa(c, NS, 'ehpa-solo', 'cron metric read at 3 replicas', (h) => h.status?.desiredReplicas === 3 && h.status.currentReplicas === 3 && (h.status.currentMetrics?.length ?? 0) === 1);
    expect(solo.status!.currentMetrics).to.deep.equal([
      {
        type: 'External',
        external: {
          metric: { name: 'crane_autoscaling_cron', selector: { matchLabels: { resourceIdentifier: 'cron', targetKind: 'Deployment', targetName: 'solo', targetNamespace: NS } } },
          // AverageValue target: the HPA reports the sum over its current replicas (3 / 3).
          current: { averageValue: '1' },
        },
      },
    ]);
    expect(solo.status!.conditions!.find((x) => x.type === 'ScalingActive')).to.include({ status: 'True', reason: 'ValidMetricFound' });
    // The mixed HPA reads both metrics: the cron and the pods' CPU (20m each, well under 100m).
    // (Observed usage of the new pods ramps up as Prometheus's rate window fills, hence the wait.)
    const podsValue = (h: HpaState) => (h.status?.currentMetrics as { type: string; pods?: { current: { averageValue: string } } }[] | undefined)?.find((m) => m.type === 'Pods')?.pods?.current.averageValue;
    const mixedHpa = await waitHpa(c, NS, 'ehpa-mixed', 'both metrics read, pods at ~20m', (h) => (h.status?.currentMetrics?.length ?? 0) === 2 && quantityMilli(podsValue(h) ?? '0') >= 10);
    expect(quantityMilli(podsValue(mixedHpa)!)).to.be.within(10, 40);
    expect(mixedHpa.status!.desiredReplicas).to.equal(3);
    const ehpa = await waitObj(c, ehpaPath(NS, 'solo'), 'EHPA status follows', (o) => o.status?.['expectReplicas'] === 3 && o.status?.['currentReplicas'] === 3);
    expect(ehpa.status!.conditions!.find((x) => x.type === 'Ready')?.status).to.equal('True');
    // Crane's effective-hpa-current-metrics annotation: the HPA's status.currentMetrics as YAML (yaml.v2 form).
    const annotated = await waitObj(c, ehpaPath(NS, 'solo'), 'current-metrics annotation written', (o) => o.metadata.annotations?.['autoscaling.crane.io/effective-hpa-current-metrics'] !== undefined);
    expect(annotated.metadata.annotations!['autoscaling.crane.io/effective-hpa-current-metrics']).to.equal(
      '- external:\n    current:\n      averageValue: "1"\n    metric:\n      name: crane_autoscaling_cron\n      selector:\n        matchLabels:\n' +
        `          resourceIdentifier: cron\n          targetKind: Deployment\n          targetName: solo\n          targetNamespace: ${NS}\n  type: External\n`,
    );
  });

  it('after the window: the cron-only Deployment keeps its current replicas, the one with another metric goes to minReplicas', async () => {
    const c = env.cluster;
    const wait = window.endMs - Date.now();
    if (wait > 0) await sleep(wait + 1000);
    // No cron active: "solo" has no other metric, so the value is the target's current replicas (3)...
    const at = () => `at ${new Date().toISOString()}, window end ${new Date(window.endMs).toISOString()}`;
    expect(await cronValue('solo'), at()).to.equal(3);
    // ...and "mixed" has one, so the value is minReplicas.
    expect(await cronValue('mixed'), at()).to.equal(1);
    await waitReplicas(c, NS, 'mixed', 1, 120_000);
    const mixed = await waitHpa(c, NS, 'ehpa-mixed', 'desired and current 1', (h) => h.status?.desiredReplicas === 1 && h.status.currentReplicas === 1);
    expect(mixed.status!.conditions!.find((x) => x.type === 'ScalingActive')?.status).to.equal('True');
    // "solo" stays put over several HPA sync periods (2 s) and beyond the downscale stabilization (5 s).
    await sleep(15_000);
    expect((await getDeployment(c, NS, 'solo')).spec.replicas).to.equal(3);
    const solo = await waitHpa(c, NS, 'ehpa-solo', 'still desired 3', (h) => h.status?.desiredReplicas === 3);
    expect(solo.status!.currentReplicas).to.equal(3);
    expect(serve.running).to.equal(true);
  });
});
