// ControllerRunner's per-namespace limit (--tsp-workers-per-namespace): one tenant's slow reconciles never
// occupy every worker, and its parked keys all run in the end. Reconciles here are promises the test
// resolves, so "at once" is exact, not a matter of timing.
import { expect } from 'chai';
import { pino } from 'pino';
import { ControllerRunner } from '../../../src/kube/controller-runner.ts';

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
