// Forecast workers run at a lower CPU priority than the thread serving the metrics APIs: on Linux the nice
// value is per thread, so only the worker's own task changes (docs/security.md §8).
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { ForecastPool } from '../../../../src/prediction/worker/forecast-pool.ts';
import { PooledForecaster } from '../../../../src/prediction/worker/pooled-forecaster.ts';
import { currentThreadId, FIT_THREAD_NICE } from '../../../../src/prediction/worker/thread-priority.ts';

/** Nice value of every thread of this process, from /proc/self/task/<tid>/stat (field 19). */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(Number(tid), Number(fields[16]));
  }
  return out;
}

describe('forecast worker thread priority', function () {
  this.timeout(60_000);
  it('reads the thread id from /proc/thread-self', () => {
    expect(currentThreadId(() => '1234/task/1240')).to.equal(1240);
    expect(currentThreadId(() => 'garbage')).to.equal(undefined);
    expect(
      currentThreadId(() => {
        throw new Error('ENOENT');
      }),
    ).to.equal(undefined);
    expect(currentThreadId()).to.equal(process.pid); // the main thread's task id is the process id
  });

  it("a pool worker runs at nice 10 (or the process' own, if that is lower priority already) while the process' main thread keeps its own", async () => {
    const main = getPriority(process.pid);
    // Under `nice -n 19` (a mutation-testing job, a niced CI step) the worker keeps 19: the code only ever
    // lowers a thread's priority, it never raises it.
    const workerNice = Math.max(main, FIT_THREAD_NICE);
    const before = threadNices();
    const pool = new ForecastPool({ size: 1, budgetMs: 30_000 });
    try {
      const timestamps = Array.from({ length: 3 * 1440 }, (_, i) => 1_700_000_000 + i * 60);
      const values = timestamps.map((t) => 1 + Math.sin((2 * Math.PI * t) / 86_400));
      const nowS = timestamps[timestamps.length - 1] as number;
      const out = await new PooledForecaster(pool).forecast([{ labels: {}, timestamps, values }], { algorithmType: 'percentile' }, { nowS, horizonSeconds: 3600 });
      expect(out).to.have.length(1);
      const nices = threadNices();
      const atWorkerNice = (m: Map<number, number>) => [...m.values()].filter((n) => n === workerNice).length;
      if (main < FIT_THREAD_NICE) {
        // Exactly one more thread at nice 10: the worker's own task, not the whole process.
        expect(atWorkerNice(nices), JSON.stringify([...nices])).to.equal(atWorkerNice(before) + 1);
      } else {
        expect([...nices.values()].every((n) => n >= main), JSON.stringify([...nices])).to.equal(true);
      }
      expect(nices.get(process.pid)).to.equal(main);
    } finally {
      await pool.close();
    }
  });
});
