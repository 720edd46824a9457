import { expect } from 'chai';
import { dedupedFallbackListener } from '../../../../src/adapter/providers/fallback-reporter.ts';
import type { PredictionFallbackEvent } from '../../../../src/adapter/providers/sources.ts';

describe('dedupedFallbackListener', () => {
  it('reports a change of reason or outcome at once, repeats only after the interval', () => {
    const seen: string[] = [];
    const clock = { t: 0 };
    const report = dedupedFallbackListener((e) => seen.push(`${clock.t} ${e.ehpaName} ${e.reason} ${e.outcome}`), { intervalMs: 60_000, now: () => clock.t });
    const ev = (ehpaName: string, reason: PredictionFallbackEvent['reason'], outcome: PredictionFallbackEvent['outcome'] = 'observed'): PredictionFallbackEvent =>
      ({ namespace: 'default', ehpaName, metric: 'crane_pod_cpu_usage', reason, message: 'm', outcome });
    report(ev('a', 'PredictionOutdated'));
    clock.t = 15_000;
    report(ev('a', 'PredictionOutdated'));
    report(ev('b', 'PredictionOutdated'));
    clock.t = 30_000;
    report(ev('a', 'PredictionOutdated', 'error'));
    clock.t = 45_000;
    report(ev('a', 'PredictionOutdated', 'error'));
    clock.t = 90_001;
    report(ev('a', 'PredictionOutdated', 'error'));
    expect(seen).to.deep.equal(['0 a PredictionOutdated observed', '15000 b PredictionOutdated observed', '30000 a PredictionOutdated error', '90001 a PredictionOutdated error']);
  });
});
