// Entry point of a forecast worker thread (started by forecast-pool.ts): fits series with the prediction
// core's `fitSeries`, the same function CoreForecaster runs in the calling thread.
import { parentPort } from 'node:worker_threads';
import { fitSeries } from '../controller/core-forecaster.ts';
import { serveFits } from './fit-protocol.ts';

if (!parentPort) throw new Error('fit-worker.ts runs as a worker thread of the forecast pool');
serveFits(parentPort, fitSeries);
