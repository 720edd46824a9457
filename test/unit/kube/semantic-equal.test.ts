import { expect } from 'chai';
import { semanticEqual } from '../../../src/kube/semantic-equal.ts';
import { quantityMilli } from '../../../src/quantity/index.ts';

describe('semanticEqual', () => {
  it('compares quantities by value, as the API server canonicalises them', () => {
    expect(semanticEqual({ v: '0.5' }, { v: '500m' })).to.equal(true);
    expect(semanticEqual({ v: '1Ki' }, { v: '1024' })).to.equal(true);
    expect(semanticEqual({ v: '1e3' }, { v: '1k' })).to.equal(true);
    expect(semanticEqual({ v: '1' }, { v: '2' })).to.equal(false);
  });
  it('treats absent and undefined keys alike, but not other differences', () => {
    expect(semanticEqual({ a: 1, b: undefined }, { a: 1 })).to.equal(true);
    expect(semanticEqual({ a: [1, 2] }, { a: [2, 1] })).to.equal(false);
    expect(semanticEqual({ a: 'x' }, { a: 'y' })).to.equal(false);
  });
  it('reads quantities exactly', () => {
    expect(semanticEqual('250m', '0.25')).to.equal(true);
    expect(semanticEqual('abc', 'abc ')).to.equal(false);
    expect(quantityMilli('abc')).to.equal(undefined);
    expect(quantityMilli('0.25')).to.equal(250);
    expect(quantityMilli('1.0001m')).to.equal(2); // MilliValue rounds up
    expect(quantityMilli('2')).to.equal(2000);
  });
});
