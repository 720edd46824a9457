// Leadership terms cannot overlap, on the real kube-apiserver: two electors in this process, each with its
// own client; replica A talks to the API through a loopback TCP proxy that can delay every byte. A leads
// and writes (ConfigMaps, through termFencedClient as the controllers do); then A's proxy delays
// everything by more than leaseDuration, so A can neither renew nor finish its writes in time, and B takes
// the Lease. Afterwards no ConfigMap written by A may have been committed after B's acquisition.
//
// The proxy models a delay that notices the client leaving (a queue in front of the API, like kube-apiserver's
// priority-and-fairness queues or a client-side backlog): when A closes a connection, bytes not yet forwarded
// are dropped. Bytes already delivered before A's deadline are not the elector's to recall; their bound is
// leaseDuration - renewDeadline (as with client-go).
import { expect } from 'chai';
import net from 'node:net';
import pino from 'pino';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiClient } from '../../src/kube/api-client.ts';
import { LeaderElector, kubeLeaseStore, termFencedClient, type Lease, type LeaseStore } from '../../src/kube/leader-election.ts';
import { waitFor } from './harness/index.ts';
import { useCluster } from './helpers.ts';

const NS = 'leader-overlap';
const LEASE = 'overlap-test';
const TIMING = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };
/** More than leaseDuration: while it lasts, nothing A sends arrives before B may take over. */
const DELAY_MS = 6000;

interface DelayingProxy {
  url: string;
  setDelay(ms: number): void;
  /** Chunks waiting for their delay to pass (forwarded or, if their connection closed, dropped). */
  pending(): number;
  close(): Promise<void>;
}

/** A TCP proxy on loopback to `target` that holds every chunk, in both directions, for the current delay. */
async function delayingProxy(target: URL): Promise<DelayingProxy> {
  let delayMs = 0;
  let pending = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) sockets.add(s);
    const relay = (from: net.Socket, to: net.Socket) => {
      let lastAt = 0; // keep order: a chunk never overtakes the one before it
      from.on('data', (chunk: Buffer) => {
        const at = Math.max(Date.now() + delayMs, lastAt);
        lastAt = at;
        pending++;
        setTimeout(() => {
          pending--;
          if (!to.destroyed) to.write(chunk);
        }, at - Date.now());
      });
    };
    relay(client, upstream);
    relay(upstream, client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) {
      s.on('close', close);
      s.on('error', close);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    setDelay: (ms) => (delayMs = ms),
    pending: () => pending,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** `kc` with its current cluster's server replaced (same credentials and CA). */
function viaServer(kc: KubeConfig, server: string): KubeConfig {
  const out = new KubeConfig();
  out.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.name === kc.getCurrentCluster()?.name ? { ...c, server } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.getCurrentContext(),
  });
  return out;
}

describe('e2e: leadership terms cannot overlap', function () {
  this.timeout(120_000);
  const env = useCluster({ controllerManager: false, kubelet: false, prometheus: false });

  it('a leader whose API calls are delayed never writes after another replica has taken the Lease', async () => {
    const cluster = env.cluster;
    const log = pino({ level: 'silent' });
    const created = await cluster.admin.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } });
    expect(created.status, created.body).to.equal(201);
    const proxy = await delayingProxy(new URL(cluster.apiserverUrl));
    const stops: (() => Promise<void>)[] = [];
    try {
      const t0 = Date.now();
      // Replica A: every request (Lease and writes) through the proxy.
      const clientA = new KubeApiClient(viaServer(cluster.kc, proxy.url), 'replica-a');
      let termA: AbortSignal = AbortSignal.abort();
      const writerA = termFencedClient(clientA, () => termA); // as serve-controllers builds the controllers' client
      const attempts: { seq: number; atMs: number }[] = [];
      const acked: number[] = [];
      let termsA = 0;
      let termAEndedMs: number | undefined;
      const electorA = new LeaderElector({ client: clientA, namespace: NS, name: LEASE, identity: 'replica-a', log, ...TIMING });
      const shutdownA = new AbortController();
      // A's "controllers": a write every 50 ms, several in flight at once, as reconcile workers would.
      const doneA = electorA.run(shutdownA.signal, async (term) => {
        termA = term;
        termsA++;
        term.addEventListener('abort', () => (termAEndedMs = Date.now()), { once: true });
        const inFlight = new Set<Promise<void>>();
        let seq = 0;
        while (!term.aborted) {
          if (inFlight.size < 16) {
            const n = ++seq;
            attempts.push({ seq: n, atMs: Date.now() });
            const p = writerA
              .create(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `a-${termsA}-${n}` }, data: { writer: 'replica-a' } })
              .then(() => void acked.push(n))
              .catch(() => undefined)
              .finally(() => inFlight.delete(p));
            inFlight.add(p);
          }
          await new Promise((r) => setTimeout(r, 50));
        }
        await Promise.all(inFlight);
      });
      stops.push(async () => {
        shutdownA.abort();
        await doneA;
      });
      await waitFor('A leads and its writes land', async () => electorA.isLeader() && acked.length >= 3, { timeoutMs: 20_000, intervalMs: 50 });

      // Replica B: direct. Its Lease store notes the resourceVersion of the write that made B the holder.
      const clientB = new KubeApiClient(cluster.kc, 'replica-b');
      let takenRv: string | undefined;
      let takenMs: number | undefined;
      const base = kubeLeaseStore(clientB.withoutLimiter(), NS, LEASE);
      const noteAcquisition = (l: Lease | undefined) => {
        if (l && l.spec.holderIdentity === 'replica-b' && takenRv === undefined) {
          takenRv = l.metadata.resourceVersion;
          takenMs = Date.now();
        }
        return l;
      };
      let readsB = 0;
      const storeB: LeaseStore = {
        get: (signal) => {
          readsB++;
          return base.get(signal);
        },
        create: async (l, signal) => noteAcquisition(await base.create(l, signal)),
        replace: async (l, signal) => noteAcquisition(await base.replace(l, signal)),
      };
      const electorB = new LeaderElector({ store: storeB, namespace: NS, name: LEASE, identity: 'replica-b', log, ...TIMING });
      const shutdownB = new AbortController();
      const doneB = electorB.run(shutdownB.signal, (term) => new Promise<void>((r) => term.addEventListener('abort', () => r())));
      stops.push(async () => {
        shutdownB.abort();
        await doneB;
      });
      await waitFor('B campaigns', async () => readsB >= 2, { intervalMs: 50 });
      expect(electorB.isLeader(), 'B does not take a Lease A renews').to.equal(false);

      // A's API becomes slow: nothing it sends from now on arrives before B may take over.
      const delayedFromMs = Date.now();
      proxy.setDelay(DELAY_MS);
      await waitFor('B takes the Lease', async () => electorB.isLeader(), { timeoutMs: 20_000, intervalMs: 50 });
      // A steps down on its own (its term would end only when a renewal returned, before the fix), then
      // stops campaigning, and the proxy forwards or drops what it still holds.
      await waitFor("A's term ends", async () => termAEndedMs !== undefined, { timeoutMs: 30_000, intervalMs: 50 });
      shutdownA.abort();
      await doneA;
      await waitFor('the proxy holds nothing more of A', async () => proxy.pending() === 0, { timeoutMs: 30_000, intervalMs: 100 });

      const list = await cluster.admin.getJson<{ items: { metadata: { name: string; resourceVersion: string; creationTimestamp: string } }[] }>(`/api/v1/namespaces/${NS}/configmaps`);
      const writesA = list.items.filter((c) => c.metadata.name.startsWith('a-'));
      // resourceVersions are opaque to clients in general; here every object lives in the harness's one etcd,
      // where a new object's resourceVersion is etcd's global revision at its commit: their order is commit order.
      const afterTakeover = writesA.filter((c) => BigInt(c.metadata.resourceVersion) > BigInt(takenRv ?? '0'));
      const attemptedWhileDelayed = attempts.filter((a) => a.atMs >= delayedFromMs).length;
      const summary = {
        elapsedMs: Date.now() - t0,
        aEndedAfterDelayMs: termAEndedMs === undefined ? undefined : termAEndedMs - delayedFromMs,
        bTookOverAfterDelayMs: takenMs === undefined ? undefined : takenMs - delayedFromMs,
        takenRv,
        writesLanded: writesA.length,
        attemptedWhileDelayed,
        afterTakeover: afterTakeover.map((c) => `${c.metadata.name}@${c.metadata.resourceVersion}`),
      };
      console.log(`      ${JSON.stringify(summary)}`);
      expect(takenRv, 'B acquired the Lease').to.be.a('string');
      expect(writesA.length, 'A wrote while it led').to.be.greaterThanOrEqual(3);
      // Not vacuous: A was still trying to write once its API became slow.
      expect(attemptedWhileDelayed, 'writes A attempted once delayed').to.be.greaterThan(0);
      expect(afterTakeover, 'writes by A committed after B took the Lease').to.deep.equal([]);
      // And A's term ended before B's: on the one clock of this process.
      expect(termAEndedMs).to.be.a('number');
      expect(termAEndedMs as number).to.be.lessThan(takenMs as number);
    } finally {
      for (const stop of stops.reverse()) await stop();
      await proxy.close();
    }
  });
});
