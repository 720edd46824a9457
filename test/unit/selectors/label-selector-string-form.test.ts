import { expect } from 'chai';
import { formatLabelSelector, parseLabelSelector, SelectorError } from '../../../src/selectors/label-selector.ts';

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

describe('formatLabelSelector: metav1.LabelSelector as /scale reports it', () => {
  // Expected strings follow k8s.io/apimachinery v0.34 pkg/labels/selector.go: Requirement.String writes
  // `k=v`, `k in (..)`, `k notin (..)`, `k`, `!k` with set values sorted, and Selector.Add sorts the
  // requirements by key. test/e2e/cached-scale.test.ts checks the same against the real kube-apiserver.
  it('sorts requirements by key across matchLabels and matchExpressions, and set values', () => {
    expect(formatLabelSelector({ matchLabels: { z: '1', a: '2' }, matchExpressions: [{ key: 'm', operator: 'NotIn', values: ['y', 'x'] }, { key: 'b', operator: 'Exists' }, { key: 'c', operator: 'DoesNotExist' }] })).to.equal('a=2,b,!c,m notin (x,y),z=1');
  });
  it('is empty for an empty or absent selector and refuses operators Go refuses', () => {
    expect(formatLabelSelector({})).to.equal('');
    expect(formatLabelSelector(undefined)).to.equal('');
    expect(() => formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).to.throw(SelectorError, 'unknown label selector operator "Gt"');
  });
  it('round-trips through the parser with the same matches', () => {
    const text = formatLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }, { key: 'canary', operator: 'DoesNotExist' }] });
    const sel = parseLabelSelector(text);
    expect(sel.matches({ app: 'web', tier: 'a' })).to.equal(true);
    expect(sel.matches({ app: 'web', tier: 'c' })).to.equal(false);
    expect(sel.matches({ app: 'web', tier: 'b', canary: '1' })).to.equal(false);
  });
});
