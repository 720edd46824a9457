// Crane's HPA observer series (gocrane/crane pkg/controller/ehpa/hpa_observer_controller.go,
// hpa_event_handler.go; names and labels from pkg/metrics/autoscaling.go), exported beside ours.
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { HpaObserver } from '../../../src/ehpa/hpa-observer.ts';
import { registerControllerMetrics } from '../../../src/kube/controller-metrics.ts';
import type { KubeApiClient } from '../../../src/kube/api-client.ts';
import type { HorizontalPodAutoscaler } from '../../../src/api/autoscaling.ts';

const hpa = (name: string, desiredReplicas: number, reason = 'SucceededRescale'): HorizontalPodAutoscaler =>
  ({
    metadata: { name, namespace: 'shop' },
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 10 },
    status: { currentReplicas: 2, desiredReplicas, conditions: [{ type: 'AbleToScale', status: 'True', reason }] },
  }) as unknown as HorizontalPodAutoscaler;

describe('Crane\'s autoscaling series', () => {
  const setup = () => {
    const registry = new Registry();
    const metrics = registerControllerMetrics(registry, { requestCounts: new Map(), requestCountsByResource: new Map(), throttledMs: 0 } as unknown as KubeApiClient);
    return { registry, metrics, observer: new HpaObserver(metrics) };
  };
  const text = async (r: Registry) => (await r.metrics()).split('\n').filter((l) => l.startsWith('crane_') || l.startsWith('# TYPE crane_'));

  it('crane_autoscaling_effective_hpa_replicas mirrors ehpa_adapter_effective_hpa_replicas', async () => {
    const { registry, metrics } = setup();
    metrics.setExpectReplicas('shop', 'web', 4);
    const all = await registry.metrics();
    expect(all).to.contain('crane_autoscaling_effective_hpa_replicas{namespace="shop",name="web"} 4');
    expect(all).to.contain('ehpa_adapter_effective_hpa_replicas{namespace="shop",name="web"} 4');
    expect(all).to.contain('# TYPE crane_autoscaling_effective_hpa_replicas gauge');
    metrics.setExpectReplicas('shop', 'web', undefined);
    expect(await registry.metrics()).to.not.contain('crane_autoscaling_effective_hpa_replicas{');
  });

  it('hpa_replicas follows desiredReplicas; scale_count counts rescales on updates only, typed by the ehpa- prefix', async () => {
    const { registry, observer } = setup();
    observer.observe(hpa('ehpa-web', 2)); // listed: no count
    observer.observe(hpa('plain', 3));
    observer.observe(hpa('ehpa-web', 2)); // unchanged: no count
    observer.observe(hpa('ehpa-web', 5)); // rescaled
    observer.observe(hpa('plain', 6, 'SucceededOverloadRescale'));
    observer.observe(hpa('plain', 4, 'ReadyForNewScale')); // changed without a rescale reason: no count
    expect(await text(registry)).to.include.members([
      '# TYPE crane_autoscaling_hpa_replicas gauge',
      'crane_autoscaling_hpa_replicas{namespace="shop",name="ehpa-web"} 5',
      'crane_autoscaling_hpa_replicas{namespace="shop",name="plain"} 4',
      '# TYPE crane_autoscaling_hpa_scale_count gauge',
      'crane_autoscaling_hpa_scale_count{namespace="shop",name="ehpa-web",type="ehpa"} 1',
      'crane_autoscaling_hpa_scale_count{namespace="shop",name="plain",type="hpa"} 1',
    ]);
    observer.forget(hpa('plain', 4));
    expect((await text(registry)).filter((l) => l.includes('name="plain"'))).to.deep.equal([]);
  });
});
