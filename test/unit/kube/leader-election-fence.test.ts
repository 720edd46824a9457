// What a deposed leader can still send (nothing), the Lease's own path past the rate limit, and the
// timing flags' check in `serve`. Against a loopback HTTP server standing in for kube-apiserver.
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiClient } from '../../../src/kube/api-client.ts';
import { termFencedClient } from '../../../src/kube/leader-election.ts';
import { parseFlags } from '../../../src/config/flags.ts';
import { CONTROLLER_FLAGS, leaderElectionTiming } from '../../../src/cli/serve-controllers.ts';
import { runCli } from '../../../src/cli/run-cli.ts';
import { captureIO } from '../../helpers/capture-io.ts';

/** Answers `{}` at once, except paths under /hang, which it holds until the client goes away. */
async function fakeApi() {
  const seen: { method: string; path: string }[] = [];
  const closedEarly: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '' });
    req.resume();
    if (req.url?.startsWith('/hang')) {
      res.on('close', () => closedEarly.push(req.url ?? ''));
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return {
    kc,
    seen,
    closedEarly,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Polls `cond` until true or the deadline passes. */
async function until(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('leader election: the term fences the leader\'s requests', () => {
  let api: Awaited<ReturnType<typeof fakeApi>>;
  beforeEach(async () => (api = await fakeApi()));
  afterEach(() => api.close());

  it('passes requests while the term lasts, refuses them unsent after it ends', async () => {
    let term = new AbortController();
    const client = termFencedClient(new KubeApiClient(api.kc), () => term.signal);
    await client.patch('/api/v1/namespaces/n/configmaps/c', { data: { a: '1' } });
    expect(api.seen).to.deep.equal([{ method: 'PATCH', path: '/api/v1/namespaces/n/configmaps/c' }]);
    term.abort(new Error('leadership ended'));
    for (const send of [() => client.patch('/p', {}), () => client.create('/p', {}), () => client.replace('/p', {}), () => client.delete('/p'), () => client.get('/p')]) {
      let err: unknown;
      await send().catch((e: unknown) => (err = e));
      expect((err as Error | undefined)?.message).to.equal('leadership ended');
    }
    expect(api.seen).to.have.length(1); // nothing reached the server
    term = new AbortController(); // the next term: allowed again
    await client.get('/p');
    expect(api.seen).to.have.length(2);
  });

  it('aborts a request in flight when the term ends (the server sees the connection go)', async () => {
    const term = new AbortController();
    const client = termFencedClient(new KubeApiClient(api.kc), () => term.signal);
    let err: unknown;
    const pending = client.replace('/hang/a', { x: 1 }).catch((e: unknown) => (err = e));
    await until('request reached the server', () => api.seen.length === 1);
    term.abort(new Error('leadership ended'));
    await pending;
    expect((err as Error | undefined)?.message).to.match(/abort|leadership ended/i);
    await until('server saw the client go', () => api.closedEarly.includes('/hang/a'));
  });

  it('a write queued behind the rate limit is dropped when the term ends, never sent', async () => {
    const term = new AbortController();
    const base = new KubeApiClient(api.kc, 'test', { qps: 0.01, burst: 1 }); // after the first, one per 100 s
    const client = termFencedClient(base, () => term.signal);
    await client.get('/first');
    let err: unknown;
    const queued = client.patch('/queued', {}).catch((e: unknown) => (err = e));
    term.abort(new Error('leadership ended'));
    await queued;
    expect((err as Error | undefined)?.message).to.equal('leadership ended');
    expect(api.seen.map((s) => s.path)).to.deep.equal(['/first']);
  });

  it('honours the caller\'s own signal too, and shares the base client\'s request counts', async () => {
    const term = new AbortController();
    const base = new KubeApiClient(api.kc);
    const client = termFencedClient(base, () => term.signal);
    const own = new AbortController();
    let err: unknown;
    const pending = client.request('PUT', '/hang/b', { body: {}, signal: own.signal }).catch((e: unknown) => (err = e));
    await until('request reached the server', () => api.seen.length === 1);
    own.abort(new Error('caller gave up'));
    await pending;
    expect((err as Error | undefined)?.message).to.match(/abort|caller gave up/i);
    expect(term.signal.aborted).to.equal(false);
    expect(base.requestCounts.get('PUT')).to.equal(1);
  });
});

describe('leader election: the Lease\'s client path', () => {
  it('withoutLimiter() answers while the shared client is throttled', async () => {
    const api = await fakeApi();
    try {
      const shared = new KubeApiClient(api.kc, 'test', { qps: 0.01, burst: 1 });
      await shared.get('/a'); // the burst is spent: the next shared request waits 100 s
      const backlog = new AbortController();
      const throttled = shared.request('GET', '/b', { signal: backlog.signal }).catch(() => 'aborted');
      const lease = shared.withoutLimiter();
      await lease.get('/lease');
      expect(api.seen.map((s) => s.path)).to.deep.equal(['/a', '/lease']);
      expect(lease.throttledMs).to.equal(0);
      expect(shared.throttledMs).to.be.greaterThan(90_000);
      backlog.abort();
      expect(await throttled).to.equal('aborted');
    } finally {
      await api.close();
    }
  });
});

describe('serve: leader-election timing flags', () => {
  it('the defaults and a consistent short set are accepted', () => {
    expect(leaderElectionTiming(parseFlags(CONTROLLER_FLAGS, []))).to.deep.equal({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 });
    const short = parseFlags(CONTROLLER_FLAGS, ['--leader-election-lease-duration=3s', '--leader-election-renew-deadline=2s', '--leader-election-retry-period=500ms']);
    expect(leaderElectionTiming(short)).to.deep.equal({ leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 });
  });

  const bad: { args: string[]; message: string }[] = [
    { args: ['--leader-election-lease-duration=10s'], message: '--leader-election-lease-duration (10s) must be greater than --leader-election-renew-deadline (10s)' },
    { args: ['--leader-election-retry-period=9s'], message: '--leader-election-renew-deadline (10s) must be greater than --leader-election-retry-period (9s) × 1.2' },
    { args: ['--leader-election-retry-period=0s'], message: '--leader-election-retry-period (0s) must be greater than zero' },
  ];
  for (const b of bad) {
    it(`${b.args.join(' ')}: one line naming the flags, exit code 2`, async () => {
      // A kubeconfig whose server is never contacted: the check comes before anything starts.
      const dir = await mkdtemp(join(tmpdir(), 'leader-flags-'));
      const kubeconfig = join(dir, 'kubeconfig');
      await writeFile(
        kubeconfig,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
          users: [{ name: 'u', user: { token: 't' } }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'x',
        }),
      );
      const io = captureIO();
      const code = await runCli(['serve', `--kubeconfig=${kubeconfig}`, '--adapter=false', '--metrics-port=0', ...b.args], io);
      expect(code).to.equal(2);
      expect(io.err().trim().split('\n')).to.deep.equal([`ehpa-adapter serve: ${b.message}`]);
    });
  }
});
