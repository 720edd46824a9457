import { expect } from 'chai';
import { commaList, propagatedMetadata } from '../../../src/ehpa/propagation.ts';
import { ehpa } from './fixtures.ts';

describe('propagatedMetadata (craned propagation flags, crane-behaviour.md §B.2)', () => {
  it('copies keys matching a prefix or an exact name, nothing else', () => {
    const e = ehpa({}, { labels: { 'team.example.com/owner': 'a', env: 'prod', other: 'x' }, annotations: { 'note.example.com/x': '1', keep: 'y', drop: 'z' } });
    expect(propagatedMetadata(e, { labelPrefixes: ['team.example.com/'], labels: ['env'], annotationPrefixes: ['note.'], annotations: ['keep'] })).to.deep.equal({
      labels: { 'team.example.com/owner': 'a', env: 'prod' },
      annotations: { 'note.example.com/x': '1', keep: 'y' },
    });
  });
  it('copies nothing by default (all four flags empty)', () => {
    const e = ehpa({}, { labels: { a: 'b' } });
    expect(propagatedMetadata(e, { labelPrefixes: [], labels: [], annotationPrefixes: [], annotations: [] })).to.deep.equal({ labels: {}, annotations: {} });
    expect(commaList(' a, ,b ')).to.deep.equal(['a', 'b']);
  });
});
