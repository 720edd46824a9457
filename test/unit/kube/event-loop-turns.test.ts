// TimeSlice: a turn of the event loop only once a stretch of synchronous work has used its budget.
import { expect } from 'chai';
import { TimeSlice } from '../../../src/kube/event-loop-turns.ts';

describe('kube: TimeSlice', () => {
  it('returns without a turn within the budget, gives one once it is used, and starts a new stretch after it', async () => {
    const clock = { ms: 0 };
    const slice = new TimeSlice(10, () => clock.ms);
    let immediate = false;
    setImmediate(() => (immediate = true));
    clock.ms = 9.9;
    await slice.pause();
    expect(immediate, 'a turn within the budget').to.equal(false);
    clock.ms = 10;
    await slice.pause();
    expect(immediate, 'no turn once the budget was used').to.equal(true);
    // The stretch restarted at 10: a pause at 15 is within the new budget.
    immediate = false;
    setImmediate(() => (immediate = true));
    clock.ms = 15;
    await slice.pause();
    expect(immediate).to.equal(false);
  });

  it('refuses a budget that is not positive', () => {
    for (const bad of [0, -1, Number.NaN]) expect(() => new TimeSlice(bad)).to.throw(RangeError, 'budget');
  });
});
