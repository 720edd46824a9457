// The seasonal estimators of `auto` mode (src/prediction/dsp/seasonal-estimators.ts), pinned value by value.
// Expected values are worked out by hand (or, for Holt-Winters, by the recurrences below in exact fractions;
// every weight is a power of two, so the doubles are exact and the comparison is equality). A naive circular
// window maximum is the reference for the deque-based movingMax.
import { expect } from 'chai';
import { movingMax, seasonalEstimate, seasonalEstimatorName } from '../../../../src/prediction/dsp/seasonal-estimators.ts';
import { SeededRandom } from '../../../../src/prediction/dsp/seeded-random.ts';

const at1Hz = (xs: number[]) => ({ sampleRate: 1, samples: Float64Array.from(xs) });
const HALF = { alpha: 0.5, beta: 0.5, gamma: 0.5 };

describe('prediction/dsp seasonal estimators, value by value', () => {
  it('names say the kind and its parameters', () => {
    expect(seasonalEstimatorName({ kind: 'seasonalNaive' })).to.equal('seasonal naive (last period)');
    expect(seasonalEstimatorName({ kind: 'periodMean' })).to.equal('mean of past periods');
    expect(seasonalEstimatorName({ kind: 'periodQuantile', quantile: 0.75 })).to.equal('P75 of past periods');
    expect(seasonalEstimatorName({ kind: 'periodQuantile', quantile: 0.905 })).to.equal('P91 of past periods');
    expect(seasonalEstimatorName({ kind: 'holtWinters', alpha: 0.05, beta: 0.001, gamma: 0.3, phi: 0.98 })).to.equal(
      'damped Holt-Winters {alpha: 0.05, beta: 0.001, gamma: 0.3, phi: 0.98}',
    );
  });

  it('per-phase statistics use whole periods aligned to the end: a leading partial period is dropped', () => {
    // Period 4, ten samples: the first two (100, 100) belong to no whole period ending at the last sample.
    const s = at1Hz([100, 100, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(Array.from(seasonalEstimate({ kind: 'seasonalNaive' }, s, 4))).to.deep.equal([5, 6, 7, 8]);
    expect(Array.from(seasonalEstimate({ kind: 'periodMean' }, s, 4))).to.deep.equal([3, 4, 5, 6]);
    expect(Array.from(seasonalEstimate({ kind: 'periodQuantile', quantile: 0 }, s, 4))).to.deep.equal([1, 2, 3, 4]);
  });

  it('the per-phase quantile interpolates linearly between order statistics (numpy type 7)', () => {
    // One phase, five periods of 1 sample each: the column is [40, 10, 30, 20, 50], sorted 10..50.
    const s = at1Hz([40, 10, 30, 20, 50]);
    const q = (quantile: number) => seasonalEstimate({ kind: 'periodQuantile', quantile }, s, 1)[0];
    expect(q(0)).to.equal(10);
    expect(q(1)).to.equal(50);
    expect(q(0.5)).to.equal(30);
    // Position 0.75 × 4 = 3: exactly the 4th smallest.
    expect(q(0.75)).to.equal(40);
    // Position 0.625 × 4 = 2.5: halfway between 30 and 40.
    expect(q(0.625)).to.equal(35);
    // Position 0.1 × 4 = 0.4: 10 + 0.4 × (20 − 10).
    expect(q(0.1)).to.be.closeTo(14, 1e-12);
    // A single period: its own values, whatever the quantile.
    expect(Array.from(seasonalEstimate({ kind: 'periodQuantile', quantile: 0.3 }, at1Hz([7, 9]), 2))).to.deep.equal([7, 9]);
  });

  // Damped additive Holt-Winters, the form in the source: initial level the mean of the first period, trend
  // the difference of the first two periods' means over the period length, season the first period minus the
  // level; then per sample ℓ = α(y − s) + (1 − α)(ℓ' + φb), b = β(ℓ − ℓ') + (1 − β)φb, s = γ(y − ℓ) + (1 − γ)s;
  // forecast h + 1 = max(0, ℓ + (φ + … + φ^(h+1))·b + s_h).
  it('Holt-Winters, three periods, φ = 1: the hand-computed recurrence', () => {
    // ℓ 2 → 11/4 → 51/16 → 243/64 → 1083/256; b 1/2 → 5/8 → 17/32 → 73/128 → 257/512;
    // seasons end at −107/128 and 429/512. Forecast: 1083/256 + 257/512 − 107/128, 1083/256 + 2·257/512 + 429/512.
    const f = seasonalEstimate({ kind: 'holtWinters', ...HALF, phi: 1 }, at1Hz([1, 3, 2, 4, 3, 5]), 2);
    expect(Array.from(f)).to.deep.equal([1995 / 512, 3109 / 512]);
  });

  it('Holt-Winters with damping (φ = 1/2) and a leading partial period', () => {
    // The leading 9 is dropped; then ℓ ends at 15467/4096, b at 2065/8192, seasons −637/1024 and 9269/8192.
    // Forecast: ℓ + ½b + s₀ and ℓ + ¾b + s₁.
    const f = seasonalEstimate({ kind: 'holtWinters', ...HALF, phi: 0.5 }, at1Hz([9, 1, 3, 2, 4, 3, 5]), 2);
    expect(Array.from(f)).to.deep.equal([53741 / 16384, 167007 / 32768]);
  });

  it('Holt-Winters: the phase of a sample counts from the first whole period, not from the series start', () => {
    // Period 3 after one leading sample (7, dropped): a phase taken from the series start would be off by one.
    // The recurrence in exact fractions gives 177659/36864, 8791/1024 and 40277/6144 (thirds are not exact
    // in binary, hence the tolerance).
    const f = seasonalEstimate({ kind: 'holtWinters', ...HALF, phi: 1 }, at1Hz([7, 1, 4, 2, 2, 6, 3, 3, 7, 5]), 3);
    const expected = [177659 / 36864, 8791 / 1024, 40277 / 6144];
    f.forEach((v, i) => expect(v).to.be.closeTo(expected[i] as number, 1e-12));
  });

  it('Holt-Winters on exactly two periods takes its trend from them', () => {
    // ℓ₀ = 2, b₀ = (3 − 2)/2 = 1/2, s = [−1, 1]; after 2, 4: ℓ = 51/16, b = 17/32, s = [−7/8, 29/32].
    const f = seasonalEstimate({ kind: 'holtWinters', ...HALF, phi: 1 }, at1Hz([1, 3, 2, 4]), 2);
    expect(Array.from(f)).to.deep.equal([91 / 32, 165 / 32]);
  });

  it('Holt-Winters on one period has no trend and repeats the period', () => {
    const f = seasonalEstimate({ kind: 'holtWinters', ...HALF, phi: 0.5 }, at1Hz([2, 6, 4]), 3);
    expect(Array.from(f)).to.deep.equal([2, 6, 4]);
  });

  it('a Holt-Winters forecast below zero is clamped to zero, not just the negative part of the series', () => {
    // ℓ₀ = 5, b₀ = −5/4, s = [5, −5]; after 5, 0: ℓ = 75/32, b = −55/64, s = [65/16, −235/64].
    // Forecast: 75/32 − 55/64 + 65/16 = 355/64; 75/32 − 110/64 − 235/64 = −195/64 → 0.
    const f = seasonalEstimate({ kind: 'holtWinters', ...HALF, phi: 1 }, at1Hz([10, 0, 5, 0]), 2);
    expect(Array.from(f)).to.deep.equal([355 / 64, 0]);
  });

  it('movingMax equals a naive circular window maximum, for every half-width up to beyond the length', () => {
    const rng = new SeededRandom(9);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + (rng.nextUint32() % 12);
      // Few distinct values, so ties (the deque's `<=`) are common.
      const x = Float64Array.from({ length: n }, () => rng.nextUint32() % 4);
      const hw = 1 + (rng.nextUint32() % (n + 3));
      const naive = Array.from({ length: n }, (_, i) => {
        let m = -Infinity;
        for (let d = -hw; d <= hw; d++) m = Math.max(m, x[(((i + d) % n) + n) % n] as number);
        return m;
      });
      expect(Array.from(movingMax(x, hw)), `x=${Array.from(x).join(',')} hw=${hw}`).to.deep.equal(naive);
    }
  });

  it('movingMax with no half-width is the series itself', () => {
    const x = Float64Array.from([3, 1, 4]);
    expect(movingMax(x, 0)).to.equal(x);
    expect(movingMax(x, -2)).to.equal(x);
  });
});
