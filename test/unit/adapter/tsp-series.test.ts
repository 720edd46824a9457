// The exporter's TSP series (docs/crane-behaviour.md §C.6): TSPs in, crane_autoscaling_prediction and
// crane_prediction_tsp out, for every TSP whatever created it, with Crane HEAD's labels, bounded and fair.
import { expect } from 'chai';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { fairShares, tspSeries, type TspSeries } from '../../../src/adapter/tsp-series.ts';
import { registerCraneExporter, tspSeriesText } from '../../../src/adapter/crane-exporter.ts';
import { predictionAnswer } from '../../../src/metric-values/forecast-value.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import { MapSources } from '../../helpers/adapter-fixture.ts';
import { ehpa, tsp as ehpaTsp } from './fixtures.ts';

const NOW = Date.parse('2026-01-07T10:30:20Z');
const NOW_S = Math.floor(NOW / 1000);

/** A TSP as a user applies it (no EHPA, no EHPA labels), with a ready status of `values` every `step` s from `from`. */
function handTsp(o: {
  ns?: string; name: string; kind?: string; target?: string; refNamespace?: string; rid?: string; algorithm?: string;
  values?: string[]; from?: number; step?: number; window?: number; ready?: boolean;
}): TimeSeriesPrediction {
  const rid = o.rid ?? 'cpu';
  const from = o.from ?? NOW_S - 60;
  return {
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: { name: o.name, namespace: o.ns ?? 'team-a' },
    spec: {
      targetRef: { kind: o.kind ?? 'Deployment', name: o.target ?? o.name, ...(o.refNamespace !== undefined ? { namespace: o.refNamespace } : {}) },
      predictionWindowSeconds: o.window ?? 3600,
      predictionMetrics: [{ resourceIdentifier: rid, type: 'ResourceQuery', resourceQuery: 'cpu', algorithm: { algorithmType: o.algorithm ?? 'percentile' } }],
    },
    status: {
      predictionMetrics: [{
        resourceIdentifier: rid,
        ready: o.ready ?? true,
        prediction: [{ labels: [], samples: (o.values ?? ['1.0', '2.0', '3.0']).map((value, i) => ({ timestamp: from + i * (o.step ?? 60), value })) }],
      }],
    },
  } as TimeSeriesPrediction;
}

const run = (tsps: TimeSeriesPrediction[], maxPairs = 10_000, ehpaTargets?: Set<string>) =>
  tspSeries(tsps, NOW, { maxPairs, ...(ehpaTargets ? { ehpaTargets } : {}) });

describe('exporter TSP series (crane_autoscaling_prediction, crane_prediction_tsp)', () => {
  it('exports a TSP that no EHPA owns, with Crane\'s five labels in Crane\'s order', async () => {
    const { series } = await run([handTsp({ name: 'api', algorithm: 'dsp' })]);
    expect(series).to.have.length(1);
    expect(Object.entries(series[0]!.labels)).to.deep.equal([
      ['targetKind', 'Deployment'], ['targetName', 'api'], ['targetNamespace', 'team-a'], ['resourceIdentifier', 'cpu'], ['algorithm', 'dsp'],
    ]);
    // Window [now, now + 3600]: the points at now-60 (1.0) is out, 2.0 (now) and 3.0 (now+60) are in.
    expect(series[0]!.prediction).to.equal(3);
  });

  it('crane_prediction_tsp is the first point at or after now, stamped with its own future time', async () => {
    // Points at now-20 s, now+40 s, now+100 s: the first at or after now is the one 40 s ahead.
    const t = handTsp({ name: 'api', from: NOW_S - 20, values: ['5.5', '0.75', '9'] });
    const { series } = await run([t]);
    expect(series[0]!.next).to.deep.equal({ value: 0.75, timestampMs: (NOW_S + 40) * 1000 });
    expect(series[0]!.next!.timestampMs).to.be.greaterThan(NOW);
    const text = await tspSeriesText(series);
    expect(text).to.contain(`crane_prediction_tsp{targetKind="Deployment",targetName="api",targetNamespace="team-a",resourceIdentifier="cpu",algorithm="percentile"} 0.75 ${(NOW_S + 40) * 1000}\n`);
    // The served value is stamped by the scrape (no timestamp), and is the window maximum, not truncated.
    expect(text).to.contain('crane_autoscaling_prediction{targetKind="Deployment",targetName="api",targetNamespace="team-a",resourceIdentifier="cpu",algorithm="percentile"} 9\n');
    expect(text).to.contain('# TYPE crane_prediction_tsp gauge\n');
  });

  it('a Node TSP is exported with targetNamespace empty, as Crane labels it from the targetRef', async () => {
    const { series } = await run([handTsp({ ns: 'monitoring', name: 'node-n1', kind: 'Node', target: 'kwok-node-1', rid: 'node-cpu', values: ['0.4', '1.6'] })]);
    expect(series.map((s) => s.labels)).to.deep.equal([
      { targetKind: 'Node', targetName: 'kwok-node-1', targetNamespace: '', resourceIdentifier: 'node-cpu', algorithm: 'percentile' },
    ]);
    expect(series[0]!.prediction).to.equal(1.6);
    expect(await tspSeriesText(series)).to.match(/^crane_prediction_tsp\{targetKind="Node",targetName="kwok-node-1",targetNamespace="",resourceIdentifier="node-cpu",algorithm="percentile"\} 1\.6 \d+$/m);
  });

  it('two namespaces forecasting one node give one label set (the first namespace in name order)', async () => {
    const { series } = await run([
      handTsp({ ns: 'ops-b', name: 'n', kind: 'Node', target: 'n1', values: ['0', '7'] }),
      handTsp({ ns: 'ops-a', name: 'n', kind: 'Node', target: 'n1', values: ['0', '5'] }),
    ]);
    expect(series).to.have.length(1);
    expect(series[0]!.prediction).to.equal(5);
  });

  it('a targetRef naming another namespace exports nothing (its series would name that namespace\'s workload)', async () => {
    const { series } = await run([handTsp({ ns: 'team-a', name: 'spoof', target: 'web', refNamespace: 'team-b' })]);
    expect(series).to.deep.equal([]);
    // Naming its own namespace is the same as leaving it out.
    expect((await run([handTsp({ ns: 'team-a', name: 'own', refNamespace: 'team-a' })])).series).to.have.length(1);
  });

  it('only finite values at or above 0: NaN points are skipped, negative forecasts read 0', async () => {
    const t = handTsp({ name: 'neg', from: NOW_S, values: ['NaN', '-2.5', '-1'] });
    const { series } = await run([t]);
    expect(series[0]!.next).to.deep.equal({ value: 0, timestampMs: (NOW_S + 60) * 1000 });
    expect(series[0]!.prediction).to.equal(0);
    const text = await tspSeriesText(series);
    expect(text).not.to.match(/NaN|Inf|-\d/);
    for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) {
      const v = Number(line.split('} ')[1]!.split(' ')[0]);
      expect(Number.isFinite(v) && v >= 0, line).to.equal(true);
    }
  });

  it('a forecast not ready, or whose points are all past, exports neither series; a TSP without status nothing', async () => {
    const { series } = await run([
      handTsp({ name: 'not-ready', ready: false }),
      handTsp({ name: 'past', from: NOW_S - 7200 }),
      { ...handTsp({ name: 'fresh' }), status: {} },
    ]);
    expect(series).to.deep.equal([]);
  });

  it('the value is the one the adapter answers for the same selector (predictionAnswer over the namespace)', async () => {
    // Two TSPs for one target and identifier: the adapter picks the first in list order; so does the exporter.
    const a = handTsp({ name: 'first', target: 'web', values: ['1', '4'] });
    const b = handTsp({ name: 'second', target: 'web', values: ['1', '8'], algorithm: 'dsp' });
    const other = handTsp({ name: 'db', values: ['2', '2'] });
    const { series } = await run([other, a, b]);
    const web = series.find((s) => s.labels.targetName === 'web')!;
    const answer = predictionAnswer([other, a, b], { kind: 'Deployment', name: 'web', namespace: 'team-a' }, 'cpu', NOW);
    expect(answer.ok && Number(answer.milli) / 1000).to.equal(web.prediction).and.to.equal(4);
    expect(web.labels.algorithm).to.equal('percentile');
    expect(series).to.have.length(2);
  });

  it('an EHPA\'s own TSP and a hand-made one beside it are both exported; the EHPA\'s keeps its adapter value', async () => {
    const s = new MapSources();
    s.ehpas.push(ehpa({}, 'web'));
    s.tsps.push(ehpaTsp(NOW, [1.5, 2.7, 2.2]), handTsp({ ns: 'default', name: 'by-hand', target: 'web', rid: 'memory', values: ['100', '300'] }));
    const registry = new Registry();
    const exporter = registerCraneExporter(registry, { sources: s, localZone: 'UTC', now: () => NOW });
    const text = await exporter.text();
    expect(text).to.contain('crane_autoscaling_prediction{targetKind="Deployment",targetName="web",targetNamespace="default",resourceIdentifier="crane_pod_cpu_usage",algorithm=""} 2.7\n');
    expect(text).to.contain('crane_autoscaling_prediction{targetKind="Deployment",targetName="web",targetNamespace="default",resourceIdentifier="memory",algorithm="percentile"} 300\n');
    expect(text.match(/^crane_prediction_tsp\{/gm)).to.have.length(2);
  });

  it('stays bounded: a namespace with thousands of TSPs gets its fair share, another namespace keeps all of its series', async () => {
    const hostile = Array.from({ length: 3000 }, (_, i) => handTsp({ ns: 'hostile', name: `t${String(i).padStart(4, '0')}` }));
    const victim = Array.from({ length: 5 }, (_, i) => handTsp({ ns: 'victim', name: `v${i}` }));
    const { series, leftOut } = await run([...hostile, ...victim], 100);
    const byNs = (ns: string) => series.filter((s) => s.labels.targetNamespace === ns).length;
    expect(byNs('victim')).to.equal(5);
    expect(byNs('hostile')).to.equal(95);
    expect(leftOut).to.equal(2905);
    // The same ones every scrape: by TSP name.
    expect(series.filter((s) => s.labels.targetNamespace === 'hostile').map((s) => s.labels.targetName).slice(0, 2)).to.deep.equal(['t0000', 't0001']);
  });

  it('under the bound, an EHPA\'s target comes first within its namespace', async () => {
    const tsps = ['a', 'b', 'c', 'z'].map((n) => handTsp({ name: n }));
    const { series } = await run(tsps, 2, new Set(['team-a/Deployment/z']));
    expect(series.map((s) => s.labels.targetName)).to.deep.equal(['z', 'a']);
  });

  it('fairShares: equal shares, unused share given back, remainder in name order', () => {
    const shares = (c: Record<string, number>, max: number) => Object.fromEntries(fairShares(new Map(Object.entries(c)), max));
    expect(shares({ a: 1000, b: 3, c: 1000 }, 100)).to.deep.equal({ a: 49, b: 3, c: 48 });
    expect(shares({ a: 10, b: 10 }, 100)).to.deep.equal({ a: 10, b: 10 });
    expect(shares({ a: 5, b: 5, c: 5 }, 2)).to.deep.equal({ a: 1, b: 1, c: 0 });
    expect(shares({}, 10)).to.deep.equal({});
  });

  it('5,000 TSPs x 2 series: the scrape\'s time and its longest hold on the event loop', async function () {
    this.timeout(60_000);
    // Forecasts as the EHPA controller writes them: a 1 h window, 60 s points over twice the window.
    const values = Array.from({ length: 120 }, (_, i) => (1 + Math.sin(i / 10)).toFixed(5));
    const tsps = Array.from({ length: 5000 }, (_, i) => handTsp({ ns: `ns-${i % 50}`, name: `w${i}`, values, algorithm: 'dsp' }));
    const s = new MapSources();
    s.tsps = tsps;
    const registry = new Registry();
    const exporter = registerCraneExporter(registry, { sources: s, localZone: 'UTC', now: () => NOW });
    await exporter.text(); // warm up (JIT)
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const text = await exporter.text();
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(c0);
    h.disable();
    const maxBlockMs = h.max / 1e6;
    expect(text.match(/^crane_autoscaling_prediction\{/gm)).to.have.length(5000);
    expect(text.match(/^crane_prediction_tsp\{/gm)).to.have.length(5000);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    console.log(`      5,000 TSPs x 2 series: ${ms.toFixed(0)} ms per scrape (${cpuMs.toFixed(0)} ms CPU), ${(text.length / 1e6).toFixed(2)} MB, longest event-loop block ${maxBlockMs.toFixed(0)} ms (load ${os.loadavg()[0]!.toFixed(1)})`);
    // Loose bounds: two cores shared with other jobs stretch wall time; the figures are in the line above.
    expect(ms).to.be.below(10_000);
    expect(maxBlockMs).to.be.below(250);
  });

  it('ExportedSample-shaped series keep Crane\'s labels only (the rules select on exactly these)', async () => {
    const { series } = await run([handTsp({ name: 'x' })]);
    const keys = (s: TspSeries) => Object.keys(s.labels);
    expect(keys(series[0]!)).to.deep.equal(['targetKind', 'targetName', 'targetNamespace', 'resourceIdentifier', 'algorithm']);
  });
});
