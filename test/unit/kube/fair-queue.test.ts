// Work waits its turn by tenant (src/kube/fair-queue.ts): a namespace that queues many items cannot push
// another namespace's next item behind all of them.
import { expect } from 'chai';
import { FairQueue } from '../../../src/kube/fair-queue.ts';

describe('FairQueue: round-robin by tenant, FIFO within one', () => {
  it('serves tenants in turn in the order they first queued, each tenant oldest first', () => {
    const q = new FairQueue<string>();
    for (const [t, x] of [['m', 'm1'], ['m', 'm2'], ['m', 'm3'], ['v', 'v1'], ['m', 'm4'], ['w', 'w1'], ['v', 'v2']] as const) q.push(t, x);
    expect(q.length).to.equal(7);
    expect(q.drain()).to.deep.equal(['m1', 'v1', 'w1', 'm2', 'v2', 'm3', 'm4']);
    expect(q.length).to.equal(0);
    expect(q.shift()).to.equal(undefined);
  });

  it('removes a cancelled job wherever it waits, and a tenant with none left loses its turn', () => {
    const q = new FairQueue<string>();
    for (const [t, x] of [['m', 'm1'], ['v', 'v1'], ['m', 'm2'], ['w', 'w1']] as const) q.push(t, x);
    expect(q.remove('v', 'v1')).to.equal(true);
    expect(q.remove('v', 'v1')).to.equal(false);
    expect(q.remove('w', 'nope')).to.equal(false);
    expect(q.length).to.equal(3);
    expect(q.drain()).to.deep.equal(['m1', 'w1', 'm2']);
  });
});
