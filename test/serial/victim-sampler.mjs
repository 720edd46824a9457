// The victim HPA's metric reads for test/serial/hostile-tenant.test.ts, run in a worker thread of their own:
// the HPA controller is a process of its own, so its requests must not wait on the test's event loop, which
// meanwhile creates the attacker's objects and parses their 130 KB statuses while polling them. Plain
// JavaScript so the worker needs no loader. workerData: { server, ca, cert, key, paths, headers?, cpu? }: `ca`
// null trusts any serving certificate (straight to serve, whose certificate is self-signed), `headers` go
// with every request (the front-proxy's X-Remote-User/X-Remote-Group, straight to serve), `cpu` pins this
// thread alone to that CPU (taskset), so a test that gives the control plane its own core can keep the
// client measuring serve off it.
// Message in: { until: 'stop', perSecond: R, tally?: boolean }: until a 'stop' message, R requests a second on a fixed
// schedule, the paths in turn, each sent when due whether or not earlier ones have answered, as independent
// HPA controllers would. A request is timed from when it was due, so a stall counts against every request
// it delays, not only the one caught in it (a closed loop, one request after another, would record a
// 400 ms stall once). Messages out: { latencies: number[] } (ms per request, in order) or { error: string }.
//
// The requests go over one HTTP/2 connection, as kube-controller-manager's client-go sends them (its
// transport offers h2 by ALPN and multiplexes every request in flight over one connection). Until
// 2026-11-27 this sampler spoke HTTP/1.1 with up to 16 sockets, a client the HPA controller is not: when
// answers slowed, it opened new TLS connections to kube-apiserver, each a client-certificate verification
// there, in the very second that was being measured.
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { connect } from 'node:http2';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const { server, ca, cert, key, paths, headers = {}, cpu } = workerData;
// /proc/thread-self names this thread's task id, which taskset takes like a process id.
if (cpu !== undefined) execFileSync('taskset', ['-p', '-c', String(cpu), readlinkSync('/proc/thread-self').split('/').pop()], { stdio: 'ignore' });
let session;
/** The one HTTP/2 session, opened on first use and again if kube-apiserver closed it. */
function h2() {
  if (!session || session.closed || session.destroyed) {
    session = connect(server, { ...(ca ? { ca: readFileSync(ca) } : { rejectUnauthorized: false }), cert: readFileSync(cert), key: readFileSync(key) });
    session.on('error', () => {}); // each stream reports its own failure
  }
  return session;
}
let stopping = false;

/** One GET; resolves with its latency from `t0`, rejects unless the answer is 200. */
function get(path, t0) {
  return new Promise((resolve, reject) => {
    const req = h2().request({ ...headers, ':path': path, accept: 'application/json' });
    let status = 0;
    const chunks = [];
    req.setTimeout(30_000, () => req.close(8 /* NGHTTP2_CANCEL */));
    req.on('response', (headers) => (status = Number(headers[':status'])));
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const ms = performance.now() - t0;
      if (status === 200) resolve(ms);
      else reject(new Error(`${path}: ${status || 'no answer (timed out or reset)'} ${Buffer.concat(chunks).toString('utf8').slice(0, 500)}`));
    });
    req.on('error', (e) => reject(new Error(`${path}: ${e.message}`)));
    req.end();
  });
}

/**
 * Open loop at `perSecond` until stopped: the schedule never waits for answers. With `tally`, an answer
 * other than 200 is counted by its code (0: no answer) instead of failing the run.
 */
async function measureAtRate(perSecond, tally) {
  const pending = [];
  const codes = {};
  const interval = 1000 / perSecond;
  const start = performance.now();
  for (let i = 0; !stopping; i++) {
    const due = start + i * interval;
    const ahead = due - performance.now();
    if (ahead > 0) await new Promise((r) => setTimeout(r, ahead));
    const one = get(paths[i % paths.length], due);
    pending.push(
      tally
        ? one.then(
            (ms) => ((codes[200] = (codes[200] ?? 0) + 1), ms),
            (e) => {
              const code = /: (\d{3}) /.exec(e.message)?.[1] ?? '0';
              codes[code] = (codes[code] ?? 0) + 1;
              return undefined;
            },
          )
        : one,
    );
  }
  const latencies = (await Promise.all(pending)).filter((ms) => ms !== undefined);
  return { latencies, codes };
}

parentPort.on('message', (m) => {
  if (m === 'stop') {
    stopping = true;
    return;
  }
  stopping = false;
  measureAtRate(m.perSecond, m.tally === true).then(
    ({ latencies, codes }) => parentPort.postMessage({ latencies, codes }),
    (e) => parentPort.postMessage({ error: e.message }),
  );
});
