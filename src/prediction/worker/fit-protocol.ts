// The messages between the forecast pool and its worker threads. History and forecasts travel as
// Float64Array columns whose buffers are transferred, not copied: the main thread only moves data, and a
// float64 survives the trip exactly, so a pooled fit gives the same numbers as one in this thread.
import type { MessagePort } from 'node:worker_threads';
import type { PredictionAlgorithm } from '../../api/prediction.ts';
import type { ForecastWindow } from '../controller/forecaster.ts';
import type { FitInput, FitOutcome } from '../controller/core-forecaster.ts';
import type { CalibrationSummary } from '../dsp/window-calibration.ts';

/** Pool → worker: fit one series. `window` carries the coverage target and its window (auto mode's calibration). */
export interface FitRequest {
  id: number;
  labels: Record<string, string>;
  timestamps: Float64Array<ArrayBuffer>;
  values: Float64Array<ArrayBuffer>;
  algorithm: PredictionAlgorithm;
  window: ForecastWindow;
}

/** Worker → pool: it has loaded and takes requests (the fit budget counts from dispatch, never start-up). */
export interface ReadyMessage {
  type: 'ready';
}

/**
 * Worker → pool: one request's answer. `error` is a bug in the core (anything but a declined series). A fit
 * carries auto mode's calibration (a plain object, structured-cloned) and the forecaster's remark.
 */
export type FitReply =
  | { type: 'fit'; id: number; timestamps: Float64Array<ArrayBuffer>; values: Float64Array<ArrayBuffer>; calibration?: CalibrationSummary; note?: string }
  | { type: 'declined'; id: number; reason: string }
  | { type: 'error'; id: number; message: string };

export type WorkerMessage = ReadyMessage | FitReply;

export type FitFunction = (input: FitInput, algorithm: PredictionAlgorithm, window: ForecastWindow) => FitOutcome;

/** The worker side: answers each request with `fit`'s outcome, one at a time (a worker runs one fit). */
export function serveFits(port: MessagePort, fit: FitFunction): void {
  port.on('message', (req: FitRequest) => {
    let reply: FitReply;
    try {
      const out = fit({ labels: req.labels, timestamps: req.timestamps, values: req.values }, req.algorithm, req.window);
      reply = 'reason' in out
        ? { type: 'declined', id: req.id, reason: out.reason }
        : {
            type: 'fit',
            id: req.id,
            timestamps: Float64Array.from(out.timestamps),
            values: Float64Array.from(out.values),
            ...(out.calibration ? { calibration: out.calibration } : {}),
            ...(out.note !== undefined ? { note: out.note } : {}),
          };
    } catch (e) {
      reply = { type: 'error', id: req.id, message: e instanceof Error ? e.message : String(e) };
    }
    port.postMessage(reply, reply.type === 'fit' ? [reply.timestamps.buffer, reply.values.buffer] : []);
  });
  port.postMessage({ type: 'ready' } satisfies ReadyMessage);
}
