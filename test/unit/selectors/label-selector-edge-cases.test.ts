// Edge cases of the label selector grammar, matching and formatting. Every expectation is what upstream
// gives:
//   - kubernetes/apimachinery pkg/labels/selector.go (Lexer/Parser, NewRequirement, Requirement.Matches,
//     internalSelector.RequiresExactMatch, Add's sort.Sort(ByKey));
//   - kubernetes/apimachinery pkg/util/validation/validation.go (IsQualifiedName: prefix a non-empty DNS-1123
//     subdomain of at most 253 characters; IsValidLabelValue: at most 63 characters);
//   - kubernetes/apimachinery pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector, ParseToLabelSelector).
// Cases where our code and upstream disagree are left out and described in the mutation findings instead.
import { expect } from 'chai';
import { formatLabelSelector, parseLabelSelector, SelectorError } from '../../../src/selectors/label-selector.ts';

describe('parseLabelSelector: whitespace, which upstream’s lexer treats as a delimiter', () => {
  // selector.go isWhitespace: ' ', '\t', '\r', '\n' separate tokens and are otherwise ignored.
  const cases: [text: string, labels: Record<string, string>, want: boolean][] = [
    ['a  in (x)', { a: 'x' }, true], // several blanks between key and operator
    ['a in(x)', { a: 'x' }, true], // no blank before '(': "in" ends at the special symbol
    ['a notin(x)', { a: 'x' }, false],
    ['! a', {}, true], // '!' is its own token; the key follows after the blank
    ['! a', { a: '1' }, false],
  ];
  for (const [text, labels, want] of cases) {
    it(`reads ${JSON.stringify(text)} and matches ${JSON.stringify(labels)} → ${want}`, () => {
      expect(parseLabelSelector(text).matches(labels)).to.equal(want);
    });
  }

  it('treats a selector of blanks only as "everything", like an empty one', () => {
    // Parse("   "): the lexer skips the blanks and meets the end of string, so there are no requirements.
    const sel = parseLabelSelector('   ');
    expect(sel.empty).to.equal(true);
    expect(sel.matches({ a: '1' })).to.equal(true);
    expect(parseLabelSelector(' \t ').empty).to.equal(true);
  });
});

describe('parseLabelSelector: text around a requirement that upstream refuses', () => {
  // Parser.parse: after a requirement only ',' or the end of the string may follow; two identifiers in a row
  // fail in parseOperator ("found 'b', expected: in, notin, =, ==, !=, gt, lt").
  const bad = [
    'a b in (x)', // a stray identifier before a set-based requirement
    'a in (x) y', // a stray identifier after it
    'a b=c', // a stray identifier before an equality requirement
    'a=b\nc', // a newline is whitespace, so "c" is a second identifier after "a=b"
  ];
  for (const text of bad) {
    it(`refuses ${JSON.stringify(text)}`, () => {
      expect(() => parseLabelSelector(text)).to.throw(SelectorError);
    });
  }
});

describe('parseLabelSelector: empty values inside set-based requirements', () => {
  // parseValues: "()" yields the set {""}; parseIdentifiersList turns "(,)" into {""} as well. NewRequirement
  // only refuses an empty set, and "" is a valid label value, so both parse.
  it('accepts "a in (,)" and matches only an empty value', () => {
    const sel = parseLabelSelector('a in (,)');
    expect(sel.matches({ a: '' })).to.equal(true);
    expect(sel.matches({ a: 'x' })).to.equal(false);
    expect(sel.matches({})).to.equal(false);
  });
  it('accepts "a notin ()" and excludes only an empty value', () => {
    const sel = parseLabelSelector('a notin ()');
    expect(sel.matches({ a: 'x' })).to.equal(true);
    expect(sel.matches({ a: '' })).to.equal(false);
    expect(sel.matches({})).to.equal(true);
  });
});

describe('parseLabelSelector: key and value length limits', () => {
  // IsQualifiedName: "prefix/name" needs a non-empty prefix that IsDNS1123Subdomain accepts (len ≤ 253).
  it('refuses an empty prefix ("/a")', () => {
    expect(() => parseLabelSelector('/a=b')).to.throw(SelectorError, /prefix/);
  });
  it('accepts a 253-character prefix and refuses a 254-character one', () => {
    const sel = parseLabelSelector(`${'a'.repeat(253)}/name=v`);
    expect(sel.matches({ [`${'a'.repeat(253)}/name`]: 'v' })).to.equal(true);
    expect(() => parseLabelSelector(`${'a'.repeat(254)}/name=v`)).to.throw(SelectorError, /prefix/);
  });
  // IsValidLabelValue: at most 63 characters (64 is refused, see label-selector.test.ts).
  it('accepts a 63-character value', () => {
    const value = 'v'.repeat(63);
    expect(parseLabelSelector(`a=${value}`).matches({ a: value })).to.equal(true);
    expect(parseLabelSelector(`a in (${value})`).exactValue('a')).to.equal(value);
  });
  it('accepts a 10,000-character selector (labels.Parse has no length limit)', () => {
    const parts: string[] = [];
    let length = -1;
    for (let i = 0; length + 1 + 18 + 3 < 10_000; i++) {
      const p = `key${String(i).padStart(5, '0')}=value1234`; // 18 characters
      parts.push(p);
      length += p.length + 1;
    }
    parts.push(`z=${'v'.repeat(10_000 - (length + 1) - 2)}`);
    const text = parts.join(',');
    expect(text.length).to.equal(10_000);
    const sel = parseLabelSelector(text);
    expect(sel.requirements).to.have.length(parts.length);
    expect(sel.matches({})).to.equal(false);
  });
});

describe('parseLabelSelector: DoesNotExist has no values', () => {
  it('parses "!a" as a requirement with an empty value list', () => {
    // NewRequirement: "values set must be empty for exists and does not exist".
    expect(parseLabelSelector('!a').requirements).to.deep.equal([{ key: 'a', op: 'notexists', values: [] }]);
  });
});

describe('parseLabelSelector: > and < need an integer (strconv.ParseInt)', () => {
  for (const text of ['a>x1', 'a>1x', 'a<1.5']) {
    it(`refuses ${JSON.stringify(text)}`, () => {
      expect(() => parseLabelSelector(text)).to.throw(SelectorError, /integer/);
    });
  }
  it('accepts a multi-digit bound', () => {
    expect(parseLabelSelector('a>10').matches({ a: '11' })).to.equal(true);
  });
});

describe('LabelSelector.matches with Gt and Lt (Requirement.Matches)', () => {
  // The label's value must parse with strconv.ParseInt(v, 10, 64); anything else does not match, and the
  // comparison is strict.
  const cases: [text: string, value: string, want: boolean][] = [
    ['a>5', '10', true],
    ['a>5', '6', true],
    ['a>5', '5', false],
    ['a>5', '3', false],
    ['a<5', '3', true],
    ['a<5', '5', false],
    ['a<5', '7', false],
    ['a>1', '1.5', false], // not an integer
    ['a>1', '0x10', false], // ParseInt with base 10 refuses hex
    ['a>1', '1e3', false], // and exponents
    ['a<5', '', false], // and the empty string
  ];
  for (const [text, value, want] of cases) {
    it(`${text} with a=${JSON.stringify(value)} → ${want}`, () => {
      expect(parseLabelSelector(text).matches({ a: value })).to.equal(want);
    });
  }
  it('does not match when the key is absent', () => {
    expect(parseLabelSelector('a<5').matches({ b: '1' })).to.equal(false);
  });
});

describe('LabelSelector.matches with no labels at all', () => {
  // A nil labels.Set has no keys: Has() is false for every key.
  const cases: [string, boolean][] = [
    ['a', false], ['!a', true], ['a=x', false], ['a!=x', true], ['a in (x)', false], ['a notin (x)', true], ['a>1', false],
  ];
  for (const [text, want] of cases) {
    it(`${text} → ${want}`, () => {
      expect(parseLabelSelector(text).matches(undefined)).to.equal(want);
    });
  }
});

describe('LabelSelector.exactValue (RequiresExactMatch)', () => {
  it('does not report a value pinned by notin', () => {
    // Only Equals, DoubleEquals and In with exactly one value require an exact match.
    expect(parseLabelSelector('a notin (x)').exactValue('a')).to.equal(undefined);
    expect(parseLabelSelector('a!=x').exactValue('a')).to.equal(undefined);
  });
});

describe('LabelSelector.toLabelSelector (metav1.ParseToLabelSelector)', () => {
  it('echoes notin as a NotIn expression', () => {
    // ParseToLabelSelector: selection.NotIn → LabelSelectorOpNotIn with the sorted values; the empty
    // MatchLabels map is omitted from JSON (omitempty).
    expect(parseLabelSelector('a notin (x)').toLabelSelector()).to.deep.equal({
      matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }],
    });
  });
});

describe('formatLabelSelector: a key used more than once', () => {
  // LabelSelectorAsSelector appends matchLabels, then matchExpressions in order, and Add sorts them with
  // sort.Sort(ByKey): for this few requirements that is an insertion sort, which keeps equal keys in order.
  it('keeps the matchLabels requirement before an expression on the same key', () => {
    expect(formatLabelSelector({ matchLabels: { a: '1' }, matchExpressions: [{ key: 'a', operator: 'Exists' }] })).to.equal('a=1,a');
  });
  it('keeps two expressions on the same key in their given order', () => {
    expect(
      formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }, { key: 'a', operator: 'DoesNotExist' }] }),
    ).to.equal('a in (x),!a');
  });
});

describe('label selector bounds and int64 ends', () => {
  it('refuses a selector over 10,000 characters before parsing it (docs/security.md §2), and takes one of exactly 10,000', () => {
    const exactly = `${'a,'.repeat(4999)}ab`;
    expect(exactly.length).to.equal(10_000);
    expect(parseLabelSelector(exactly).matches({ a: '', ab: '' })).to.equal(true);
    expect(() => parseLabelSelector(`${exactly}c`)).to.throw(SelectorError, 'selector is longer than 10000 characters');
  });
  it('a label value below the int64 minimum never matches Lt, as strconv.ParseInt fails on it', () => {
    expect(parseLabelSelector('a<1').matches({ a: '-9223372036854775808' })).to.equal(true);
    expect(parseLabelSelector('a<1').matches({ a: '-9223372036854775809' })).to.equal(false);
  });
});
