// What `auto` returns when no daily or weekly period is found (Crane returns nothing and the TSP never gets
// ready): a flat forecast at an upper quantile of the recent past. Load without a cycle is best described by
// its recent level and spread (here: an upper quantile of the last hour); the horizon is kept short because that description ages quickly.

export interface ShortHorizonConfig {
  /** How much recent history sets the level, seconds. */
  lookbackSeconds: number;
  quantile: number;
  /** Longest horizon served, seconds. */
  maxHorizonSeconds: number;
}

export const DEFAULT_SHORT_HORIZON: ShortHorizonConfig = {
  // Chosen on the non-periodic traces in test/fixtures/traces (2h horizons cut every 6h over their last 3 days):
  // P99 of the last hour under-predicted 12% of points at 36% over-provisioning, which dominates the
  // P95 of 6h (15%, 43%); longer lookbacks buy fewer misses with far more over-provisioning.
  lookbackSeconds: 3600,
  quantile: 0.99,
  maxHorizonSeconds: 2 * 3600,
};

/** The flat value: the configured quantile of the last lookback window (NaN for an empty series). */
export function recentQuantileLevel(values: ArrayLike<number>, intervalSeconds: number, config: ShortHorizonConfig): number {
  const take = Math.max(1, Math.floor(config.lookbackSeconds / intervalSeconds));
  const start = Math.max(0, values.length - take);
  const window = Float64Array.from(Array.prototype.slice.call(values, start) as number[]).sort();
  if (window.length === 0) return NaN;
  const pos = config.quantile * (window.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(window.length - 1, lo + 1);
  return (window[lo] as number) + ((window[hi] as number) - (window[lo] as number)) * (pos - lo);
}
