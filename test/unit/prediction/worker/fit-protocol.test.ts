// The fit protocol carries auto mode's coverage target and window into a fit and the Forecast's calibration
// back out of it (src/prediction/worker/fit-protocol.ts): over a bare MessageChannel with a recording fit,
// and through the real worker pool against the same fit in this thread.
import { expect } from 'chai';
import { MessageChannel } from 'node:worker_threads';
import { serveFits, type FitReply, type FitRequest, type WorkerMessage } from '../../../../src/prediction/worker/fit-protocol.ts';
import type { ForecastWindow } from '../../../../src/prediction/controller/forecaster.ts';
import type { CalibrationSummary } from '../../../../src/prediction/dsp/window-calibration.ts';
import { CoreForecaster } from '../../../../src/prediction/controller/core-forecaster.ts';
import { ForecastPool } from '../../../../src/prediction/worker/forecast-pool.ts';
import { PooledForecaster } from '../../../../src/prediction/worker/pooled-forecaster.ts';
import type { PredictionAlgorithm } from '../../../../src/api/prediction.ts';
import { craneTrace } from './fixtures/traces.ts';

const SUMMARY: CalibrationSummary = {
  method: 'max(model, recent max)',
  multiplier: 1.0825,
  target: 0.95,
  windowSeconds: 1800,
  backtestCoverage: 0.975,
  backtestSlack: 0.12,
  backtestWindows: 480,
  exact: true,
  candidates: [{ method: 'recent max', multiplier: 1.3, backtestCoverage: 0.96, backtestSlack: 0.3, windowMax: 2.5 }],
};

describe('fit protocol: coverage in, calibration out', function () {
  this.timeout(60_000);

  it('a request carries the coverage target and window to the fit; the reply carries its calibration and remark', async () => {
    const { port1, port2 } = new MessageChannel();
    const seen: ForecastWindow[] = [];
    serveFits(port2, (_input, _a, w) => {
      seen.push(w);
      return { timestamps: [60, 120], values: [1.5, 2.5], calibration: SUMMARY, note: 'daily period: calibrated' };
    });
    const messages: WorkerMessage[] = [];
    const replied = new Promise<FitReply>((resolve) => {
      port1.on('message', (m: WorkerMessage) => {
        messages.push(m);
        if (m.type !== 'ready') resolve(m);
      });
    });
    const req: FitRequest = {
      id: 7,
      labels: { pod: 'a' },
      timestamps: Float64Array.from([0, 60]),
      values: Float64Array.from([1, 2]),
      algorithm: { algorithmType: 'dsp' },
      window: { nowS: 60, horizonSeconds: 3600, coverage: 0.95, coverageWindowSeconds: 1800 },
    };
    port1.postMessage(req);
    const reply = await replied;
    port1.close();
    expect(messages[0]).to.deep.equal({ type: 'ready' });
    expect(seen).to.deep.equal([{ nowS: 60, horizonSeconds: 3600, coverage: 0.95, coverageWindowSeconds: 1800 }]);
    expect(reply.type).to.equal('fit');
    if (reply.type !== 'fit') return;
    expect(reply.id).to.equal(7);
    expect(Array.from(reply.values)).to.deep.equal([1.5, 2.5]);
    expect(reply.calibration).to.deep.equal(SUMMARY);
    expect(reply.note).to.equal('daily period: calibrated');
  });

  it('through the worker pool: the calibration for the requested target and window, equal to the in-thread fit; crane mode gets none', async () => {
    const trace = craneTrace('input0', 7 * 1440);
    const now = trace.timestamps[trace.timestamps.length - 1] as number;
    const history = [{ ...trace, labels: { pod: 'a' } }];
    const auto: PredictionAlgorithm = { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '7d' } };
    const w: ForecastWindow = { nowS: now, horizonSeconds: 3600, coverage: 0.95, coverageWindowSeconds: 1800 };
    const pool = new ForecastPool({ size: 1, budgetMs: 60_000 });
    try {
      const pooled = await new PooledForecaster(pool).forecast(history, auto, w);
      const inThread = new CoreForecaster().forecast(history, auto, w);
      const c = pooled[0]!.calibration;
      expect(c, 'the pooled fit returns its calibration').to.not.equal(undefined);
      expect(c!.target).to.equal(0.95);
      expect(c!.windowSeconds).to.equal(1800);
      expect(c!.multiplier).to.be.greaterThan(0);
      expect(c!.backtestCoverage).to.be.within(0, 1);
      expect(c).to.deep.equal(inThread[0]!.calibration);
      expect(pooled[0]!.values).to.deep.equal(inThread[0]!.values);

      // Crane's own estimators: no calibration, and the same numbers whatever the coverage asked for.
      const crane: PredictionAlgorithm = { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '7d', estimators: { maxValue: [{ marginFraction: '0.1' }] } } };
      const plain = await new PooledForecaster(pool).forecast(history, crane, { nowS: now, horizonSeconds: 3600 });
      const asked = await new PooledForecaster(pool).forecast(history, crane, w);
      expect(asked.map((s) => s.calibration)).to.deep.equal(plain.map(() => undefined));
      expect(asked.map((s) => s.values)).to.deep.equal(plain.map((s) => s.values));
    } finally {
      await pool.close();
    }
  });
});
