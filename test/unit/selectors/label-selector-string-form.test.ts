import { expect } from 'chai';
import { parseLabelSelector, SelectorError } from '../../../src/selectors/label-selector.ts';

describe('parseLabelSelector on the /scale status.selector string form', () => {
  it('matches equality and set-based requirements', () => {
    const sel = parseLabelSelector('app=web,tier in (a, b),!canary,env!=dev,track');
    const s = (l: Record<string, string>) => sel.matches(l);
    expect(s({ app: 'web', tier: 'a', env: 'prod', track: '1' })).to.equal(true);
    expect(s({ app: 'web', tier: 'c', env: 'prod', track: '1' })).to.equal(false);
    expect(s({ app: 'web', tier: 'a', env: 'prod', track: '1', canary: 'y' })).to.equal(false);
    expect(s({ app: 'web', tier: 'b', env: 'dev', track: '1' })).to.equal(false);
    expect(s({ app: 'web', tier: 'b' })).to.equal(false);
  });
  it('reads notin and == and matches everything when empty', () => {
    expect(parseLabelSelector('x notin (1)').matches({ x: '2' })).to.equal(true);
    expect(parseLabelSelector('x notin (1)').matches({ x: '1' })).to.equal(false);
    expect(parseLabelSelector('app.kubernetes.io/name==web').matches({ 'app.kubernetes.io/name': 'web' })).to.equal(true);
    expect(parseLabelSelector('').matches({})).to.equal(true);
  });
  it('rejects garbage', () => {
    expect(() => parseLabelSelector('a b c')).to.throw(SelectorError);
  });
});
