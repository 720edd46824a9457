// The margin estimator's rounding, from first principles of upstream recommender/logic/estimator.go
// (marginEstimator.GetResourceEstimation: originalResources[resource] + model.ScaleResource(value, margin),
// where ScaleResource is ResourceAmount(float64(amount) * factor), i.e. truncation of the product).
// base + trunc(base*m) and trunc(base*(1+m)) agree in exact arithmetic but not in float64, where 1 + m is
// rounded first: 100 * 1.15 = 114.99999999999999. The conformance vectors hold one margin case only, so
// these pin the formula without the Go oracle.
import { expect } from 'chai';
import { withMargin } from '../../../../src/vpa/logic/estimators.ts';
import type { AggregateContainerState } from '../../../../src/vpa/model/aggregate-container-state.ts';

const state = {} as AggregateContainerState; // the constant base estimators below never read it
const constant = (v: number) => () => v;

describe('withMargin (upstream marginEstimator)', () => {
  it('adds the truncated margin to the base: 100 m with 15 % is 115 m, not trunc(100 x 1.15) = 114', () => {
    expect(100 * 1.15).to.be.lessThan(115); // the float64 fact the formula is sensitive to
    expect(withMargin(0.15, constant(100))(state)).to.equal(115);
  });
  it('truncates the margin itself: 7 m with 15 % is 7 + trunc(1.05) = 8; 1 GiB with 15 % adds 161061273 bytes', () => {
    expect(withMargin(0.15, constant(7))(state)).to.equal(8);
    expect(withMargin(0.15, constant(1073741824))(state)).to.equal(1073741824 + 161061273);
  });
  it('zero margin and zero base leave the base unchanged', () => {
    expect(withMargin(0, constant(12345))(state)).to.equal(12345);
    expect(withMargin(0.15, constant(0))(state)).to.equal(0);
  });
});
