// Long replays: the chart (no stack overflow, a bounded number of points, spikes kept) and the core's
// progress callback.
import { expect } from 'chai';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { downsamplePerColumn, linePath, MAX_LINE_POINTS, renderSvg, summaryLine } from '../../../src/simulate/svg-plot.ts';
import { simulate, type SimulationStep } from '../../../src/simulate/simulate.ts';

const T0 = 1_700_438_400;

function step(i: number, usageCores: number, replicas: number, forecast: number | null): SimulationStep {
  return {
    t: T0 + 60 * i,
    usageCores,
    forecastCores: forecast,
    forecastWindowMaxCores: forecast === null ? null : forecast * 1.2,
    cronReplicas: null,
    ehpa: { replicas, readyReplicas: replicas, proposals: {}, underProvisioned: i % 997 === 0 },
    plain: { replicas, readyReplicas: replicas, proposals: {}, underProvisioned: i % 3 === 0 },
  };
}

describe('simulate --plot on long replays', () => {
  it('renders 100,000 steps: well-formed, every path downsampled per pixel column, the spike kept', () => {
    const N = 100_000;
    const steps: SimulationStep[] = [];
    for (let i = 0; i < N; i++) {
      // A daily wave of 2-6 cores, one 50-core spike of a single minute, a forecast gap in the middle.
      const usage = i === 71_234 ? 50 : 4 + 2 * Math.sin((2 * Math.PI * i) / 1440);
      steps.push(step(i, usage, Math.ceil(usage / 0.5), i > 40_000 && i < 41_000 ? null : 4));
    }
    const svg = renderSvg(steps, { title: '100k', stepSeconds: 60, perPodTargetCores: 0.5 });
    expect(XMLValidator.validate(svg)).to.equal(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(svg) as { svg: { path: { id: string; d: string }[]; g: { id: string; rect?: unknown[] | unknown }[] } };
    const paths = new Map(doc.svg.path.map((p) => [p.id, p.d]));
    for (const id of ['series-usage', 'series-forecast', 'series-forecast-window-max', 'series-ehpa-replicas', 'series-plain-replicas']) {
      const points = (paths.get(id) ?? '').match(/[MLHV]/g)?.length ?? 0;
      expect(points, id).to.be.greaterThan(100);
      // At most two points per pixel column (1110 columns), and for stepped paths two commands per point.
      expect(points, id).to.be.at.most(2 * 2 * 1200);
    }
    // The spike is the chart's maximum: the top panel's scale is 50 × 1.08, so y = 60 + 300 − 300 / 1.08.
    const usage = paths.get('series-usage') as string;
    const ys = [...usage.matchAll(/[ML][\d.]+ ([\d.]+)/g)].map((m) => Number(m[1]));
    expect(Math.min(...ys)).to.be.closeTo(60 + 300 - 300 / 1.08, 0.1);
    // The forecast gap stays a gap: the path starts again with M.
    expect((paths.get('series-forecast') as string).match(/M/g)).to.have.length(2);
    // Under-provisioned strips merge within a pixel: a few hundred rectangles at most, not 33,000.
    const plainStrip = doc.svg.g.find((g) => g.id === 'under-plain');
    const rects = Array.isArray(plainStrip?.rect) ? plainStrip.rect.length : 1;
    expect(rects).to.be.at.most(1200);
  });

  it('shades cron windows in the replica panel and prints the summary figures under the title', () => {
    // Two cron windows (steps 100-159 and 400-419) in 600 steps.
    const steps = Array.from({ length: 600 }, (_, i) => ({ ...step(i, 3, 6, 3), ...((i >= 100 && i < 160) || (i >= 400 && i < 420) ? { cronActive: true } : {}) }));
    const summary = simulate({
      ehpa: { apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler', metadata: { name: 'w', namespace: 'n' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'w' }, maxReplicas: 10 } } as never,
      history: { timestamps: steps.map((s) => s.t), values: steps.map(() => 3) },
      fromS: T0, toS: T0 + 60 * 599, stepSeconds: 60, podCpuRequestMilli: 1000, tolerance: 0.1, downscaleStabilizationSeconds: 300, localZone: 'UTC', seed: 1, predictionFallback: 'observed', forecastRetrySeconds: 600,
    }).summary;
    const svg = renderSvg(steps, { title: 'cron', stepSeconds: 60, perPodTargetCores: 0.5, summary });
    expect(XMLValidator.validate(svg)).to.equal(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(svg) as { svg: { g: { id: string; rect?: { x: string; width: string }[] | { x: string; width: string } }[]; text: { id?: string; '#text': string }[] } };
    const cron = doc.svg.g.find((g) => g.id === 'cron-windows');
    const rects = [cron?.rect ?? []].flat();
    expect(rects).to.have.length(2);
    // The first window is three times as wide as the second (60 against 20 steps).
    expect(Number(rects[0]!.width) / Number(rects[1]!.width)).to.be.closeTo(3, 0.1);
    const text = doc.svg.text.find((t) => t.id === 'summary');
    expect(text?.['#text']).to.equal(summaryLine(summary));
    expect(summaryLine(summary)).to.match(/^EHPA: [\d.]+ short min, [\d.]+ replica-h \(avg [\d.]+\) · plain HPA: [\d.]+ short min, [\d.]+ replica-h \(avg [\d.]+\)$/);
    // Without cron windows or a summary, neither appears.
    const bare = renderSvg(steps.map(({ cronActive: _c, ...s }) => s), { title: 'bare', stepSeconds: 60, perPodTargetCores: 0.5 });
    expect(bare).to.match(/<g id="cron-windows" class="cron"><\/g>/).and.not.match(/id="summary"/);
  });

  it('short replays are drawn point by point, as before', () => {
    const steps = Array.from({ length: 100 }, (_, i) => step(i, 1 + (i % 7), 3, 2));
    const d = linePath(steps, { x: (t) => t - T0 }, (v) => v, (s) => s.usageCores, false);
    expect(d.match(/L/g)).to.have.length(99);
    expect(MAX_LINE_POINTS).to.be.at.least(1000);
  });

  it('downsamplePerColumn keeps the lowest and the highest point of each column in time order, and gaps', () => {
    const pts = [
      { t: 0, v: 5 as number | null },
      { t: 1, v: 9 },
      { t: 2, v: 1 },
      { t: 3, v: 4 },
      { t: 10, v: 7 },
      { t: 11, v: null },
      { t: 20, v: 3 },
    ];
    const out = downsamplePerColumn(pts, { x: (t) => t / 10 }, (p) => p.v);
    expect(out).to.deep.equal([
      { t: 1, v: 9 },
      { t: 2, v: 1 },
      { t: 10, v: 7 },
      { t: 11, v: null },
      { t: 20, v: 3 },
    ]);
    // A column that starts inside a gap: the gap first, then its points.
    const gapFirst = downsamplePerColumn([{ t: 0, v: null }, { t: 1, v: 2 }, { t: 2, v: 8 }], { x: () => 0 }, (p: { v: number | null }) => p.v);
    expect(gapFirst).to.deep.equal([{ t: 0, v: null }, { t: 1, v: 2 }, { t: 2, v: 8 }]);
  });

  it('the core reports progress after each step, ending at the total', () => {
    const history = { timestamps: Array.from({ length: 11 }, (_, i) => T0 + 60 * i), values: new Array<number>(11).fill(1) };
    const calls: [number, number][] = [];
    simulate({
      ehpa: {
        apiVersion: 'autoscaling.crane.io/v1alpha1',
        kind: 'EffectiveHorizontalPodAutoscaler',
        metadata: { name: 'p', namespace: 'default', uid: 'u' },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'p' }, minReplicas: 1, maxReplicas: 10 },
      },
      history,
      fromS: T0,
      toS: T0 + 600,
      stepSeconds: 60,
      podCpuRequestMilli: 1000,
      tolerance: 0.1,
      downscaleStabilizationSeconds: 300,
      localZone: 'UTC',
      seed: 1,
      predictionFallback: 'observed',
      forecastRetrySeconds: 600,
      onProgress: (done, total) => calls.push([done, total]),
    });
    expect(calls).to.deep.equal(Array.from({ length: 11 }, (_, i) => [i + 1, 11]));
  });
});
