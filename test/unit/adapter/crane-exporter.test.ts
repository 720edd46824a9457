// Exporter mode: crane_autoscaling_cron / crane_autoscaling_prediction on /metrics carry Crane's label names
// and values (gocrane/crane pkg/metrics/metric_collector.go, v0.8.0+) and the numbers the adapter itself
// would answer for the same selector, computed on scrape with bounded work.
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { cronSamples, predictionSamples, registerCraneExporter, CRON_LABELS, PREDICTION_LABELS } from '../../../src/adapter/crane-exporter.ts';
import { cronProvider } from '../../../src/adapter/providers/cron-provider.ts';
import { predictionProvider } from '../../../src/adapter/providers/prediction-provider.ts';
import { selectorFromLabels } from '../../../src/selectors/label-selector.ts';
import { MapSources } from '../../helpers/adapter-fixture.ts';
import { ehpa, tsp } from './fixtures.ts';
import type { CrossVersionObjectReference } from '../../../src/api/meta.ts';

// Wednesday 10:30 UTC: the "day" cron (10:00–11:00) is active, the "evening" one (18:00–20:00) is not.
const NOW = Date.parse('2026-01-07T10:30:00Z');
const DAY = { name: 'day', timezone: 'UTC', start: '0 10 * * *', end: '0 11 * * *', targetReplicas: 7 };
const EVENING = { name: 'evening', timezone: 'UTC', start: '0 18 * * *', end: '0 20 * * *', targetReplicas: 4 };

function withAlgorithm(t: ReturnType<typeof tsp>, algorithmType: string) {
  t.spec.predictionMetrics = t.spec.predictionMetrics?.map((m) => ({ ...m, algorithm: { algorithmType } }));
  return t;
}

async function scrape(sources: MapSources, opts: { ready?: () => boolean; now?: number } = {}): Promise<string> {
  const registry = new Registry();
  const exporter = registerCraneExporter(registry, { sources, localZone: 'UTC', now: () => opts.now ?? NOW, ...(opts.ready ? { ready: opts.ready } : {}) });
  // As health-server.ts serves /metrics: the TSP families' text first computed, then appended.
  const text = await exporter.text();
  return (await registry.metrics()) + text;
}

describe('crane exporter (exporter mode for prometheus-adapter)', () => {
  it('exports crane_autoscaling_cron with Crane\'s label names, in Crane\'s order, and resourceIdentifier="cron"', async () => {
    const s = new MapSources();
    s.ehpas.push(ehpa({ crons: [DAY, EVENING] }, 'web'));
    const text = await scrape(s);
    expect(text).to.include('crane_autoscaling_cron{targetKind="Deployment",targetName="web",targetNamespace="default",resourceIdentifier="cron"} 7\n');
    expect(text).to.include('# TYPE crane_autoscaling_cron gauge');
    expect(CRON_LABELS).to.deep.equal(['targetKind', 'targetName', 'targetNamespace', 'resourceIdentifier']);
    expect(PREDICTION_LABELS).to.deep.equal(['targetKind', 'targetName', 'targetNamespace', 'resourceIdentifier', 'algorithm']);
  });

  it('cron values are what the adapter answers for the same selector: active target, minReplicas, current replicas', async () => {
    const s = new MapSources();
    s.ehpas.push(
      ehpa({ crons: [DAY, EVENING] }, 'active'),
      ehpa({ crons: [EVENING] }, 'idle-with-metrics'),
      ehpa({ metrics: [], crons: [EVENING] }, 'idle-cron-only'),
    );
    s.scale.set('default/Deployment/idle-cron-only', 5);
    const { samples, errors } = await cronSamples({ sources: s, localZone: 'UTC' }, NOW);
    expect(errors).to.equal(0);
    expect(samples.map((x) => [x.labels['targetName'], x.value])).to.deep.equal([['active', 7], ['idle-with-metrics', 2], ['idle-cron-only', 5]]);
    const adapter = cronProvider({ sources: s, localZone: 'UTC' });
    for (const x of samples) {
      const [v] = await adapter.values({ namespace: 'default', metric: 'crane_autoscaling_cron', selector: selectorFromLabels(x.labels), nowMs: NOW });
      expect(Number(v!.milli) / 1000, x.labels['targetName']).to.equal(x.value);
    }
  });

  it('follows --cron-semantics as the adapter does: under head a cron-only EHPA with no cron active reports minReplicas', async () => {
    const s = new MapSources();
    s.ehpas.push(ehpa({ metrics: [], crons: [EVENING] }, 'idle-cron-only'));
    s.scale.set('default/Deployment/idle-cron-only', 5);
    expect((await cronSamples({ sources: s, localZone: 'UTC' }, NOW)).samples[0]!.value).to.equal(5);
    const head = await cronSamples({ sources: s, localZone: 'UTC', semantics: 'head' }, NOW);
    expect(head.samples[0]!.value).to.equal(2);
    const [v] = await cronProvider({ sources: s, localZone: 'UTC', semantics: 'head' }).values({
      namespace: 'default', metric: 'crane_autoscaling_cron', selector: selectorFromLabels(head.samples[0]!.labels), nowMs: NOW,
    });
    expect(Number(v!.milli) / 1000).to.equal(2);
  });

  it('leaves out (and counts) an EHPA whose crons cannot be evaluated, one past the 50-cron bound, or whose scale is unreadable', async () => {
    const s = new MapSources();
    const many = Array.from({ length: 51 }, (_, i) => ({ ...EVENING, name: `c${i}` }));
    s.ehpas.push(
      ehpa({ crons: [{ ...DAY, timezone: 'Mars/Base' }] }, 'broken'),
      ehpa({ crons: many }, 'too-many'),
      ehpa({ metrics: [], crons: [EVENING] }, 'no-scale'),
      ehpa({ crons: [DAY] }, 'fine'),
    );
    const registry = new Registry();
    registerCraneExporter(registry, { sources: s, localZone: 'UTC', now: () => NOW });
    const text = await registry.metrics();
    expect(text.match(/^crane_autoscaling_cron\{/gm)).to.have.length(1);
    expect(text).to.include('targetName="fine"');
    expect(text).to.match(/^ehpa_adapter_exporter_skipped_ehpas 3$/m);
  });

  it('a later EHPA with the same target replaces an earlier one (the adapter\'s "last match wins")', async () => {
    const s = new MapSources();
    const a = ehpa({ crons: [DAY] }, 'a');
    const b = ehpa({ crons: [{ ...DAY, targetReplicas: 9 }] }, 'b');
    b.spec.scaleTargetRef.name = 'a';
    s.ehpas.push(a, b);
    const { samples } = await cronSamples({ sources: s, localZone: 'UTC' }, NOW);
    expect(samples).to.deep.equal([{ labels: { targetKind: 'Deployment', targetName: 'a', targetNamespace: 'default', resourceIdentifier: 'cron' }, value: 9 }]);
  });

  it('reads at most 8 scale subresources at a time however many cron-only EHPAs there are', async () => {
    const ehpas = Array.from({ length: 30 }, (_, i) => ehpa({ metrics: [], crons: [EVENING] }, `w${i}`, `uid-${i}`));
    let inFlight = 0;
    let peak = 0;
    const sources = {
      listEhpas: () => ehpas,
      listTsps: () => [],
      async getScaleReplicas(_ns: string, ref: CrossVersionObjectReference) {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return Number(ref.name.slice(1));
      },
    };
    const { samples } = await cronSamples({ sources, localZone: 'UTC' }, NOW);
    expect(samples).to.have.length(30);
    expect(samples[29]!.value).to.equal(29);
    expect(peak).to.equal(8);
  });

  it('exports crane_autoscaling_prediction: the window maximum, with resourceIdentifier and algorithm labels', async () => {
    const s = new MapSources();
    s.ehpas.push(ehpa({}, 'web'));
    s.tsps.push(withAlgorithm(tsp(NOW, [1.5, 2.7, 2.2]), 'dsp'));
    const text = await scrape(s);
    expect(text).to.include('crane_autoscaling_prediction{targetKind="Deployment",targetName="web",targetNamespace="default",resourceIdentifier="crane_pod_cpu_usage",algorithm="dsp"} 2.7\n');
    // web has no crons: no cron series.
    expect(text).not.to.match(/^crane_autoscaling_cron\{/m);
  });

  it('prediction values are what the adapter answers; not-ready and outdated forecasts are not exported', async () => {
    const s = new MapSources();
    s.ehpas.push(ehpa({}, 'web'));
    s.tsps.push(tsp(NOW, [0.25, 0.123456], { rid: 'resource.cpu' }));
    const samples = await predictionSamples(s, NOW);
    expect(samples).to.deep.equal([
      { labels: { targetKind: 'Deployment', targetName: 'web', targetNamespace: 'default', resourceIdentifier: 'resource.cpu', algorithm: '' }, value: 0.25 },
    ]);
    const [v] = await predictionProvider({ sources: s }).values({ namespace: 'default', metric: 'crane_autoscaling_prediction', selector: selectorFromLabels(samples[0]!.labels), nowMs: NOW });
    expect(Number(v!.milli) / 1000).to.equal(samples[0]!.value);

    s.tsps = [tsp(NOW, [3], { ready: false })];
    expect(await predictionSamples(s, NOW)).to.deep.equal([]);
    // Every point lies before now + window's start: outdated.
    s.tsps = [tsp(NOW - 3 * 3600_000, [3, 3])];
    expect(await predictionSamples(s, NOW)).to.deep.equal([]);
  });

  it('exports nothing until the caches have their first list', async () => {
    const s = new MapSources();
    s.ehpas.push(ehpa({ crons: [DAY] }, 'web'));
    s.tsps.push(tsp(NOW, [1]));
    let synced = false;
    expect(await scrape(s, { ready: () => synced })).not.to.match(/^crane_(autoscaling_cron|autoscaling_prediction|prediction_tsp)\{/m);
    synced = true;
    const text = await scrape(s, { ready: () => synced });
    expect(text).to.match(/^crane_autoscaling_cron\{.*\} 7$/m);
    expect(text).to.match(/^crane_autoscaling_prediction\{.*\} 1$/m);
  });

  it('recomputes on every scrape: a cron window that ends drops the value back', async () => {
    const s = new MapSources();
    s.ehpas.push(ehpa({ crons: [DAY] }, 'web'));
    const registry = new Registry();
    let now = NOW;
    registerCraneExporter(registry, { sources: s, localZone: 'UTC', now: () => now });
    expect(await registry.metrics()).to.match(/^crane_autoscaling_cron\{.*\} 7$/m);
    now = Date.parse('2026-01-07T11:00:00Z');
    expect(await registry.metrics()).to.match(/^crane_autoscaling_cron\{.*\} 2$/m);
  });
});
