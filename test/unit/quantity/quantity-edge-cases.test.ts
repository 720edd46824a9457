// Edge cases of resource.Quantity that quantity.test.ts does not reach: which inputs keep their original text,
// where parsing leaves the int64 fast path for the arbitrary-precision (inf.Dec) one, which error a malformed
// string gives, how BinarySI prints near ±1024 and at positive scales, and RoundUp/AsScale/Sign/IsZero.
//
// Every expected value was checked against k8s.io/apimachinery v0.37.1 (the version the Go oracles pin),
// pkg/api/resource: quantity.go (ParseQuantity, CanonicalizeBytes, RoundUp, Sign, IsZero, NewQuantity,
// NewMilliQuantity, NewScaledQuantity), suffix.go (suffixHandler.interpret) and amount.go (int64Amount.AsScale,
// infDecAmount.AsScale). Where a value depends on which of the two representations upstream picks, the comment
// says which one (int64Amount = fast path, inf.Dec = slow path).
import { expect } from 'chai';
import { Quantity, QuantityParseError, formatBytes, formatCores, parseQuantity, quantityMilli, tryParseQuantity } from '../../../src/quantity/index.ts';

// ParseQuantity's two errors (quantity.go: ErrFormatWrong, ErrSuffix).
const FORMAT_WRONG = /^quantities must match the regular expression/;
const BAD_SUFFIX = /^unable to parse quantity's suffix/;

describe('quantity edge cases (apimachinery v0.37.1 resource.Quantity)', () => {
  describe('parse errors: which of ErrFormatWrong / ErrSuffix a malformed string gives', () => {
    // parseQuantityString fails with ErrFormatWrong when a character follows the suffix letters that is neither a
    // sign nor a digit, or a non-digit follows the exponent digits; interpret() fails with ErrSuffix otherwise.
    const CASES: [string, RegExp][] = [
      ['', FORMAT_WRONG], // len(str) == 0
      ['1Mx', FORMAT_WRONG], // 'x' is not a suffix letter, sign or digit
      ['1e3x', FORMAT_WRONG], // a non-digit after the exponent digits
      ['1e+3-', FORMAT_WRONG],
      ['1kk', BAD_SUFFIX], // only the suffix letters: "kk" is no suffix
      ['1M3', BAD_SUFFIX], // only "e"/"E" may be followed by a number
      ['1Ki3', BAD_SUFFIX],
      ['1e', BAD_SUFFIX], // "e" alone is neither a decimal SI suffix nor an exponent
      ['1e99999999999999999999', BAD_SUFFIX], // strconv.ParseInt(…, 10, 64) fails: out of int64 range
      ['1e9223372036854775808', BAD_SUFFIX], // 2^63: one past int64
    ];
    for (const [input, message] of CASES) {
      it(`${JSON.stringify(input)} throws ${message === FORMAT_WRONG ? 'ErrFormatWrong' : 'ErrSuffix'}`, () => {
        expect(() => parseQuantity(input)).to.throw(QuantityParseError, message);
      });
    }

    it('throws a QuantityParseError named as such', () => {
      let caught: unknown;
      try {
        parseQuantity('abc');
      } catch (e) {
        caught = e;
      }
      expect(caught).to.be.instanceOf(QuantityParseError);
      expect((caught as Error).name).to.equal('QuantityParseError');
    });
  });

  describe('the scanner: zeros, a leading dot, signs in the exponent', () => {
    // [input, String(), MilliValue(), Value()]
    const CASES: [string, string, number, number][] = [
      // All zeros: parseQuantityString returns num "0", which is not kept as text (it starts with '0').
      ['00', '0', 0, 0],
      ['-00', '0', 0, 0],
      ['+000', '0', 0, 0],
      ['-0', '0', 0, 0],
      // No integer digits: num becomes "0", so shifted starts with '0' and the text is not kept.
      ['.500k', '500', 500000, 500],
      ['0.001k', '1', 1000, 1],
      ['+.5', '500m', 500, 1],
      ['-.5', '-500m', -500, -1],
      // A dot with no digits, or suffix letters alone, are well formed and parse as 0.
      ['.', '0', 0, 0],
      ['k', '0', 0, 0],
      ['-k', '0', 0, 0],
      // "1." is canonical enough to be kept (scale 0, shifted "1").
      ['1.', '1.', 1000, 1],
      // A '+' after the exponent letter is a sign, kept in the cached text.
      ['1e+3', '1e+3', 1000000, 1000],
    ];
    for (const [input, str, milli, value] of CASES) {
      it(`${JSON.stringify(input)} is ${str} (milli ${milli}, value ${value})`, () => {
        const q = parseQuantity(input);
        expect(q.toString()).to.equal(str);
        expect(JSON.stringify(q)).to.equal(JSON.stringify(str));
        expect(q.milliValue()).to.equal(milli);
        expect(q.value()).to.equal(value);
      });
    }

    it('"1e+3" and "1e-3" are DecimalExponent quantities', () => {
      expect(parseQuantity('1e+3').format).to.equal('DecimalExponent');
      expect(parseQuantity('1e-3').format).to.equal('DecimalExponent');
      expect(parseQuantity('1e+3').cmp(parseQuantity('1k'))).to.equal(0);
    });
  });

  describe('which parsed strings keep their original text (MarshalJSON echoes it)', () => {
    // ParseQuantity keeps str when the int64 fast path is taken and
    //   BinarySI: exponent%10 == 0 && value&0x07 != 0
    //   decimal:  scale%3 == 0 && !HasSuffix(shifted, "000") && shifted[0] != '0'.
    // The fast path needs precision >= 0:
    //   decimal:  18 - (len(num)+len(denom))
    //   BinarySI: 15 - len(num) - int32(float32(exponent)*3/10) - 1 (Ki 11-n, Mi 8-n, Gi 5-n, Ti 2-n, Pi/Ei never)
    // and scale >= Nano; otherwise inf.Dec is used and the text is dropped (String() is canonical).
    const CASES: [string, string][] = [
      // BinarySI, value&7 != 0: kept.
      ['+1Ki', '+1Ki'],
      ['01Ki', '01Ki'],
      ['+3Mi', '+3Mi'],
      ['+3Gi', '+3Gi'],
      ['+3Ti', '+3Ti'],
      // BinarySI, value&7 == 0: not kept.
      ['+8Ki', '8Ki'],
      ['08Ki', '8Ki'],
      // BinarySI precision boundaries: the longest num on the fast path is kept, one digit more is inf.Dec.
      ['+99999999999Ki', '+99999999999Ki'],
      ['+100000000001Ki', '100000000001Ki'],
      ['+99999999Mi', '+99999999Mi'],
      ['+100000001Mi', '100000001Mi'],
      ['+99999Gi', '+99999Gi'],
      ['+100001Gi', '100001Gi'],
      ['+99Ti', '+99Ti'],
      ['+101Ti', '101Ti'],
      // Pi and Ei always take inf.Dec.
      ['+1Pi', '1Pi'],
      ['+3Pi', '3Pi'],
      ['+3Ei', '3Ei'],
      // Decimal precision boundary: 18 digits are the fast path, 19 are inf.Dec.
      ['+100000000000000001', '+100000000000000001'],
      ['+1000000000000000001', '1000000000000000001'],
      // Fraction digits count too: 10 + 9 digits is inf.Dec (which prints canonically).
      ['1000000000.000000001', '1000000000000000001n'],
      // scale == Nano is still the fast path.
      ['+5n', '+5n'],
      ['+5u', '+5u'],
    ];
    for (const [input, str] of CASES) {
      it(`${JSON.stringify(input)} prints ${JSON.stringify(str)}`, () => {
        const q = parseQuantity(input);
        expect(q.toString()).to.equal(str);
        expect(JSON.stringify(q)).to.equal(JSON.stringify(str));
      });
    }
  });

  describe('BinarySI quantities parsed through inf.Dec', () => {
    it('a value strictly between 0 and 1 becomes DecimalSI', () => {
      const q = parseQuantity('0.0005Ki'); // 0.512
      expect(q.format).to.equal('DecimalSI');
      expect(q.toString()).to.equal('512m');
      expect(q.milliValue()).to.equal(512);
      // RoundUp(4) gives 10^4, printed in the DecimalSI format the parse chose: "10k" (BinarySI would print "10000").
      expect(q.roundUp(4).toString()).to.equal('10k');
    });

    it('a negative value between -1 and 0 becomes DecimalSI too (the check runs on the magnitude)', () => {
      const q = parseQuantity('-0.0005Ki');
      expect(q.format).to.equal('DecimalSI');
      expect(q.toString()).to.equal('-512m');
      expect(q.milliValue()).to.equal(-512);
    });

    it('exactly 1 stays BinarySI (amount.Cmp(decOne) < 0 is false)', () => {
      const q = parseQuantity('0.0009765625Ki');
      expect(q.format).to.equal('BinarySI');
      expect(q.toString()).to.equal('1');
      expect(q.milliValue()).to.equal(1000);
    });

    it('zero stays BinarySI (amount.Cmp(decZero) > 0 is false)', () => {
      const q = parseQuantity('0.0Ki');
      expect(q.format).to.equal('BinarySI');
      expect(q.toString()).to.equal('0');
      expect(q.isZero()).to.equal(true);
      expect(q.sign()).to.equal(0);
    });

    it('a value exactly 2^63-1 is not capped: it keeps the nano scale the rounding gave it', () => {
      // 9007199254740991.9990234375 × 1024 = 9223372036854775807 exactly; ParseQuantity rounds it to nano
      // (inf.Dec scale 9) and only replaces amounts with maxAllowed when Cmp > 0.
      const q = parseQuantity('9007199254740991.9990234375Ki');
      expect(q.toString()).to.equal('9223372036854775807');
      expect(q.scale).to.equal(-9);
      expect(q.cmp(parseQuantity('9223372036854775807'))).to.equal(0);
    });
  });

  describe('BinarySI canonical form', () => {
    // CanonicalizeBytes: -1024 < q < 1024 prints as DecimalSI; otherwise AsScale(0) then base-1024 factors.
    it('prints exactly ±1024 as Ki, and ±1023 as a plain number', () => {
      expect(Quantity.of(-1024, 'BinarySI').toString()).to.equal('-1Ki');
      expect(formatBytes(-1024)).to.equal('-1Ki');
      expect(Quantity.of(-1023, 'BinarySI').toString()).to.equal('-1023');
      expect(Quantity.of(1024, 'BinarySI').toString()).to.equal('1Ki');
    });

    it('compares milli-unit values with ±1024 at their own scale', () => {
      // NewMilliQuantity(1000000, BinarySI) is 1000 < 1024: DecimalSI, so "1k" and not "1000".
      expect(Quantity.milli(1000000, 'BinarySI').toString()).to.equal('1k');
      expect(Quantity.milli(-1000000, 'BinarySI').toString()).to.equal('-1k');
      expect(Quantity.milli(500000, 'BinarySI').toString()).to.equal('500');
      expect(Quantity.milli(1536000, 'BinarySI').toString()).to.equal('1536');
      // Not a whole number: AsScale(0) is inexact, so DecimalSI.
      expect(Quantity.milli(1536500, 'BinarySI').toString()).to.equal('1536500m');
    });

    it('prints a BinarySI quantity at a positive scale (after RoundUp) from its whole value', () => {
      // NewQuantity(1023500, BinarySI).RoundUp(3): int64Amount{1024, 3} = 1024000 = 1000Ki.
      const q = Quantity.of(1023500, 'BinarySI').roundUp(3);
      expect(q.scale).to.equal(3);
      expect(q.toString()).to.equal('1000Ki');
      expect(q.value()).to.equal(1024000);
      // 1Ki = 1024 rounded up to 10^3 is 2000, not a multiple of 1024.
      expect(parseQuantity('+1Ki').roundUp(3).toString()).to.equal('2000');
      expect(parseQuantity('1.5Ki').roundUp(3).toString()).to.equal('2000');
    });
  });

  describe('RoundUp', () => {
    // int64Amount (fast path, NewQuantity/NewMilliQuantity/NewScaledQuantity): RoundUp returns early when
    // q.i.scale >= scale, keeping both the scale and the cached text. inf.Dec: always rounds to exactly `scale`.
    it('leaves an int64Amount at a scale at least as coarse untouched', () => {
      const cases: [Quantity, number, string][] = [
        [Quantity.of(5, 'DecimalSI'), 0, '5'],
        [Quantity.milli(1500, 'DecimalSI'), -3, '1500m'],
        [Quantity.scaled(2, 3), 3, '2k'],
        [parseQuantity('0'), 0, '0'],
        [parseQuantity('00'), 0, '0'],
        [parseQuantity('+1Ki'), 0, '+1Ki'],
      ];
      for (const [q, scale, str] of cases) {
        const r = q.roundUp(-6);
        expect(r.scale, str).to.equal(scale);
        expect(r.toString()).to.equal(str);
      }
    });

    it('rounds an inf.Dec quantity to exactly the requested scale', () => {
      const q = parseQuantity('1.5Gi').roundUp(-3);
      expect(q.scale).to.equal(-3);
      expect(q.toString()).to.equal('1536Mi');
      expect(parseQuantity('1.5Gi').roundUp(0).scale).to.equal(0);
    });

    it('rounds an int64Amount at a finer scale up, away from zero', () => {
      expect(parseQuantity('+1Ki').roundUp(3).scale).to.equal(3);
      expect(parseQuantity('25m').roundUp(0).toString()).to.equal('1');
      expect(parseQuantity('-5m').roundUp(0).toString()).to.equal('-1');
    });
  });

  describe('AsScale', () => {
    it('reports whether the value at the scale is exact', () => {
      expect(parseQuantity('1').asScale(-3)).to.deep.equal({ value: 1000n, exact: true });
      expect(parseQuantity('1500m').asScale(-3)).to.deep.equal({ value: 1500n, exact: true });
      expect(parseQuantity('1500m').asScale(0)).to.deep.equal({ value: 2n, exact: false });
      expect(parseQuantity('-25m').asScale(0)).to.deep.equal({ value: -1n, exact: false });
      expect(parseQuantity('1.5Gi').asScale(0)).to.deep.equal({ value: 1610612736n, exact: true });
    });
  });

  describe('Value and MilliValue of constructed quantities', () => {
    it('Value() rounds milli-units up, away from zero (int64Amount.AsScaledInt64)', () => {
      expect(Quantity.milli(1500, 'DecimalSI').value()).to.equal(2);
      expect(Quantity.milli(-1500, 'DecimalSI').value()).to.equal(-2);
      expect(Quantity.milli(7, 'DecimalSI').value()).to.equal(1);
      expect(Quantity.of(5, 'DecimalSI').value()).to.equal(5);
      expect(Quantity.scaled(2, 3).value()).to.equal(2000);
    });

    it('MilliValue() scales whole units and positive scales up', () => {
      expect(Quantity.of(2, 'DecimalSI').milliValue()).to.equal(2000);
      expect(Quantity.of(-3, 'DecimalSI').milliValue()).to.equal(-3000);
      expect(Quantity.scaled(2, 3).milliValue()).to.equal(2000000);
      expect(Quantity.milli(1500, 'DecimalSI').milliValue()).to.equal(1500);
    });

    it('rejects a number that an int64 cannot hold exactly', () => {
      expect(() => Quantity.of(1.5, 'DecimalSI')).to.throw(RangeError, /1\.5 is not a safe integer/);
      expect(() => Quantity.milli(2 ** 53, 'DecimalSI')).to.throw(RangeError, /is not a safe integer/);
      expect(() => Quantity.scaled(Number.NaN, 0)).to.throw(RangeError, /is not a safe integer/);
      expect(Quantity.milli(2n ** 53n, 'DecimalSI').toString()).to.equal('9007199254740992m');
    });
  });

  describe('Sign and IsZero', () => {
    const CASES: [string, Quantity, number][] = [
      ['0', parseQuantity('0'), 0],
      ['25m', parseQuantity('25m'), 1],
      ['-5m', parseQuantity('-5m'), -1],
      ['-1.5Gi (inf.Dec)', parseQuantity('-1.5Gi'), -1],
      ['NewQuantity(-3)', Quantity.of(-3, 'DecimalSI'), -1],
      ['NewMilliQuantity(7)', Quantity.milli(7, 'DecimalSI'), 1],
      ['NewQuantity(0, BinarySI)', Quantity.of(0, 'BinarySI'), 0],
    ];
    for (const [name, q, sign] of CASES) {
      it(`${name}: Sign() ${sign}`, () => expect(q.sign()).to.equal(sign));
    }

    it('IsZero() of constructed quantities', () => {
      expect(Quantity.of(0, 'DecimalSI').isZero()).to.equal(true);
      expect(Quantity.milli(0, 'DecimalSI').isZero()).to.equal(true);
      expect(Quantity.of(3, 'DecimalSI').isZero()).to.equal(false);
      expect(Quantity.milli(-1, 'DecimalSI').isZero()).to.equal(false);
    });
  });

  describe('DecimalSI beyond the suffix table', () => {
    // v0.37.1 CanonicalizeBytes: `suffix, _ := quantitySuffixer.constructBytes(10, exponent, format)`: an exponent
    // with no DecimalSI suffix (above E = 10^18) gets none, so 1000E prints as "1". Later apimachinery falls back
    // to "e" notation ("1e21"): this pins the v0.37.1 behaviour the oracles use.
    it('prints no suffix for 10^21 (v0.37.1)', () => {
      expect(parseQuantity('1000E').toString()).to.equal('1');
      expect(Quantity.scaled(1, 21).toString()).to.equal('1');
      expect(Quantity.scaled(15, 20).toString()).to.equal('1500E');
    });
  });

  describe('tryParseQuantity and quantityMilli', () => {
    it('return the quantity, or undefined for text ParseQuantity rejects', () => {
      expect(tryParseQuantity('1500m')?.toString()).to.equal('1500m');
      expect(tryParseQuantity('1Mx')).to.equal(undefined);
      expect(tryParseQuantity('')).to.equal(undefined);
      expect(quantityMilli('1.5')).to.equal(1500);
      expect(quantityMilli('1kk')).to.equal(undefined);
    });

    it('rethrow errors that are not about the text (a non-string argument)', () => {
      expect(() => tryParseQuantity(undefined as unknown as string)).to.throw(TypeError);
    });
  });

  describe('formatCores (float cores to NewMilliQuantity(ceil(cores*1000)).String())', () => {
    const CASES: [number, string][] = [
      [12.5, '12500m'],
      [123, '123'],
      [-1.5, '-1500m'],
      [-2, '-2'],
      [1.5e-7, '1m'], // String() is "1.5e-7"
      [1e-7, '1m'],
      [1.5e21, '1500E'], // String() is "1.5e+21": 1.5×10^21 = NewScaledQuantity(15, 20) = "1500E"
    ];
    for (const [cores, str] of CASES) {
      it(`${cores} cores is ${str}`, () => expect(formatCores(cores)).to.equal(str));
    }

    it('rejects NaN and infinities', () => {
      expect(() => formatCores(Number.NaN)).to.throw(RangeError, 'cannot format NaN cores');
      expect(() => formatCores(Number.POSITIVE_INFINITY)).to.throw(RangeError, 'cannot format Infinity cores');
    });
  });
});
