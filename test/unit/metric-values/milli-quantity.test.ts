import { expect } from 'chai';
import { formatMilliQuantity, formatQuantity, toMilli } from '../../../src/metric-values/milli-quantity.ts';

describe('formatMilliQuantity', () => {
  // Canonical strings from docs/metrics-api.md §3.5 and §8 checklist item 12 (apimachinery suffix.go).
  it('writes the apimachinery DecimalSI canonical forms', () => {
    const cases: [number, string][] = [
      [0, '0'], [100, '100m'], [1500, '1500m'], [2000, '2'], [2_000_000, '2k'], [1_500_000, '1500'],
      [1_200_000_000, '1200k'], [10_500, '10500m'], [-250, '-250m'], [233, '233m'], [1, '1m'],
      [10, '10m'], [20_000, '20'], [3_000_000_000, '3M'],
    ];
    for (const [milli, text] of cases) expect(formatMilliQuantity(milli), String(milli)).to.equal(text);
  });
  it('clamps past int64 milli-units instead of overflowing', () => {
    expect(formatMilliQuantity(10n ** 30n)).to.equal('9223372036854775807m');
  });
  it('keeps exponents beyond E written with the E suffix', () => {
    expect(formatMilliQuantity(10n ** 18n)).to.equal('1P');
  });
});

describe('toMilli / formatQuantity', () => {
  it('rounds up like MilliValue (docs/metrics-api.md §7 G16)', () => {
    expect(toMilli(0.0001)).to.equal(1n);
    expect(toMilli(1.5)).to.equal(1500n);
    expect(toMilli(2)).to.equal(2000n);
    expect(formatQuantity(0.1)).to.equal('100m');
    expect(formatQuantity(2000)).to.equal('2k');
    expect(formatQuantity(1500)).to.equal('1500');
  });
  it('refuses NaN', () => {
    expect(() => toMilli(NaN)).to.throw(/NaN/);
  });
});
