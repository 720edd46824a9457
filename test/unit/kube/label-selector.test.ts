import { expect } from 'chai';
import { parseLabelSelector } from '../../../src/kube/label-selector.ts';

describe('parseLabelSelector', () => {
  it('matches equality and set-based requirements', () => {
    const s = parseLabelSelector('app=web,tier in (a, b),!canary,env!=dev,track');
    expect(s({ app: 'web', tier: 'a', env: 'prod', track: '1' })).to.equal(true);
    expect(s({ app: 'web', tier: 'c', env: 'prod', track: '1' })).to.equal(false);
    expect(s({ app: 'web', tier: 'a', env: 'prod', track: '1', canary: 'y' })).to.equal(false);
    expect(s({ app: 'web', tier: 'b', env: 'dev', track: '1' })).to.equal(false);
    expect(s({ app: 'web', tier: 'b' })).to.equal(false);
  });
  it('reads notin and == and matches everything when empty', () => {
    expect(parseLabelSelector('x notin (1)')({ x: '2' })).to.equal(true);
    expect(parseLabelSelector('x notin (1)')({ x: '1' })).to.equal(false);
    expect(parseLabelSelector('app.kubernetes.io/name==web')({ 'app.kubernetes.io/name': 'web' })).to.equal(true);
    expect(parseLabelSelector('')({})).to.equal(true);
  });
  it('rejects garbage', () => {
    expect(() => parseLabelSelector('a b c')).to.throw(/cannot parse/);
  });
});
