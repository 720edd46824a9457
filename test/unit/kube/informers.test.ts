// The shared informer against a local HTTP stand-in for kube-apiserver (node:http): lists come in pages
// of `limit` items following `continue`, an expired continue token (410 Gone) restarts the list from its
// first page, the watch resumes at the last page’s resourceVersion (and later at the last bookmark's, without a relist), and what is cached (from the list and
// from watch events) has gone through the kind's transform.
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { KubeApiClient, KubeApiError } from '../../../src/kube/api-client.ts';
import { LIST_PAGE_SIZE, SharedInformer, WatchListUnsupportedError, listByWatch, listInPages } from '../../../src/kube/informers.ts';

interface Pod {
  metadata: { name: string; namespace: string; resourceVersion: string; managedFields?: unknown[]; annotations?: Record<string, string> };
  spec?: unknown;
  status?: { phase?: string };
}

const pod = (name: string, rv: string): Pod => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv, managedFields: [{ manager: 'kubelet', fieldsV1: { 'f:status': {} } }], annotations: { big: 'x'.repeat(100) } },
  spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'img', resources: { requests: { cpu: '100m' } } }] },
  status: { phase: 'Running' },
});

/** Serves /api/v1/pods in pages; the first request for `failContinue` answers 410 once; watches stay open. */
function apiServer(
  pods: Pod[],
  o: {
    failContinue?: string;
    lastPageRv?: string;
    failWatch?: (attempt: number) => boolean;
    /** How a watch with sendInitialEvents=true is answered: streamed (the pods as ADDED events, then the end
     *  bookmark at `streamRv`), refused with 422 (the WatchList gate off), or, when absent, as a plain watch
     *  that ignores the parameter. */
    watchList?: 'stream' | 'refuse';
    streamRv?: () => string;
  } = {},
) {
  const requests: URL[] = [];
  const watches: ServerResponse[] = [];
  /** Streaming lists, kept open after their end bookmark as kube-apiserver keeps them (the client closes). */
  const streams: ServerResponse[] = [];
  /** When each watch request arrived (performance.now()), answered or not. */
  const watchTimes: number[] = [];
  let failed = false;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url);
    if (url.pathname !== '/api/v1/pods') {
      res.writeHead(404).end();
      return;
    }
    if (url.searchParams.get('watch') === 'true' && url.searchParams.get('sendInitialEvents') === 'true' && o.watchList) {
      if (o.watchList === 'refuse') {
        res.writeHead(422, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, message: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled' }));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      for (const p of pods) res.write(JSON.stringify({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'Pod', ...p } }) + '\n');
      const end = { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: o.streamRv?.() ?? '200', annotations: { 'k8s.io/initial-events-end': 'true' } } };
      res.write(JSON.stringify({ type: 'BOOKMARK', object: end }) + '\n');
      streams.push(res);
      return;
    }
    if (url.searchParams.get('watch') === 'true') {
      watchTimes.push(performance.now());
      if (o.failWatch?.(watchTimes.length - 1)) {
        // What a kube-apiserver whose watch cache is still starting answers.
        res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1' });
        res.end(JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'storage is (re)initializing' }));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      watches.push(res);
      return;
    }
    const limit = Number(url.searchParams.get('limit') ?? pods.length);
    const cont = url.searchParams.get('continue');
    if (cont && cont === o.failContinue && !failed) {
      failed = true;
      res.writeHead(410, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410, message: 'The provided continue parameter is too old' }));
      return;
    }
    const start = cont ? Number(cont.replace('page-', '')) : 0;
    const items = pods.slice(start, start + limit);
    const next = start + limit < pods.length ? `page-${start + limit}` : undefined;
    // Pages of one list share a snapshot; the last page's resourceVersion is distinguishable here only
    // so the test can tell which one the watch starts from.
    const rv = next === undefined && o.lastPageRv ? o.lastPageRv : '100';
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: rv, ...(next ? { continue: next } : {}) }, items }));
  });
  return {
    requests,
    watches,
    streams,
    watchTimes,
    server,
    async listen(): Promise<string> {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close(): Promise<void> {
      for (const w of [...watches, ...streams]) w.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function clientFor(url: string): KubeApiClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // client-node refuses plain HTTP unless TLS verification is explicitly off.
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new KubeApiClient(kc, 'informer-test');
}

async function waitFor(what: string, cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const PODS = Array.from({ length: 5 }, (_, i) => pod(`p${i}`, String(90 + i)));
const log = pino({ level: 'silent' });

describe('paginated lists (listInPages)', () => {
  it('pages with limit=500 by default, following continue until the last page', async () => {
    const api = apiServer(Array.from({ length: 1203 }, (_, i) => pod(`p${i}`, '1')));
    const client = clientFor(await api.listen());
    try {
      const l = await listInPages((p, q) => client.get(p, q), '/api/v1/pods');
      expect(LIST_PAGE_SIZE).to.equal(500);
      expect(l.items).to.have.length(1203);
      expect(api.requests.map((u) => [u.searchParams.get('limit'), u.searchParams.get('continue')])).to.deep.equal([
        ['500', null],
        ['500', 'page-500'],
        ['500', 'page-1000'],
      ]);
    } finally {
      await api.close();
    }
  });

  it('an expired continue token (410) restarts the list from the first page; the result is whole and not doubled', async () => {
    const api = apiServer(PODS, { failContinue: 'page-2', lastPageRv: '105' });
    const client = clientFor(await api.listen());
    try {
      const l = await listInPages((p, q) => client.get(p, q), '/api/v1/pods', { pageSize: 2 });
      expect(l.items.map((i) => i.metadata?.name)).to.deep.equal(['p0', 'p1', 'p2', 'p3', 'p4']);
      expect(l.metadata?.resourceVersion).to.equal('105');
      expect(api.requests.map((u) => u.searchParams.get('continue'))).to.deep.equal([null, 'page-2', null, 'page-2', 'page-4']);
    } finally {
      await api.close();
    }
  });

  it('a 410 on the first page, or one expiry too many, is the caller’s error (the informer backs off and relists)', async () => {
    const gone = new KubeApiError(410, 'Expired', 'gone');
    let calls = 0;
    const firstPage410 = async () => {
      calls++;
      throw gone;
    };
    await listInPages(firstPage410, '/p').then(() => expect.fail('listed'), (e) => expect(e).to.equal(gone));
    expect(calls).to.equal(1);
    calls = 0;
    const alwaysExpires = async (_p: string, q: Record<string, unknown>) => {
      calls++;
      if (q['continue']) throw gone;
      return { metadata: { continue: 'c' }, items: [] };
    };
    await listInPages(alwaysExpires, '/p', { maxRestarts: 3 }).then(() => expect.fail('listed'), (e) => expect(e).to.equal(gone));
    expect(calls).to.equal(8); // 4 attempts of 2 pages
  });
});

describe('SharedInformer (local HTTP API server)', function () {
  this.timeout(10_000);

  it('syncs from paged lists, watches from the last page’s resourceVersion, and caches trimmed objects', async () => {
    const api = apiServer(PODS, { failContinue: 'page-2', lastPageRv: '105' });
    const client = clientFor(await api.listen());
    const inf = new SharedInformer<Pod & { kind?: string; apiVersion?: string }>({ apiVersion: 'v1', plural: 'pods' }, client, log, { pageSize: 2, watchList: false });
    const updates: string[] = [];
    inf.onUpdate((p) => updates.push(`${p.metadata.name}@${p.metadata.resourceVersion}`));
    try {
      inf.start();
      await inf.waitForSync();
      expect(inf.list().map((p) => p.metadata.name).sort()).to.deep.equal(['p0', 'p1', 'p2', 'p3', 'p4']);
      const p0 = inf.get('ns', 'p0')!;
      expect(p0.kind).to.equal('Pod');
      expect(p0.apiVersion).to.equal('v1');
      expect(p0.metadata).not.to.have.any.keys('managedFields', 'annotations');
      expect(p0.spec).to.deep.equal({ containers: [{ name: 'app', resources: { requests: { cpu: '100m' } } }] });

      await waitFor('the watch', () => api.watches.length === 1);
      const watch = api.requests.find((u) => u.searchParams.get('watch') === 'true')!;
      expect(watch.searchParams.get('resourceVersion')).to.equal('105');
      expect(watch.searchParams.has('limit')).to.equal(false);

      // A watch event passes the same transform before the cache and the handlers see it.
      const changed = pod('p1', '106');
      changed.status = { phase: 'Succeeded' };
      api.watches[0]!.write(JSON.stringify({ type: 'MODIFIED', object: changed }) + '\n');
      await waitFor('the update', () => updates.length === 1);
      expect(updates).to.deep.equal(['p1@106']);
      const p1 = inf.get('ns', 'p1')!;
      expect(p1.status).to.deep.equal({ phase: 'Succeeded' });
      expect(p1.metadata).not.to.have.any.keys('managedFields', 'annotations');

      // Bookmarks are asked for; one moves the resourceVersion on, and a watch that ends (the API server's
      // timeout, or its restart) resumes from it without listing again.
      expect(watch.searchParams.get('allowWatchBookmarks')).to.equal('true');
      api.watches[0]!.write(JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '250' } } }) + '\n');
      await new Promise((r) => setTimeout(r, 50));
      const lists = api.requests.filter((u) => u.searchParams.get('watch') !== 'true').length;
      api.watches[0]!.end();
      await waitFor('the resumed watch', () => api.watches.length === 2);
      const resumed = api.requests.filter((u) => u.searchParams.get('watch') === 'true')[1]!;
      expect(resumed.searchParams.get('resourceVersion')).to.equal('250');
      expect(api.requests.filter((u) => u.searchParams.get('watch') !== 'true').length, 'no list on resume').to.equal(lists);
      expect(inf.list()).to.have.length(5);
    } finally {
      await inf.stop();
      await api.close();
    }
  });

  it('an unsubscribed handler sees no further event; the other one does', async () => {
    const api = apiServer(PODS, { lastPageRv: '105' });
    const client = clientFor(await api.listen());
    const inf = new SharedInformer<Pod>({ apiVersion: 'v1', plural: 'pods' }, client, log, { pageSize: 2, watchList: false });
    const kept: string[] = [];
    const dropped: string[] = [];
    inf.onUpdate((p) => kept.push(p.metadata.resourceVersion ?? ''));
    const off = inf.onUpdate((p) => dropped.push(p.metadata.resourceVersion ?? ''));
    expect(inf.subscriptions()).to.equal(2);
    try {
      inf.start();
      await inf.waitForSync();
      await waitFor('the watch', () => api.watches.length === 1);
      api.watches[0]!.write(JSON.stringify({ type: 'MODIFIED', object: pod('p1', '106') }) + '\n');
      await waitFor('the first update', () => kept.length === 1);
      off();
      off(); // twice is harmless
      expect(inf.subscriptions()).to.equal(1);
      api.watches[0]!.write(JSON.stringify({ type: 'MODIFIED', object: pod('p1', '107') }) + '\n');
      await waitFor('the second update', () => kept.length === 2);
      expect(kept).to.deep.equal(['106', '107']);
      expect(dropped).to.deep.equal(['106']);
    } finally {
      await inf.stop();
      await api.close();
    }
  });

  it('a watch refused again and again is retried with a growing delay, which starts over once a watch delivers an event', async () => {
    // Watches 0-3 are refused (429), 4 stays open until the test ends it, 5 is refused, 6 stays open.
    const api = apiServer(PODS, { failWatch: (n) => n <= 3 || n === 5 });
    const client = clientFor(await api.listen());
    const base = 50;
    const inf = new SharedInformer<Pod>({ apiVersion: 'v1', plural: 'pods' }, client, log, { retryBaseMs: base, watchList: false });
    try {
      inf.start();
      await waitFor('the fifth watch', () => api.watches.length === 1);
      // Timers never fire early, so these lower bounds hold on a loaded machine: 2, 4, 8, 16 × base. A
      // backoff reset at every restart would have waited 2 × base each time.
      const gaps = api.watchTimes.slice(1, 5).map((t, i) => t - api.watchTimes[i]!);
      gaps.forEach((g, i) => expect(g, `gap ${i}`).to.be.at.least(base * 2 ** (i + 1) - 5));
      // The open watch delivers a bookmark, then ends (the API server's timeout): resumed at once, refused,
      // and retried after the first step again (2 × base), not after the fifth (32 × base = 1.6 s).
      api.watches[0]!.write(JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '300' } } }) + '\n');
      await new Promise((r) => setTimeout(r, 50));
      api.watches[0]!.end();
      await waitFor('the seventh watch', () => api.watches.length === 2);
      const retry = api.watchTimes[6]! - api.watchTimes[5]!;
      expect(retry).to.be.at.least(2 * base - 5);
      expect(retry, 'the delay started over').to.be.below(16 * base);
      expect(api.requests.filter((u) => u.searchParams.get('watch') !== 'true'), 'one list: refusals keep the resourceVersion').to.have.length(1);
    } finally {
      await inf.stop();
      await api.close();
    }
  });
});

describe('SharedInformer: streaming lists (sendInitialEvents, KEP-3157)', function () {
  this.timeout(10_000);
  const isWatch = (u: URL) => u.searchParams.get('watch') === 'true';
  const isStream = (u: URL) => isWatch(u) && u.searchParams.get('sendInitialEvents') === 'true';

  it('syncs from one streaming list and watches on from its end bookmark: no LIST request at all', async () => {
    const api = apiServer(PODS, { watchList: 'stream', streamRv: () => '200' });
    const client = clientFor(await api.listen());
    const inf = new SharedInformer<Pod & { kind?: string }>({ apiVersion: 'v1', plural: 'pods' }, client, log);
    try {
      inf.start();
      await inf.waitForSync();
      expect(inf.list().map((p) => p.metadata.name).sort()).to.deep.equal(['p0', 'p1', 'p2', 'p3', 'p4']);
      // Streamed objects pass the kind's transform like listed ones.
      expect(inf.get('ns', 'p0')!.metadata).not.to.have.any.keys('managedFields', 'annotations');
      expect(inf.get('ns', 'p0')!.kind).to.equal('Pod');
      const stream = api.requests.find(isStream)!;
      // What client-go's reflector sends for a watch-list (k8s.io/client-go v0.34 tools/cache/reflector.go).
      expect(stream.searchParams.get('resourceVersionMatch')).to.equal('NotOlderThan');
      expect(stream.searchParams.get('allowWatchBookmarks')).to.equal('true');
      expect(stream.searchParams.has('resourceVersion')).to.equal(false);
      await waitFor('the watch', () => api.watches.length === 1);
      const watch = api.requests.filter((u) => isWatch(u) && !isStream(u))[0]!;
      expect(watch.searchParams.get('resourceVersion')).to.equal('200');
      expect(api.requests.filter((u) => !isWatch(u)), 'no LIST').to.deep.equal([]);
      await waitFor('the streaming list closed by the client', () => api.streams[0]!.destroyed || api.streams[0]!.writableEnded || api.streams[0]!.socket === null || api.streams[0]!.socket.destroyed);
      expect(inf.syncs).to.deep.equal({ watchList: 1, pages: 0 });
    } finally {
      await inf.stop();
      await api.close();
    }
  });

  it('a 410 Gone (a restarted kube-apiserver) syncs again by streaming list, and objects gone meanwhile are deleted', async () => {
    const pods = [...PODS];
    let rv = 200;
    const api = apiServer(pods, { watchList: 'stream', streamRv: () => String(rv) });
    const client = clientFor(await api.listen());
    const inf = new SharedInformer<Pod>({ apiVersion: 'v1', plural: 'pods' }, client, log, { retryBaseMs: 10 });
    const deleted: string[] = [];
    inf.onDelete((p) => deleted.push(p.metadata.name));
    try {
      inf.start();
      await inf.waitForSync();
      await waitFor('the watch', () => api.watches.length === 1);
      // While the watch was down two pods went; the new watch cache no longer has the old resourceVersion.
      pods.splice(3, 2);
      rv = 400;
      api.watches[0]!.write(JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 200 (390)' } }) + '\n');
      api.watches[0]!.end();
      await waitFor('the watch after the second sync', () => api.watches.length === 2);
      expect(inf.list().map((p) => p.metadata.name).sort()).to.deep.equal(['p0', 'p1', 'p2']);
      expect(deleted.sort()).to.deep.equal(['p3', 'p4']);
      expect(api.requests.filter(isStream)).to.have.length(2);
      expect(api.requests.filter((u) => isWatch(u) && !isStream(u)).map((u) => u.searchParams.get('resourceVersion'))).to.deep.equal(['200', '400']);
      expect(api.requests.filter((u) => !isWatch(u)), 'no LIST').to.deep.equal([]);
      expect(inf.syncs).to.deep.equal({ watchList: 2, pages: 0 });
    } finally {
      await inf.stop();
      await api.close();
    }
  });

  it('a server that refuses streaming lists (422: its WatchList gate off) gets list pages, and is not asked again', async () => {
    const api = apiServer(PODS, { watchList: 'refuse' });
    const client = clientFor(await api.listen());
    const inf = new SharedInformer<Pod>({ apiVersion: 'v1', plural: 'pods' }, client, log, { retryBaseMs: 10, pageSize: 2 });
    try {
      inf.start();
      await inf.waitForSync();
      expect(inf.list()).to.have.length(5);
      await waitFor('the watch', () => api.watches.length === 1);
      api.watches[0]!.write(JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } }) + '\n');
      api.watches[0]!.end();
      await waitFor('the second watch', () => api.watches.length === 2);
      expect(api.requests.filter(isStream), 'asked once').to.have.length(1);
      expect(api.requests.filter((u) => !isWatch(u))).to.have.length(6); // two lists of three pages
      expect(inf.syncs).to.deep.equal({ watchList: 0, pages: 2 });
    } finally {
      await inf.stop();
      await api.close();
    }
  });

  it('listByWatch: a server that ignores sendInitialEvents (no end bookmark) is told apart by an idle deadline', async () => {
    const api = apiServer(PODS);
    const client = clientFor(await api.listen());
    try {
      const { Watch } = await import('@kubernetes/client-node');
      const t = performance.now();
      await listByWatch(new Watch(client.kubeConfig), '/api/v1/pods', { idleMs: 200 }).then(
        () => expect.fail('listed'),
        (e: unknown) => {
          expect(e).to.be.instanceOf(WatchListUnsupportedError);
          expect((e as Error).message).to.equal('/api/v1/pods: no initial-events-end bookmark after 200 ms without events');
        },
      );
      expect(performance.now() - t).to.be.at.least(195);
    } finally {
      await api.close();
    }
  });
});
