// The process under test of `npm run bench -- forecast-offload`: our metrics adapter (as in
// bench/adapter/ts-server.ts) and, in the same process and event loop as `serve` has them, the TSP
// controller refitting 50 TimeSeriesPredictions of a 15-day, 60 s series (tsp-workers 10, the default).
// History comes over HTTP from a stub Prometheus in the bench runner (run.ts), so reads finish in the
// event loop's I/O phase as they do against a real one.
// argv: <fixture.json> <certDir> <prometheus URL>; prints the port on stdout. Commands over IPC:
//   { start: 'idle' | 'in-thread' | 'pool' } → { started: true }: a fresh reconciler (empty forecast cache)
//     starts refitting every TSP with that forecaster (idle: none);
//   { stop: true } → { fits, loopP99Ms }: cancels what runs, reports fits finished and the event loop's p99 delay.
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { startMetricsAdapter } from '../../src/adapter/server.ts';
import { ControllerRunner } from '../../src/kube/controller-runner.ts';
import type { StatusWriter } from '../../src/kube/status-writer.ts';
import type { CacheReader } from '../../src/kube/informers.ts';
import { TspReconciler } from '../../src/prediction/controller/tsp-reconciler.ts';
import { CoreForecaster } from '../../src/prediction/controller/core-forecaster.ts';
import type { Forecaster } from '../../src/prediction/controller/forecaster.ts';
import { ForecastPool } from '../../src/prediction/worker/forecast-pool.ts';
import { PooledForecaster } from '../../src/prediction/worker/pooled-forecaster.ts';
import type { TimeSeriesPrediction } from '../../src/api/prediction.ts';
import type { HistoryProvider } from '../../src/prometheus/series.ts';
import { PrometheusClient } from '../../src/prometheus/client.ts';
import { benchAdapterOptions, fixtureSources, type BenchFixture } from '../adapter/fixture.ts';

const TSPS = 50;
const TSP_WORKERS = 10;

const [fixturePath, certDir, prometheusUrl] = process.argv.slice(2) as [string, string, string];
const fx = JSON.parse(await readFile(fixturePath, 'utf8')) as BenchFixture;
const handle = await startMetricsAdapter(
  await benchAdapterOptions(certDir),
  fixtureSources(fx, Date.now()),
  new Registry(),
  pino({ level: 'silent' }),
);

const history: HistoryProvider = new PrometheusClient({ url: prometheusUrl });

const tsps = new Map<string, TimeSeriesPrediction>();
for (let i = 0; i < TSPS; i++) {
  const name = `refit-${i}`;
  tsps.set(`bench/${name}`, {
    apiVersion: 'prediction.crane.io/v1alpha1',
    kind: 'TimeSeriesPrediction',
    metadata: { name, namespace: 'bench', generation: 1 },
    spec: {
      targetRef: { kind: 'Deployment', name, namespace: 'bench' },
      predictionWindowSeconds: 3600,
      predictionMetrics: [{ resourceIdentifier: 'qps', type: 'ExpressionQuery', expressionQuery: { expression: `sum(rate(requests_total{app="${name}"}[1m]))` }, algorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '15d' } } }],
    },
  });
}
const cache: CacheReader<TimeSeriesPrediction> = { get: (ns, name) => tsps.get(`${ns}/${name}`), list: () => [...tsps.values()] };
// Status writes are not what is measured: the API server round trip is left out.
const status = { update: async () => true } as unknown as Pick<StatusWriter, 'update'>;

// Sized as `serve` sizes it by default.
const pool = new ForecastPool({ size: Math.max(1, availableParallelism() - 1), budgetMs: 120_000 });
const forecasters: Record<string, Forecaster | undefined> = { idle: undefined, 'in-thread': new CoreForecaster(), pool: new PooledForecaster(pool) };

/** The round running: its event-loop histogram, and how to stop its refits (resolving to the fits finished). */
let round: { loop: IntervalHistogram; t0: number; stop: () => Promise<number> } | undefined;

process.on('message', (m: { start?: string; stop?: boolean }) => {
  void (async () => {
    if (m.start !== undefined) {
      const t0 = performance.now();
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      const forecaster = forecasters[m.start];
      let fits = 0;
      if (forecaster) {
        const counting: Forecaster = {
          historyWindow: (a) => forecaster.historyWindow(a),
          forecast: async (h, a, w, o) => {
            const out = await forecaster.forecast(h, a, w, o);
            fits++;
            return out;
          },
        };
        const reconciler = new TspReconciler({ tsps: cache, history, forecaster: counting, status, log: pino({ level: 'silent' }), updateFrequencyMs: 3_600_000, modelUpdateIntervalMs: 3_600_000 });
        const runner = new ControllerRunner({ name: 'tsp', workers: TSP_WORKERS, log: pino({ level: 'silent' }), reconcile: (key) => reconciler.reconcile(key) });
        for (const key of tsps.keys()) runner.enqueue(key);
        runner.start();
        round = {
          loop,
          t0,
          stop: async () => {
            reconciler.stop('benchmark round over');
            await runner.stop();
            return fits;
          },
        };
      } else {
        round = { loop, t0, stop: async () => 0 };
      }
      process.send?.({ started: true });
    } else if (m.stop && round) {
      const r = round;
      round = undefined;
      r.loop.disable();
      const fits = await r.stop();
      process.send?.({ fits, loopP99Ms: r.loop.percentile(99) / 1e6, seconds: (performance.now() - r.t0) / 1000 });
    }
  })();
});

process.stdout.write(`${handle.port}\n`);
process.on('SIGTERM', () => void Promise.all([handle.close(), pool.close()]).then(() => process.exit(0)));
