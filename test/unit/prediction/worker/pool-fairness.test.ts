// Fits wait their turn by tenant in the forecast pool (src/kube/fair-queue.ts): a namespace that queues many
// fits cannot push another namespace's next fit behind all of them.
import { expect } from 'chai';
import { ForecastPool } from '../../../../src/prediction/worker/forecast-pool.ts';
import type { PredictionAlgorithm } from '../../../../src/api/prediction.ts';
import { craneTrace } from './fixtures/traces.ts';

describe('ForecastPool: waiting fits by tenant', () => {
  it('in the pool: with one worker, the victim\'s fit queued after six of mallory\'s runs second, not seventh', async function () {
    this.timeout(60_000);
    const pool = new ForecastPool({ size: 1, budgetMs: 60_000 });
    try {
      const trace = craneTrace('input0');
      const now = trace.timestamps[trace.timestamps.length - 1] as number;
      const algorithm: PredictionAlgorithm = { algorithmType: 'percentile' };
      const done: string[] = [];
      const fit = (tenant: string, name: string) =>
        pool.fit({ labels: { name }, timestamps: Float64Array.from(trace.timestamps), values: Float64Array.from(trace.values), algorithm, window: { nowS: now, horizonSeconds: 1200 } }, undefined, tenant).then(() => done.push(name));
      const all = [...Array.from({ length: 6 }, (_, i) => fit('mallory', `m${i}`)), fit('victim', 'v0')];
      await Promise.all(all);
      expect(done).to.deep.equal(['m0', 'v0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    } finally {
      await pool.close();
    }
  });
});
