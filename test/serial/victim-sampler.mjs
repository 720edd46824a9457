// The victim HPA's metric reads for test/serial/hostile-tenant.test.ts, run in a worker thread of their own:
// the HPA controller is a process of its own, so its requests must not wait on the test's event loop, which
// meanwhile creates the attacker's objects and parses their 130 KB statuses while polling them. Plain
// JavaScript so the worker needs no loader. workerData: { server, ca, cert, key, paths }. Messages in:
// { rounds: N } (measure N rounds, then report) or { until: 'stop' } (measure until a 'stop' message).
// Messages out: { latencies: number[] } (ms per request, in order) or { error: string }.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const { server, ca, cert, key, paths } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: readFileSync(ca), cert: readFileSync(cert), key: readFileSync(key) });
let stopping = false;

/** One GET; resolves with its latency, rejects unless the answer is 200. */
function get(path) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(new URL(path, server), { agent, headers: { accept: 'application/json' }, timeout: 30_000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = performance.now() - t0;
        if (res.statusCode === 200) resolve(ms);
        else reject(new Error(`${path}: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 500)}`));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${path}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

async function measure(rounds) {
  const latencies = [];
  for (let i = 0; i < rounds && !(rounds === Infinity && stopping); i++) {
    for (const p of paths) latencies.push(await get(p));
  }
  return latencies;
}

parentPort.on('message', (m) => {
  if (m === 'stop') {
    stopping = true;
    return;
  }
  stopping = false;
  measure(m.rounds ?? Infinity).then(
    (latencies) => parentPort.postMessage({ latencies }),
    (e) => parentPort.postMessage({ error: e.message }),
  );
});
