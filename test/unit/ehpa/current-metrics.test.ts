// Crane's `autoscaling.crane.io/effective-hpa-current-metrics` annotation: the text is what
// sigs.k8s.io/yaml.Marshal(hpa.Status.CurrentMetrics) gives in gocrane/crane
// pkg/controller/ehpa/effective_hpa_controller.go (yaml.v2 output: sorted keys, unindented sequences, YAML 1.1
// quoting); the reconciler writes it when it changes and only then.
import { expect } from 'chai';
import { pino } from 'pino';
import { currentMetricsAnnotation } from '../../../src/ehpa/current-metrics.ts';
import { EhpaReconciler } from '../../../src/ehpa/reconciler.ts';
import { StatusWriter } from '../../../src/kube/status-writer.ts';
import { resourcePath } from '../../../src/kube/api-client.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../../../src/api/ehpa.ts';
import type { HorizontalPodAutoscaler, Substitute } from '../../../src/api/autoscaling.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import type { PodLike } from '../../../src/api/pod.ts';
import { InMemoryObjects } from '../../helpers/in-memory-objects.ts';
import { ehpa as ehpaFixture, cpuUtilization50 } from './fixtures.ts';

const KEY = 'autoscaling.crane.io/effective-hpa-current-metrics';

/** The shared in-memory store drops metadata from merge patches; the API server merges annotations. */
class AnnotatingObjects extends InMemoryObjects {
  override async patch<T>(path: string, body: unknown): Promise<T> {
    const annotations = (body as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations;
    const out = await super.patch<T>(path, body);
    if (!annotations) return out;
    const o = this.read<{ metadata: { name: string; annotations?: Record<string, string> } }>(path)!;
    o.metadata.annotations = { ...o.metadata.annotations, ...annotations };
    return this.seed(path.slice(0, path.lastIndexOf('/')), o) as T;
  }
}

describe('effective-hpa-current-metrics annotation', () => {
  it('renders status.currentMetrics as yaml.v2 renders the JSON (the text Crane writes)', () => {
    const hpa = {
      status: {
        currentMetrics: [
          { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '100m', averageUtilization: 20 } } },
          { type: 'External', external: { metric: { name: 'crane_autoscaling_cron', selector: { matchLabels: { targetName: 'php-apache', resourceIdentifier: 'cron' } } }, current: { value: '3' } } },
          { type: 'Pods', pods: { metric: { name: 'crane_pod_cpu_usage', selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['yes', 'web'] }] } }, current: { averageValue: '1500m' } } },
        ],
      },
    } as unknown as HorizontalPodAutoscaler;
    expect(currentMetricsAnnotation(hpa)).to.equal(
      [
        '- resource:',
        '    current:',
        '      averageUtilization: 20',
        '      averageValue: 100m',
        '    name: cpu',
        '  type: Resource',
        '- external:',
        '    current:',
        '      value: "3"',
        '    metric:',
        '      name: crane_autoscaling_cron',
        '      selector:',
        '        matchLabels:',
        '          resourceIdentifier: cron',
        '          targetName: php-apache',
        '  type: External',
        '- pods:',
        '    current:',
        '      averageValue: 1500m',
        '    metric:',
        '      name: crane_pod_cpu_usage',
        '      selector:',
        '        matchExpressions:',
        '        - key: tier',
        '          operator: In',
        '          values:',
        '          - "yes"',
        '          - web',
        '  type: Pods',
        '',
      ].join('\n'),
    );
  });
  it('is not written while the HPA has no currentMetrics (Crane\'s nil check; omitempty drops [])', () => {
    expect(currentMetricsAnnotation(undefined)).to.equal(undefined);
    expect(currentMetricsAnnotation({ status: {} } as HorizontalPodAutoscaler)).to.equal(undefined);
    expect(currentMetricsAnnotation({ status: { currentMetrics: [] } } as unknown as HorizontalPodAutoscaler)).to.equal(undefined);
  });

  it('the reconciler writes it on the EHPA once the HPA reports metrics, and again only when they change', async () => {
    const NS = 'default';
    const EHPAS = (ns: string) => resourcePath('autoscaling.crane.io/v1alpha1', 'effectivehorizontalpodautoscalers', ns);
    const HPAS = (ns: string) => resourcePath('autoscaling/v2', 'horizontalpodautoscalers', ns);
    const store = new AnnotatingObjects();
    const seeded = store.seed(EHPAS(NS), ehpaFixture({ metrics: [cpuUtilization50 as never] }));
    seeded.metadata.annotations = { 'team': 'shop' };
    store.seed(EHPAS(NS), seeded);
    const reconciler = new EhpaReconciler({
      client: store,
      ehpas: store.cache<EffectiveHorizontalPodAutoscaler>(EHPAS),
      hpas: store.cache<HorizontalPodAutoscaler>(HPAS),
      tsps: store.cache<TimeSeriesPrediction>((ns) => resourcePath('prediction.crane.io/v1alpha1', 'timeseriespredictions', ns)),
      substitutes: store.cache<Substitute>((ns) => resourcePath('autoscaling.crane.io/v1alpha1', 'substitutes', ns)),
      pods: store.cache<PodLike>((ns) => resourcePath('v1', 'pods', ns)),
      scale: {
        get: async () => ({ metadata: { name: 'php-apache', namespace: NS }, spec: { replicas: 2 }, status: { replicas: 2, selector: 'app=php' } }),
        setReplicas: async () => { throw new Error('not used'); },
      },
      events: { event: () => undefined },
      status: new StatusWriter(store),
      log: pino({ level: 'silent' }),
      now: () => Date.UTC(2026, 10, 24, 12),
      resyncMs: 300_000,
    });
    const key = `${NS}/${seeded.metadata.name}`;
    const ehpa = () => store.read<EffectiveHorizontalPodAutoscaler>(`${EHPAS(NS)}/php-apache`)!;
    const hpaPath = `${HPAS(NS)}/ehpa-php-apache`;
    await reconciler.reconcile(key);
    expect(ehpa().metadata.annotations).to.deep.equal({ team: 'shop' }); // the new HPA has no metrics yet

    const report = (averageUtilization: number) => {
      const hpa = store.read<HorizontalPodAutoscaler>(hpaPath)!;
      store.seed(HPAS(NS), { ...hpa, status: { ...hpa.status, currentReplicas: 2, desiredReplicas: 2, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization, averageValue: '100m' } } }] } } as HorizontalPodAutoscaler);
    };
    report(20);
    await reconciler.reconcile(key);
    expect(ehpa().metadata.annotations).to.deep.equal({
      team: 'shop',
      [KEY]: '- resource:\n    current:\n      averageUtilization: 20\n      averageValue: 100m\n    name: cpu\n  type: Resource\n',
    });
    const writes = store.writes.length;
    await reconciler.reconcile(key);
    expect(store.writes.slice(writes).filter((w) => w.path.endsWith('/php-apache'))).to.deep.equal([]); // unchanged: no write
    report(35);
    await reconciler.reconcile(key);
    expect(ehpa().metadata.annotations?.[KEY]).to.contain('averageUtilization: 35');
    expect(ehpa().metadata.annotations?.team).to.equal('shop');
  });
});
