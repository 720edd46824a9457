import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { CoreForecaster, fitSeries } from '../../../../src/prediction/controller/core-forecaster.ts';

// Crane's own trace (gocrane/crane pkg/prediction/dsp/test_data/input0.csv, docs/crane-behaviour.md §F: 8 days at 60 s,
// periodic with a Day period).
const csv = readFileSync(new URL('../../../fixtures/traces/crane/input0.csv', import.meta.url), 'utf8');
const rows = csv.trim().split('\n').slice(1).map((l) => l.split(',').map(Number) as [number, number]);

describe('CoreForecaster (controller adapter over the prediction core)', () => {
  const f = new CoreForecaster();
  it('uses Crane configuration rules for the history window', () => {
    expect(f.historyWindow({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } })).to.deep.equal({ lengthSeconds: 3 * 86_400, stepSeconds: 60 });
    // historyLength under 48 h: Crane silently falls back to its defaults (docs/crane-behaviour.md §D.5, https://github.com/gocrane/crane/issues/352).
    expect(f.historyWindow({ algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '1d' } })).to.deep.equal({ lengthSeconds: 15 * 86_400, stepSeconds: 60 });
    expect(f.historyWindow({ algorithmType: 'percentile' })).to.deep.equal({ lengthSeconds: 7 * 86_400, stepSeconds: 60 });
  });
  it('dsp forecasts a daily trace past now + 2 windows, starting right after the history', () => {
    const ts = rows.map((r) => r[0]);
    const vs = rows.map((r) => r[1]);
    const now = ts[ts.length - 1]!;
    const [out] = f.forecast([{ labels: {}, timestamps: ts, values: vs }], { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '7d' } }, { nowS: now, horizonSeconds: 7200 });
    expect(out!.timestamps[0]).to.equal(now + 60);
    expect(out!.timestamps[out!.timestamps.length - 1]).to.be.at.least(now + 7200);
    expect(out!.values.every((v) => Number.isFinite(v))).to.equal(true);
  });
  it('percentile gives a constant covering the horizon', () => {
    const ts = rows.slice(-1440).map((r) => r[0]);
    const vs = rows.slice(-1440).map((r) => r[1]);
    const now = ts[ts.length - 1]!;
    const [out] = f.forecast([{ labels: { a: 'b' }, timestamps: ts, values: vs }], { algorithmType: 'percentile' }, { nowS: now, horizonSeconds: 1200 });
    expect(new Set(out!.values).size).to.equal(1);
    expect(out!.timestamps[out!.timestamps.length - 1]).to.be.at.least(now + 1200);
    expect(out!.labels).to.deep.equal({ a: 'b' });
  });
  it('publishes nothing but finite numbers ≥ 0: a fit that yields anything else is a reason (a condition), not a value', () => {
    // Settings spec-bounds.ts refuses at admission and in the reconciler; here they reach the fit directly,
    // as an object stored before the bound would have. The probe's TSPs published +Inf and -1.70000.
    const ts = rows.slice(-1440).map((r) => r[0]);
    const vs = rows.slice(-1440).map((r) => r[1]);
    const w = { nowS: ts[ts.length - 1]!, horizonSeconds: 1200 };
    const fit = (percentile: Record<string, string>) =>
      fitSeries({ labels: {}, timestamps: ts, values: vs }, { algorithmType: 'percentile', percentile: { sampleInterval: '1m', historyLength: '1d', histogram: { halfLife: '24h' }, ...percentile } }, w);
    const bad: Record<string, string>[] = [{ targetUtilization: '-1' }, { targetUtilization: '0' }, { marginFraction: 'inf' }, { targetUtilization: 'nan' }];
    for (const p of bad) {
      const out = fit(p);
      expect(out, JSON.stringify(p)).to.have.property('reason').that.matches(/^the forecast is not a finite number ≥ 0 \(/);
    }
    const ok = fit({ targetUtilization: '0.5' });
    expect(ok).to.not.have.property('reason');
    expect((ok as { values: number[] }).values.every((v) => Number.isFinite(v) && v >= 0)).to.equal(true);
  });
  it('throws with the reason when no series can be forecast', () => {
    expect(() => f.forecast([{ labels: {}, timestamps: [0, 45, 60], values: [1, 2, 3] }], { algorithmType: 'dsp' }, { nowS: 60, horizonSeconds: 600 })).to.throw();
  });
});
