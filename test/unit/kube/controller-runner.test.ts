// ControllerRunner's per-namespace limit (--tsp-workers-per-namespace): one tenant's slow reconciles never
// occupy every worker, and its parked keys all run in the end. Reconciles here are promises the test
// resolves, so "at once" is exact, not a matter of timing.
import { expect } from 'chai';
import { Agent, createServer, get } from 'node:http';
import { pino } from 'pino';
import { ControllerRunner } from '../../../src/kube/controller-runner.ts';
import { WorkQueue } from '../../../src/kube/work-queue.ts';

const tick = () => new Promise((r) => setImmediate(r));

function runner(perNamespace: number | undefined, workers = 4) {
  const running = new Set<string>();
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  let peak = new Map<string, number>();
  const r = new ControllerRunner({
    name: 'test',
    workers,
    log: pino({ level: 'silent' }),
    ...(perNamespace !== undefined ? { perNamespace } : {}),
    reconcile: (key) =>
      new Promise<void>((resolve) => {
        running.add(key);
        started.push(key);
        const ns = key.split('/')[0] as string;
        const n = [...running].filter((k) => k.startsWith(`${ns}/`)).length;
        peak.set(ns, Math.max(peak.get(ns) ?? 0, n));
        finish.set(key, () => {
          running.delete(key);
          resolve();
        });
      }),
  });
  return {
    r,
    running,
    started,
    peak: () => peak,
    resetPeak: () => (peak = new Map()),
    async finish(key: string) {
      finish.get(key)?.();
      await tick();
      await tick();
    },
  };
}

describe('kube: ControllerRunner per-namespace limit', () => {
  it("mallory's eight slow keys hold two of four workers; victim's key runs at once", async () => {
    const t = runner(2);
    t.r.start();
    for (let i = 0; i < 8; i++) t.r.enqueue(`mallory/heavy-${i}`);
    t.r.enqueue('victim/web');
    await tick();
    await tick();
    expect([...t.running].sort()).to.deep.equal(['mallory/heavy-0', 'mallory/heavy-1', 'victim/web']);
    // Each of mallory's reconciles that ends hands the next parked key back, in order.
    await t.finish('mallory/heavy-0');
    expect([...t.running].sort()).to.deep.equal(['mallory/heavy-1', 'mallory/heavy-2', 'victim/web']);
    for (let i = 1; i < 8; i++) await t.finish(`mallory/heavy-${i}`);
    expect(t.started.filter((k) => k.startsWith('mallory/'))).to.deep.equal(Array.from({ length: 8 }, (_, i) => `mallory/heavy-${i}`));
    expect(t.peak().get('mallory')).to.equal(2);
    await t.finish('victim/web');
    await t.r.stop();
  });

  it('a key queued again while parked runs once more, not twice at the same time', async () => {
    const t = runner(1);
    t.r.start();
    t.r.enqueue('a/x');
    t.r.enqueue('a/y');
    await tick();
    t.r.enqueue('a/y'); // an informer event while parked
    await tick();
    expect([...t.running]).to.deep.equal(['a/x']);
    await t.finish('a/x');
    expect([...t.running]).to.deep.equal(['a/y']);
    await t.finish('a/y');
    expect(t.running.size).to.equal(0);
    expect(t.peak().get('a')).to.equal(1);
    await t.r.stop();
  });

  it('without a limit one namespace may take every worker', async () => {
    const t = runner(undefined, 3);
    t.r.start();
    for (let i = 0; i < 5; i++) t.r.enqueue(`mallory/heavy-${i}`);
    await tick();
    expect(t.running.size).to.equal(3);
    for (let i = 0; i < 5; i++) await t.finish(`mallory/heavy-${i}`);
    await t.r.stop();
  });

  it('refuses a limit that would park every key forever', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new ControllerRunner({ name: 't', workers: 1, log: pino({ level: 'silent' }), perNamespace: bad, reconcile: async () => undefined })).to.throw(RangeError, 'perNamespace');
    }
  });
});

// A resync pass of reconciles that find nothing to change reads only caches: every reconcile resolves
// without I/O. Measured at 10,000 EHPAs before the fix (the scale bench): such a pass held serve's event loop for
// 1.1–1.8 s every minute, and metric requests waited behind it.
describe('kube: ControllerRunner leaves the event loop to I/O during a pass of cache-only reconciles', () => {
  const KEYS = 2000;
  /** About 0.1 ms of synchronous work, like a reconcile comparing a desired HPA with the cached one. */
  const busy = () => {
    const until = performance.now() + 0.1;
    while (performance.now() < until);
  };
  /** A runner over KEYS queued keys whose reconciles only compute; `done()` counts them, `ended` is the pass's end. */
  function pass() {
    let done = 0;
    let passEnded!: () => void;
    const ended = new Promise<void>((r) => (passEnded = r));
    const runner = new ControllerRunner({
      name: 'resync',
      workers: 4,
      log: pino({ level: 'silent' }),
      reconcile: async () => {
        busy();
        if (++done === KEYS) passEnded();
      },
    });
    for (let i = 0; i < KEYS; i++) runner.enqueue(`ns-${i % 100}/ehpa-${i}`);
    return { runner, ended, done: () => done };
  }

  it('a loopback HTTP request sent as the pass starts is answered before the pass ends', async () => {
    const { runner: r, ended, done } = pass();
    const server = createServer((_req, res) => res.end(String(done())));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    // Connected first, so only the request itself remains to be served during the pass.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ask = () =>
      new Promise<number>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve(Number(body)));
        }).on('error', reject);
      });
    await ask();
    const answer = ask();
    r.start();
    const reconciledWhenServed = await answer;
    await ended;
    await r.stop();
    agent.destroy();
    server.close();
    expect(done()).to.equal(KEYS);
    // Before the fix the server could read the request only once all 2,000 had run.
    expect(reconciledWhenServed, 'reconciles run before the request was served').to.be.below(KEYS / 4);
  });

  it('a timer due during the pass runs within a few reconciles of its time, not after the pass', async () => {
    const { runner: r, ended, done } = pass();
    const atTimer = new Promise<number>((resolve) => setTimeout(() => resolve(done()), 5));
    r.start();
    const reconciledAtTimer = await atTimer;
    await ended;
    await r.stop();
    // 2,000 × 0.1 ms is a 200 ms pass; the 5 ms timer fires after ~50 of them (more on a slow machine).
    expect(reconciledAtTimer).to.be.above(0).and.below(KEYS / 2);
  });
});

describe('kube: ControllerRunner requeueWithBackoff', () => {
  it("a reconcile that reports a failure comes back after the queue's backoff, capped by requeueAfterMs; one without it is forgotten", async () => {
    const results: { requeueAfterMs?: number; requeueWithBackoff?: boolean }[] = [{ requeueWithBackoff: true }, { requeueWithBackoff: true }, { requeueWithBackoff: true, requeueAfterMs: 150 }, { requeueAfterMs: 5_000 }];
    const delays: number[] = [];
    const queue = new WorkQueue({ baseMs: 100, maxMs: 1_000 });
    const addAfter = queue.addAfter.bind(queue);
    // Time stands still: record the delay and hand the key back at once.
    queue.addAfter = (key: string, ms: number) => {
      delays.push(ms);
      if (results.length > 0) addAfter(key, 0);
    };
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const r = new ControllerRunner({
      name: 'test',
      workers: 1,
      log: pino({ level: 'silent' }),
      queue,
      reconcile: async () => {
        const next = results.shift()!;
        if (results.length === 0) setImmediate(done);
        return next;
      },
    });
    r.start();
    r.enqueue('a/x');
    await finished;
    await r.stop();
    expect(delays).to.deep.equal([100, 200, 150, 5_000]);
    expect(queue.failuresOf('a/x')).to.equal(0);
  });
});
