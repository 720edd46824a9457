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
import { LIST_PAGE_SIZE, SharedInformer, listInPages } from '../../../src/kube/informers.ts';

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
function apiServer(pods: Pod[], o: { failContinue?: string; lastPageRv?: string; failWatch?: (attempt: number) => boolean } = {}) {
  const requests: URL[] = [];
  const watches: ServerResponse[] = [];
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
    watchTimes,
    server,
    async listen(): Promise<string> {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close(): Promise<void> {
      for (const w of watches) w.destroy();
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
    const inf = new SharedInformer<Pod & { kind?: string; apiVersion?: string }>({ apiVersion: 'v1', plural: 'pods' }, client, log, { pageSize: 2 });
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

  it('a watch refused again and again is retried with a growing delay, which starts over once a watch delivers an event', async () => {
    // Watches 0-3 are refused (429), 4 stays open until the test ends it, 5 is refused, 6 stays open.
    const api = apiServer(PODS, { failWatch: (n) => n <= 3 || n === 5 });
    const client = clientFor(await api.listen());
    const base = 50;
    const inf = new SharedInformer<Pod>({ apiVersion: 'v1', plural: 'pods' }, client, log, { retryBaseMs: base });
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
