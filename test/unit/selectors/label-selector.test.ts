import { expect } from 'chai';
import { parseLabelSelector, SelectorError } from '../../../src/selectors/label-selector.ts';

describe('parseLabelSelector (apimachinery labels.Parse grammar)', () => {
  const labels = { app: 'web', tier: 'front', 'app.kubernetes.io/name': 'shop', replicas: '5' };
  it('matches every operator', () => {
    const cases: [string, boolean][] = [
      ['', true], ['app', true], ['!app', false], ['!missing', true], ['app=web', true], ['app==web', true], ['app!=web', false],
      ['missing!=x', true], ['app in (web,api)', true], ['app in (api)', false], ['app notin (api)', true], ['missing notin (a)', true],
      ['missing in (a)', false], ['replicas>4', true], ['replicas<5', false], ['app>1', false],
      ['app=web,tier=front', true], ['app=web,tier=back', false], ['app.kubernetes.io/name=shop', true],
      ['app.kubernetes.io/instance=flx-coll-grpc,app.kubernetes.io/name=worker2', false], ['tier in (front, back) , app', true], ['missing=', false],
    ];
    for (const [text, want] of cases) expect(parseLabelSelector(text).matches(labels), text).to.equal(want);
  });
  it('reads the HPA’s decoded query (url.Values.Encode) and exact values', () => {
    const s = parseLabelSelector(new URLSearchParams('labelSelector=app.kubernetes.io%2Finstance%3Dflx%2Capp.kubernetes.io%2Fname%3Dworker2').get('labelSelector'));
    expect(s.exactValue('app.kubernetes.io/name')).to.equal('worker2');
    expect(parseLabelSelector('a in (x)').exactValue('a')).to.equal('x');
    expect(parseLabelSelector('a in (x,y)').exactValue('a')).to.equal(undefined);
  });
  it('echoes a metav1.LabelSelector, null when empty', () => {
    expect(parseLabelSelector('').toLabelSelector()).to.equal(null);
    expect(parseLabelSelector('a=1,b in (x,y),!c,d').toLabelSelector()).to.deep.equal({
      matchLabels: { a: '1' },
      matchExpressions: [{ key: 'b', operator: 'In', values: ['x', 'y'] }, { key: 'c', operator: 'DoesNotExist' }, { key: 'd', operator: 'Exists' }],
    });
  });
  it('refuses malformed selectors with a SelectorError naming the problem', () => {
    const bad: [string, RegExp][] = [
      ['a in (x', /unbalanced "\("/], ['a)', /unbalanced "\)"/], ['a,,b', /empty requirement/], ['a=b=c', /invalid label value/],
      ['-a=b', /invalid label key/], ['a>x', /integer/], ['UPPER.case/x=1', /prefix/],
      // Gt/Lt values must be int64 (strconv.ParseInt) and valid label values (no sign): NewRequirement.
      ['a>-1', /invalid label value/], ['a<9223372036854775808', /integer/], ['a>+1', /invalid label value/],
      [`a=${'x'.repeat(64)}`, /63 characters/], ['a b', /unable to parse/],
    ];
    for (const [text, re] of bad) expect(() => parseLabelSelector(text), text).to.throw(SelectorError, re);
  });

  // apimachinery pkg/labels/selector.go: Parser.parseValues reads "()" as the set {""}; Requirement.Matches
  // compares Gt/Lt with strconv.ParseInt(…, 10, 64) on both sides.
  it('reads "a in ()" as a in {""}: it selects exactly the objects whose label a is empty', () => {
    const sel = parseLabelSelector('a in ()');
    expect(sel.matches({ a: '' })).to.equal(true);
    expect(sel.matches({ a: 'x' })).to.equal(false);
    expect(sel.matches({})).to.equal(false);
  });
  it('compares Gt/Lt as int64: exact beyond 2^53, a signed label value is a number, an out-of-range one never matches', () => {
    expect(parseLabelSelector('a>9007199254740992').matches({ a: '9007199254740993' })).to.equal(true);
    expect(parseLabelSelector('a<9007199254740993').matches({ a: '9007199254740992' })).to.equal(true);
    expect(parseLabelSelector('a>1').matches({ a: '+5' })).to.equal(true);
    expect(parseLabelSelector('a<1').matches({ a: '-5' })).to.equal(true);
    expect(parseLabelSelector('a>1').matches({ a: '9223372036854775808' })).to.equal(false);
    expect(parseLabelSelector('a<1').matches({ a: '9223372036854775808' })).to.equal(false);
    expect(parseLabelSelector('a>9223372036854775806').matches({ a: '9223372036854775807' })).to.equal(true);
  });
});
