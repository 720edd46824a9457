// quantityMilli remembers its answers by text (pods' requests repeat a few strings across a cluster and every
// EHPA reconcile sums them, which made parsing a hot spot at 10,000 EHPAs); the memo must give the parser's own answers and stay bounded, since the
// texts come from tenants.
import { expect } from 'chai';
import { quantityMemoEntries, quantityMilli, tryParseQuantity } from '../../../src/quantity/quantity.ts';

describe('quantityMilli memo', () => {
  it("answers as the parser does, the first time and from memory, for quantities and for what is not one", () => {
    for (const text of ['100m', '1', '0.25', '1.0001m', '1Ki', '2e3', 'abc', '', '1.5.5', '-3', '250M']) {
      const parsed = tryParseQuantity(text)?.milliValue();
      expect(quantityMilli(text), `${text} (first)`).to.equal(parsed);
      expect(quantityMilli(text), `${text} (again)`).to.equal(parsed);
    }
    expect(quantityMilli('1.0001m')).to.equal(2); // MilliValue rounds up
    expect(quantityMilli('abc')).to.equal(undefined);
  });

  it('holds at most 4,096 texts and none longer than 64 characters', () => {
    for (let i = 0; i < 10_000; i++) expect(quantityMilli(`${i}m`)).to.equal(i);
    expect(quantityMemoEntries()).to.be.at.most(4096).and.at.least(1);
    const before = quantityMemoEntries();
    const long = `${'1'.repeat(70)}m`;
    expect(quantityMilli(long)).to.equal(tryParseQuantity(long)?.milliValue());
    expect(quantityMemoEntries()).to.equal(before);
  });
});
