// Percentile fits run in the forecast worker pool like DSP fits (PooledForecaster hands every algorithm to
// fitSeries in a worker), so a percentile fit that outgrows the worker's heap cap ends that worker and that
// fit, never the process. Shown with the real worker entry and a real percentile block inside the spec
// bounds: a histogram of maxValue 999999 / bucketSize 1 (1,000,000 buckets, exactly BOUNDS.histogramBuckets: an 8 MB array of doubles) over 100,000
// points (BOUNDS.historyPoints) does not fit a 16 MiB worker heap (the smallest --forecast-worker-heap takes),
// while a neighbouring fit from another namespace is answered.
import { expect } from 'chai';
import { ForecastPool, FitWorkerError } from '../../../../src/prediction/worker/forecast-pool.ts';
import { PooledForecaster } from '../../../../src/prediction/worker/pooled-forecaster.ts';
import { algorithmBoundsProblems } from '../../../../src/prediction/spec-bounds.ts';
import type { PredictionAlgorithm } from '../../../../src/api/prediction.ts';

const BIG_HISTOGRAM: PredictionAlgorithm = {
  algorithmType: 'percentile',
  percentile: { sampleInterval: '60s', historyLength: '7d', histogram: { halfLife: '24h', maxValue: '999999', bucketSize: '1' } },
};
const DEFAULT_PERCENTILE: PredictionAlgorithm = { algorithmType: 'percentile' };

function series(points: number) {
  const timestamps = Float64Array.from({ length: points }, (_, i) => 60 * (i + 1));
  return { labels: {}, timestamps, values: Float64Array.from(timestamps, (_, i) => 1 + (i % 7)), window: { nowS: 60 * points, horizonSeconds: 600 } };
}

describe('percentile fits under the forecast worker heap cap', function () {
  this.timeout(60_000);
  let pool: ForecastPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('a percentile fit within the spec bounds that outgrows a 16 MiB worker heap fails alone; a concurrent fit from another namespace and the next fit are answered', async () => {
    // Within the bounds: nothing refuses it before the fit.
    expect(algorithmBoundsProblems(BIG_HISTOGRAM, 'algorithm')).to.deep.equal([]);
    pool = new ForecastPool({ size: 2, budgetMs: 50_000, heapLimitMb: 16 });
    const [big, neighbour] = await Promise.allSettled([
      pool.fit({ ...series(100_000), algorithm: BIG_HISTOGRAM }, undefined, 'mallory'),
      pool.fit({ ...series(1_000), algorithm: DEFAULT_PERCENTILE }, undefined, 'victim'),
    ]);
    expect(big.status).to.equal('rejected');
    const err = (big as PromiseRejectedResult).reason as Error;
    expect(err).to.be.instanceOf(FitWorkerError);
    expect(err.message).to.equal("forecast needed more than the worker's 16 MiB heap (--forecast-worker-heap)");
    expect(neighbour.status).to.equal('fulfilled');
    const v = (neighbour as PromiseFulfilledResult<Awaited<ReturnType<ForecastPool['fit']>>>).value;
    expect('values' in v && v.values.length).to.be.greaterThan(0);
    expect(pool.replaced).to.equal(1);
    // Through the controller's forecaster: the TSP's metric fails with the reason, the pool goes on.
    const forecaster = new PooledForecaster(pool);
    const s = series(100_000);
    const h = [{ labels: { pod: 'a' }, timestamps: Array.from(s.timestamps), values: Array.from(s.values) }];
    const failed = await Promise.resolve(forecaster.forecast(h, BIG_HISTOGRAM, s.window, { tenant: 'mallory' })).then(() => null, (e: Error) => e);
    expect(failed?.message).to.match(/16 MiB heap/);
    const ok = await forecaster.forecast(h, DEFAULT_PERCENTILE, s.window, { tenant: 'victim' });
    expect(ok).to.have.length(1);
    expect(pool.replaced).to.equal(2);
  });

  it('the same block fits under a heap cap with room for its histogram (the overrun above is the cap, not the fit)', async () => {
    pool = new ForecastPool({ size: 1, budgetMs: 50_000, heapLimitMb: 64 });
    const r = await pool.fit({ ...series(1_000), algorithm: BIG_HISTOGRAM });
    expect('values' in r && r.values.every((x) => Number.isFinite(x) && x >= 0)).to.equal(true);
    expect(pool.replaced).to.equal(0);
  });
});
