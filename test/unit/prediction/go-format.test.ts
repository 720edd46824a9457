import { expect } from 'chai';
import { formatGoFixed5 } from '../../../src/prediction/go-format.ts';

// Expected strings printed by Go 1.26 fmt.Printf("%.5f") for the same float64 values.
const GO: [number, string][] = [
  [0.015625, '0.01562'], // exact tie: Go rounds half to even, toFixed would give 0.01563
  [0.046875, '0.04688'], // exact tie, rounds up to even
  [1.234565, '1.23456'], // binary value just below the tie
  [2.5e-6, '0.00000'],
  [7.5e-6, '0.00001'],
  [-1.000005, '-1.00001'],
  [123456789.12345679, '123456789.12346'],
  [1e22, '10000000000000000000000.00000'],
  [3.14159265, '3.14159'],
  [Infinity, '+Inf'],
  [0.1, '0.10000'],
  [1.999995, '1.99999'],
  [5e-324, '0.00000'],
  [-0, '-0.00000'],
  [-0.000001, '-0.00000'],
];

describe('prediction go-format', () => {
  for (const [x, want] of GO) it(`formats ${x} as Go %.5f: ${want}`, () => expect(formatGoFixed5(x)).to.equal(want));
  it('formats NaN and -Inf like Go', () => {
    expect(formatGoFixed5(NaN)).to.equal('NaN');
    expect(formatGoFixed5(-Infinity)).to.equal('-Inf');
  });
});
