// Quantities against apimachinery: every expected value below was computed with
// k8s.io/apimachinery v0.37.1 (resource.ParseQuantity, String(), MilliValue(), Value(), RoundUp(0),
// NewMilliQuantity, NewQuantity). null = int64 overflow behaviour we do not reproduce (not asserted).
import { expect } from 'chai';
import { Quantity, QuantityParseError, formatBytes, formatCores, formatDecimal, formatMilli, parseQuantity } from '../../../src/quantity/index.ts';

// [input, String(), MilliValue(), Value(), RoundUp(0).String()] or [input, null] for a parse error.
const PARSE: [string, string | null, number | null, number | null, string][] = [
  ["0", "0", 0, 0, "0"],
  ["1", "1", 1000, 1, "1"],
  ["25m", "25m", 25, 1, "1"],
  ["1000m", "1", 1000, 1, "1"],
  ["1500m", "1500m", 1500, 2, "2"],
  ["0.5", "500m", 500, 1, "1"],
  ["8.1", "8100m", 8100, 9, "9"],
  ["8", "8", 8000, 8, "8"],
  ["1.5Gi", "1536Mi", 1610612736000, 1610612736, "1536Mi"],
  ["1000Mi", "1000Mi", 1048576000000, 1048576000, "1000Mi"],
  ["7Ki", "7Ki", 7168000, 7168, "7Ki"],
  ["8Ki", "8Ki", 8192000, 8192, "8Ki"],
  ["1e3", "1e3", 1000000, 1000, "1e3"],
  ["100G", "100G", 100000000000000, 100000000000, "100G"],
  ["1k", "1k", 1000000, 1000, "1k"],
  ["+1", "+1", 1000, 1, "+1"],
  ["1.000", "1", 1000, 1, "1"],
  ["0.1m", "100u", 1, 1, "1"],
  ["1n", "1n", 1, 1, "1"],
  ["0.0000000001", "1n", 1, 1, "1"],
  ["12345678901234567890", "12345678901234567890", null, null, "12345678901234567890"],
  ["-5m", "-5m", -5, -1, "-1"],
  ["1e21", "1e21", null, null, "1e21"],
  ["1024", "1024", 1024000, 1024, "1024"],
  ["1023Ki", "1023Ki", 1047552000, 1047552, "1023Ki"],
  ["1.5m", "1500u", 2, 1, "1"],
  ["0.5Ki", "512", 512000, 512, "512"],
  ["100Pi", "100Pi", null, null, "100Pi"],
  ["9Ei", "9223372036854775807", null, null, "9223372036854775807"],
  ["10Ei", "9223372036854775807", null, null, "9223372036854775807"],
  ["5e-3", "5e-3", 5, 1, "1"],
  ["2E6", "2E6", 2000000000, 2000000, "2E6"],
  ["1.2.3", null],
  ["", null],
  ["1kk", null],
  ["abc", null],
  ["12Mi", "12Mi", 12582912000, 12582912, "12Mi"],
  ["3.25Gi", "3328Mi", 3489660928000, 3489660928, "3328Mi"],
  ["0.25", "250m", 250, 1, "1"],
  ["-1.5Gi", "-1536Mi", -1610612736000, -1610612736, "-1536Mi"],
  ["1M", "1M", 1000000000, 1000000, "1M"],
  ["1Mi", "1Mi", 1048576000, 1048576, "1Mi"],
  ["500u", "500u", 1, 1, "1"],
  ["123456789n", "123456789n", 124, 1, "1"],
  ["007", "007", 7000, 7, "007"],
  ["1e-10", "1e-9", 1, 1, "1"],
  ["4.1M", "4100k", 4100000000, 4100000, "4100k"],
] as never;

// [milli-units, NewMilliQuantity(m, DecimalSI).String()]
const MILLI: [number, string][] = [[0, "0"], [1, "1m"], [25, "25m"], [999, "999m"], [1000, "1"], [1500, "1500m"], [2000, "2"], [12500, "12500m"], [100000, "100"], [100000000000000, "100G"], [-5, "-5m"]];
// [bytes, NewQuantity(b, BinarySI).String(), NewQuantity(b, DecimalSI).String()]
const BYTES: [number, string, string][] = [[0, "0", "0"], [500, "500", "500"], [1000, "1k", "1k"], [1023, "1023", "1023"], [1024, "1Ki", "1024"], [1536, "1536", "1536"], [262144000, "250Mi", "262144k"], [2000000000, "1953125Ki", "2G"], [100000000000000, "97656250000Ki", "100T"], [87381333, "87381333", "87381333"], [1000000000, "1000000000", "1G"], [1099511627776, "1Ti", "1099511627776"], [-2048, "-2Ki", "-2048"]];

describe('quantity (apimachinery resource.Quantity)', () => {
  for (const [input, str, milli, value, roundUp] of PARSE) {
    it(`parses ${JSON.stringify(input)}`, () => {
      if (str === null) {
        expect(() => parseQuantity(input)).to.throw(QuantityParseError);
        return;
      }
      const q = parseQuantity(input);
      expect(q.toString()).to.equal(str);
      expect(JSON.stringify(q)).to.equal(JSON.stringify(str));
      if (milli !== null) expect(q.milliValue()).to.equal(milli);
      if (value !== null) expect(q.value()).to.equal(value);
      expect(q.roundUp(0).toString()).to.equal(roundUp);
    });
  }
  it('formats milli-units like NewMilliQuantity(m, DecimalSI)', () => {
    for (const [m, s] of MILLI) {
      expect(formatMilli(m), String(m)).to.equal(s);
      expect(Quantity.milli(m, 'DecimalSI').toString()).to.equal(s);
    }
  });
  it('formats bytes like NewQuantity(b, BinarySI) and whole units like NewQuantity(n, DecimalSI)', () => {
    for (const [b, bin, dec] of BYTES) {
      expect(formatBytes(b), String(b)).to.equal(bin);
      expect(formatDecimal(b), String(b)).to.equal(dec);
    }
  });
  it('formats float cores from their shortest decimal form, rounded up to whole millicores', () => {
    expect(formatCores(0.233)).to.equal('233m');
    expect(formatCores(2)).to.equal('2');
    expect(formatCores(0.0001)).to.equal('1m');
    expect(formatCores(1.5)).to.equal('1500m');
    expect(() => formatCores(Number.NaN)).to.throw(RangeError);
  });
  it('compares exact values across scales and formats', () => {
    expect(parseQuantity('1Gi').cmp(parseQuantity('1073741824'))).to.equal(0);
    expect(parseQuantity('999m').cmp(parseQuantity('1'))).to.equal(-1);
    expect(parseQuantity('1.5Gi').cmp(parseQuantity('1500Mi'))).to.equal(1);
    expect(parseQuantity('0').isZero()).to.equal(true);
    expect(parseQuantity('0.0').isZero()).to.equal(true);
  });
});
