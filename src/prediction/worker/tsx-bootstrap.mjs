// Worker entry when the forecast pool runs from the TypeScript sources (tests, `npm start`): registers
// tsx's loader in this worker thread, then loads the real entry (workerData.entry, a .ts URL). On Node 20
// the `--import tsx` a worker inherits does not reach the worker's entry module, and tsx is resolved from
// this file, not from the working directory. Plain JavaScript on purpose: it runs before any loader.
// The compiled build (dist/) never uses it: there the pool starts fit-worker.js directly.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
