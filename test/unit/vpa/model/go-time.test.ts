// Go time semantics on microsecond instants.
import { expect } from 'chai';
import {
  GO_ZERO_TIME,
  durationMinutes,
  formatInstant,
  formatInstantSeconds,
  parseInstant,
  roundTime,
  subNanosFloat,
  truncateDuration,
} from '../../../../src/gomath/go-time.ts';

const H = 3_600_000_000;

describe('go-time', () => {
  it('parses RFC 3339 with offsets and fractions, refusing sub-microsecond precision', () => {
    expect(parseInstant('1970-01-01T00:00:01Z')).to.equal(1_000_000);
    expect(parseInstant('1970-01-01T01:00:00+01:00')).to.equal(0);
    expect(parseInstant('1970-01-01T00:00:00.5Z')).to.equal(500_000);
    expect(parseInstant('1970-01-01T00:00:00.000001000Z')).to.equal(1);
    expect(() => parseInstant('1970-01-01T00:00:00.0000001Z')).to.throw(/sub-microsecond/);
    expect(() => parseInstant('2024-13-01T00:00:00Z')).to.throw(/invalid/);
    expect(() => parseInstant('yesterday')).to.throw(/invalid/);
  });
  it('formats like metav1.Time (whole seconds) and RFC3339Nano', () => {
    const t = parseInstant('2024-03-10T13:37:00.25Z');
    expect(formatInstantSeconds(t)).to.equal('2024-03-10T13:37:00Z');
    expect(formatInstant(t)).to.equal('2024-03-10T13:37:00.25Z');
    expect(formatInstant(GO_ZERO_TIME)).to.equal('0001-01-01T00:00:00Z');
  });
  it('Round counts from year 1 and rounds halves up (7h is not aligned to the Unix epoch)', () => {
    expect(formatInstant(roundTime(parseInstant('2024-03-10T13:37:00Z'), 7 * H))).to.equal('2024-03-10T17:00:00Z');
    expect(formatInstant(roundTime(parseInstant('2024-03-10T12:00:00Z'), 24 * H))).to.equal('2024-03-11T00:00:00Z');
  });
  it('Sub saturates against the zero time; Minutes and Truncate match Go', () => {
    expect(subNanosFloat(GO_ZERO_TIME, 0)).to.equal(-9223372036854775808);
    expect(subNanosFloat(0, GO_ZERO_TIME)).to.equal(2 ** 63); // float64(MaxInt64)
    expect(subNanosFloat(GO_ZERO_TIME, GO_ZERO_TIME)).to.equal(0);
    expect(subNanosFloat(2, 1)).to.equal(1000);
    expect(durationMinutes(24 * H)).to.equal(1440);
    expect(durationMinutes(90_000_000)).to.equal(1.5);
    expect(truncateDuration(25 * H, 24 * H)).to.equal(24 * H);
  });
});
