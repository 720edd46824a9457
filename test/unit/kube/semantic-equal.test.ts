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
  it('a key only one side has counts unless its value is undefined, on either side', () => {
    expect(semanticEqual({ a: 1 }, { a: 1, b: undefined })).to.equal(true);
    expect(semanticEqual({ a: 1 }, { a: 1, b: null })).to.equal(false);
    expect(semanticEqual({ a: 1, b: 0 }, { a: 1 })).to.equal(false);
    expect(semanticEqual({ a: 1 }, { a: 1, b: 0 })).to.equal(false);
    expect(semanticEqual({ a: { c: [1, { d: '1' }] } }, { a: { c: [1, { d: '1000m', e: undefined }] } })).to.equal(true);
    expect(semanticEqual({ a: { c: [1, { d: '1' }] } }, { a: { c: [1, { d: '1', e: 'x' }] } })).to.equal(false);
  });
  it('reads own keys only: names like "constructor" or "toString" are plain keys', () => {
    expect(semanticEqual({}, { toString: 'x' })).to.equal(false);
    expect(semanticEqual({ constructor: 'x' }, {})).to.equal(false);
    expect(semanticEqual({ toString: undefined }, {})).to.equal(true);
    expect(semanticEqual(JSON.parse('{"__proto__": {"a": 1}}'), {})).to.equal(false);
  });
  it('arrays: length and order count; an array is not an object with the same keys', () => {
    expect(semanticEqual([1, 2], [1, 2, undefined])).to.equal(false);
    expect(semanticEqual(['1', '2'], ['1000m', '2'])).to.equal(true);
    expect(semanticEqual({ 0: 'a' }, ['a'])).to.equal(false);
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
