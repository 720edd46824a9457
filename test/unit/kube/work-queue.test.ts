import { expect } from 'chai';
import { WorkQueue } from '../../../src/kube/work-queue.ts';
import { statusPatch } from '../../../src/kube/status-writer.ts';

describe('WorkQueue', () => {
  it('dedupes queued keys and never hands one key to two workers', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.len()).to.equal(2);
    const k = await q.get();
    expect(k).to.equal('a');
    q.add('a'); // re-added while processing: must wait for done()
    expect(await q.get()).to.equal('b');
    let third: string | undefined = 'pending';
    void q.get().then((x) => (third = x));
    await new Promise((r) => setImmediate(r));
    expect(third).to.equal('pending');
    q.done('a');
    await new Promise((r) => setImmediate(r));
    expect(third).to.equal('a');
  });
  it('backs off exponentially per key and forgets on success', () => {
    const q = new WorkQueue({ baseMs: 100, maxMs: 1000 });
    expect([q.addRateLimited('x'), q.addRateLimited('x'), q.addRateLimited('x'), q.addRateLimited('x'), q.addRateLimited('x')]).to.deep.equal([100, 200, 400, 800, 1000]);
    q.forget('x');
    expect(q.failuresOf('x')).to.equal(0);
    q.shutDown();
  });
  it('a rate-limited requeue comes no later than notAfterMs, and the failure count still grows', () => {
    const q = new WorkQueue({ baseMs: 100, maxMs: 1000 });
    expect([q.addRateLimited('x', 300), q.addRateLimited('y', 300), q.addRateLimited('y', 300), q.addRateLimited('y', 300)]).to.deep.equal([100, 100, 200, 300]);
    expect(q.failuresOf('y')).to.equal(3);
    q.shutDown();
  });
  it('returns undefined to waiting workers on shutdown', async () => {
    const q = new WorkQueue();
    const p = q.get();
    q.shutDown();
    expect(await p).to.equal(undefined);
  });
});

describe('statusPatch', () => {
  it('nulls keys that disappear so a merge patch removes them', () => {
    expect(statusPatch({ a: 1, lastScaleTime: 't' }, { a: 2 })).to.deep.equal({ a: 2, lastScaleTime: null });
  });
});
