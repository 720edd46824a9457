// End-to-end: a connection flood on the metrics port does not stop the aggregator. An attacker who can
// reach serve's port (any pod, in most clusters) keeps 1,100 sockets open and reopens each one the
// moment it is closed: half bare TCP that never say hello, half TLS handshakes without a client
// certificate. kube-apiserver's aggregator, whose connections carry the front-proxy certificate, must be
// answered throughout, and again after kube-apiserver itself restarts under the flood and dials anew.
// serve runs with its defaults (--max-connections 1024, --max-untrusted-connections 128). The flood runs in
// a process of its own (flood-sockets.mjs), so its handshakes never delay the reads that stand in for the
// aggregator's HPA traffic.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createDeployment, createNamespace, waitFor, type AdapterProcess, type Cluster } from './harness/index.ts';
import { useCluster } from './helpers.ts';
import { cronSelector, cronWindowNow, ehpaObject, ehpaPath, externalItems, installForServe, post, startServe } from './scenario-helpers.ts';

const NS = 'flooded';
const SOCKETS = 1100;
/** New flood connections per second at most: a busy attacker, not one that only burns its own CPU. */
const REOPEN_PER_S = 300;

/** Starts flood-sockets.mjs against the port; its latest counts, and a stop that ends it. */
function startFlood(port: number, count: number) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('flood-sockets.mjs', import.meta.url)), String(port), String(count), String(REOPEN_PER_S)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const counts = { opened: 0, open: 0 };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const m = /opened (\d+) open (\d+)\s*$/.exec(chunk.trim());
    if (m) Object.assign(counts, { opened: Number(m[1]), open: Number(m[2]) });
  });
  return {
    get open() {
      return counts.open;
    },
    get opened() {
      return counts.opened;
    },
    stop() {
      child.stdin.end();
      child.kill();
    },
  };
}

/** Reads `path` through the aggregator at `perSecond` until stopped; every answer's status and latency. */
function startReader(c: Cluster, path: string, perSecond: number) {
  const answers: { atMs: number; status: number; ms: number }[] = [];
  let stopped = false;
  const inflight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    if (stopped) return;
    const t = performance.now();
    const p = c.admin
      .get(path)
      .then(
        (r) => void answers.push({ atMs: t, status: r.status, ms: performance.now() - t }),
        () => void answers.push({ atMs: t, status: 0, ms: performance.now() - t }),
      )
      .finally(() => inflight.delete(p));
    inflight.add(p);
  }, 1000 / perSecond);
  return {
    answers,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.all(inflight);
      return answers;
    },
  };
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * 0.99) - 1)] ?? NaN;

async function counter(serve: AdapterProcess, name: string): Promise<number> {
  const text = await (await fetch(`${serve.metricsUrl}/metrics`)).text();
  let sum = 0;
  for (const [, v] of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(v);
  return sum;
}

describe('e2e: a 1,100-socket flood on the metrics port does not stop the aggregator', function () {
  this.timeout(600_000);
  const env = useCluster({ prometheus: false });
  let serve: AdapterProcess;
  const cronPath = `/apis/external.metrics.k8s.io/v1beta1/namespaces/${NS}/crane_autoscaling_cron?labelSelector=${cronSelector(NS, 'web')}`;

  before(async function () {
    this.timeout(300_000);
    const c = env.cluster;
    await installForServe(c);
    await createNamespace(c, NS);
    await createDeployment(c, NS, 'web', { replicas: 1 });
    serve = await startServe(c, 'serve-flood');
    await post(c, ehpaPath(NS), ehpaObject(NS, 'web', 'web', { minReplicas: 1, maxReplicas: 4, crons: [cronWindowNow('all-suite', 30, 3).cron] }));
    await waitFor('the cron metric through the aggregator', async () => {
      const r = await c.admin.get(cronPath);
      return r.status === 200 && externalItems(r.json)[0]?.value === '3';
    }, { timeoutMs: 60_000, intervalMs: 500 });
  });

  after(async () => {
    await serve?.stop();
  });

  it('answers the aggregator throughout the flood and after kube-apiserver restarts under it', async () => {
    const c = env.cluster;
    const base = startReader(c, cronPath, 20);
    await new Promise((r) => setTimeout(r, 5000));
    const before = await base.stop();
    expect(before.every((a) => a.status === 200), 'every read before the flood is 200').to.equal(true);

    const evictedBefore = await counter(serve, 'ehpa_adapter_metrics_api_evicted_connections_total');
    const flood = startFlood(c.adapterPort, SOCKETS);
    try {
      await waitFor(`${SOCKETS} flood sockets opened`, async () => flood.opened >= SOCKETS, { timeoutMs: 60_000, intervalMs: 200 });
      // The flood at full strength for 15 s, the aggregator reading all along.
      const during = startReader(c, cronPath, 20);
      await new Promise((r) => setTimeout(r, 15_000));
      const flooded = await during.stop();
      const evicted = (await counter(serve, 'ehpa_adapter_metrics_api_evicted_connections_total')) - evictedBefore;
      const failed = flooded.filter((a) => a.status !== 200);
      console.log(
        `      before: ${before.length} reads, p99 ${p99(before.map((a) => a.ms)).toFixed(1)} ms; flood: ${flood.opened} sockets opened, ${evicted} evicted by serve; ` +
          `during: ${flooded.length} reads, ${failed.length} not 200, p99 ${p99(flooded.map((a) => a.ms)).toFixed(1)} ms`,
      );
      expect(evicted, 'serve shed flood sockets').to.be.above(0);
      expect(failed.map((a) => a.status), 'reads during the flood that were not 200').to.deep.equal([]);

      // kube-apiserver restarts: its aggregator dials serve anew while the flood holds every socket it can.
      const after = startReader(c, cronPath, 20);
      const restartAt = performance.now();
      await c.restartApiserver();
      const upAt = performance.now();
      await c.waitMetricsApisAvailable(120_000);
      const availableAt = performance.now();
      await new Promise((r) => setTimeout(r, 15_000));
      const reads = await after.stop();
      // Reads sent while kube-apiserver was down fail at the socket (status 0); what counts is what the
      // restarted aggregator answers.
      const served = reads.filter((a) => a.status !== 0 && a.atMs >= upAt);
      const afterAvailable = served.filter((a) => a.atMs >= availableAt);
      const unavailable = served.filter((a) => a.status === 503).length;
      const firstOk = served.find((a) => a.status === 200);
      console.log(
        `      restart: kube-apiserver back after ${((upAt - restartAt) / 1000).toFixed(1)} s, APIServices Available ${((availableAt - upAt) / 1000).toFixed(1)} s later; ` +
          `first 200 ${firstOk ? `${((firstOk.atMs - upAt) / 1000).toFixed(1)} s after it was back` : 'never'}; ${served.length} answered reads, ${unavailable} × 503, ` +
          `after Available: ${afterAvailable.length} reads, ${afterAvailable.filter((a) => a.status !== 200).length} not 200, p99 ${p99(afterAvailable.map((a) => a.ms)).toFixed(1)} ms; flood sockets open ${flood.open}`,
      );
      // 20 a second for 15 s, sent from an event loop the flood no longer shares.
      expect(afterAvailable.length, 'reads after the APIServices were Available').to.be.above(150);
      expect(afterAvailable.filter((a) => a.status !== 200).map((a) => a.status), 'reads after Available that were not 200').to.deep.equal([]);
      expect(serve.running, 'serve never exited').to.equal(true);
    } finally {
      flood.stop();
    }
  });
});
