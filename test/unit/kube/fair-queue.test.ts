// Fits wait their turn by tenant (src/prediction/worker/fair-queue.ts): a namespace that queues many fits
// cannot push another namespace's next fit behind all of them.
import { expect } from 'chai';
import { FairQueue } from '../../../../src/prediction/worker/fair-queue.ts';
import { ForecastPool } from '../../../../src/prediction/worker/forecast-pool.ts';
import type { PredictionAlgorithm } from '../../../../src/api/prediction.ts';
import { craneTrace } from './fixtures/traces.ts';

describe('FairQueue: round-robin by tenant, FIFO within one', () => {
  it('serves tenants in turn in the order they first queued, each tenant oldest first', () => {
    const q = new FairQueue<string>();
    for (const [t, x] of [['m', 'm1'], ['m', 'm2'], ['m', 'm3'], ['v', 'v1'], ['m', 'm4'], ['w', 'w1'], ['v', 'v2']] as const) q.push(t, x);
    expect(q.length).to.equal(7);
    expect(q.drain()).to.deep.equal(['m1', 'v1', 'w1', 'm2', 'v2', 'm3', 'm4']);
    expect(q.length).to.equal(0);
    expect(q.shift()).to.equal(undefined);
  });

  it('removes a cancelled job wherever it waits, and a tenant with none left loses its turn', () => {
    const q = new FairQueue<string>();
    for (const [t, x] of [['m', 'm1'], ['v', 'v1'], ['m', 'm2'], ['w', 'w1']] as const) q.push(t, x);
    expect(q.remove('v', 'v1')).to.equal(true);
    expect(q.remove('v', 'v1')).to.equal(false);
    expect(q.remove('w', 'nope')).to.equal(false);
    expect(q.length).to.equal(3);
    expect(q.drain()).to.deep.equal(['m1', 'w1', 'm2']);
  });

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
