// The controllers' work queue hands keys out round-robin by namespace (src/kube/work-queue.ts): a burst of
// new objects in one namespace does not put another namespace's next reconcile behind all of them.
import { expect } from 'chai';
import { splitKey, WorkQueue } from '../../../src/kube/work-queue.ts';

async function drain(q: WorkQueue): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const k = (await q.get()) as string;
    out.push(k);
    q.done(k);
  }
  return out;
}

describe('WorkQueue: fair between namespaces', () => {
  it("a key added after 2,000 of one namespace's is handed out second, not 2,001st", async () => {
    const q = new WorkQueue();
    for (let i = 0; i < 2000; i++) q.add(`burst/e${i}`);
    q.add('victim/web');
    const order = await drain(q);
    expect(order.length).to.equal(2001);
    expect(order.indexOf('victim/web')).to.equal(1);
    // Within the busy namespace, arrival order is kept.
    const burst = order.filter((k) => k.startsWith('burst/'));
    expect(burst.slice(0, 3)).to.deep.equal(['burst/e0', 'burst/e1', 'burst/e2']);
    expect(burst[1999]).to.equal('burst/e1999');
  });

  it('takes namespaces in turn, cluster-scoped keys sharing one turn', async () => {
    const q = new WorkQueue();
    for (const k of ['a/1', 'a/2', 'a/3', '/node-1', 'b/1', '/node-2', 'b/2']) q.add(k);
    expect(await drain(q)).to.deep.equal(['a/1', '/node-1', 'b/1', 'a/2', '/node-2', 'b/2', 'a/3']);
  });

  it('a key re-added while being handled goes to the back of its namespace, not ahead of others', async () => {
    const q = new WorkQueue();
    q.add('a/1');
    const k = (await q.get()) as string;
    q.add('a/1');
    q.add('b/1');
    q.done(k);
    expect(await drain(q)).to.deep.equal(['b/1', 'a/1']);
  });

  it('splitKey: namespace and name; a key without a slash has no namespace', () => {
    expect(splitKey('ns/name')).to.deep.equal({ namespace: 'ns', name: 'name' });
    expect(splitKey('/node')).to.deep.equal({ namespace: '', name: 'node' });
    expect(splitKey('plain')).to.deep.equal({ namespace: '', name: 'plain' });
  });
});

describe('WorkQueue.addAfter', () => {
  it('of two pending timers for one key the earlier wins, whichever was set first', async () => {
    const q = new WorkQueue();
    q.addAfter('ns/late-then-soon', 5_000);
    q.addAfter('ns/late-then-soon', 20);
    q.addAfter('ns/soon-then-late', 20);
    q.addAfter('ns/soon-then-late', 5_000);
    await new Promise((r) => setTimeout(r, 120));
    expect(q.len()).to.equal(2);
    q.shutDown();
  });
});
