// Entry point of a forecast worker thread (started by forecast-pool.ts): fits series with the prediction
// core's `fitSeries`, the same function CoreForecaster runs in the calling thread.
import { parentPort } from 'node:worker_threads';
import { fitSeries } from '../controller/core-forecaster.ts';
import { lowerThreadPriority } from './thread-priority.ts';
import { serveFits } from './fit-protocol.ts';

if (!parentPort) throw new Error('fit-worker.ts runs as a worker thread of the forecast pool');
// A fit may use a whole core for seconds; the metrics APIs (main thread) and the kube-apiserver they are
// proxied through must win the CPU whenever they want it.
lowerThreadPriority();
serveFits(parentPort, fitSeries);
