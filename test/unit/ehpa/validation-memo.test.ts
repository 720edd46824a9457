// validateEhpa remembers its answer per EHPA object: the informer hands the resync pass (and the metrics
// adapter) the same object until the EHPA changes, so its crons and algorithm settings are parsed once per
// version, not on every pass (re-parsing was a fifth of the reconciles' garbage at 10,000 EHPAs).
import { expect } from 'chai';
import { validateEhpa } from '../../../src/ehpa/validation.ts';
import { ehpa } from './fixtures.ts';

const withCrons = (zone: string) =>
  ehpa({
    crons: [
      { name: 'day', timezone: zone, start: '0 8 * * *', end: '0 20 * * *', targetReplicas: 5 },
      { name: 'night', timezone: zone, start: '0 20 * * *', end: '0 8 * * *', targetReplicas: 2 },
    ],
  });

/** A zone checker that counts its calls: the crons' zones are checked whenever they are parsed. */
function countingZones(known: string[]) {
  const calls = { n: 0 };
  return { calls, isValidZone: (zone: string) => (calls.n++, known.includes(zone)) };
}

describe('validateEhpa: once per EHPA object', () => {
  it('a second validation of the same object parses nothing and gives the same problems', () => {
    const zones = countingZones(['Asia/Shanghai']);
    const obj = withCrons('Europe/Nowhere');
    const first = validateEhpa(obj, zones.isValidZone);
    const parsed = zones.calls.n;
    expect(parsed).to.be.greaterThan(0);
    expect(first.map((p) => p.reason)).to.include('InvalidTimeZone');
    const second = validateEhpa(obj, zones.isValidZone);
    expect(zones.calls.n, 'zone checks on the second validation').to.equal(parsed);
    expect(second).to.deep.equal(first);
  });

  it('a changed EHPA (a new object from the informer) is validated afresh', () => {
    const zones = countingZones(['Asia/Shanghai']);
    expect(validateEhpa(withCrons('Europe/Nowhere'), zones.isValidZone).map((p) => p.reason)).to.include('InvalidTimeZone');
    const before = zones.calls.n;
    expect(validateEhpa(withCrons('Asia/Shanghai'), zones.isValidZone)).to.deep.equal([]);
    expect(zones.calls.n).to.be.greaterThan(before);
  });

  it('answers per zone checker: another checker does not get the first one\'s answer', () => {
    const obj = withCrons('Asia/Shanghai');
    expect(validateEhpa(obj, countingZones(['Asia/Shanghai']).isValidZone)).to.deep.equal([]);
    expect(validateEhpa(obj, countingZones([]).isValidZone).map((p) => p.reason)).to.include('InvalidTimeZone');
  });

  it("a caller that edits the returned list does not change the next caller's answer", () => {
    const zones = countingZones([]);
    const obj = withCrons('Europe/Nowhere');
    const first = validateEhpa(obj, zones.isValidZone);
    const n = first.length;
    first.length = 0;
    expect(validateEhpa(obj, zones.isValidZone)).to.have.length(n);
    const again = validateEhpa(obj, zones.isValidZone);
    expect(() => {
      (again[0] as { message: string }).message = 'changed';
    }).to.throw(TypeError);
  });
});
