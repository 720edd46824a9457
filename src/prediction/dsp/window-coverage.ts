// Scores a forecast the way the HPA uses it. The HPA never reads a forecast point by point: the adapter
// serves the largest forecast value in the next prediction window (src/metric-values/forecast-window.ts),
// split over the pods. A forecast is good when that window maximum is at or above the window's real maximum
// (enough pods) with little to spare (no waste). Everything here works on (forecast max, actual max) pairs.

export interface WindowPair {
  /** Largest forecast value in the window. */
  forecastMax: number;
  /** Largest observed value in the same window. */
  actualMax: number;
}

/** Share of windows whose forecast maximum, times k, is at or above the actual maximum (0..1; NaN when empty). */
export function coverage(pairs: readonly WindowPair[], k = 1): number {
  if (pairs.length === 0) return NaN;
  let covered = 0;
  // Scaled forecasts are judged by their ratio, so that the multiplier computed from a window's ratio covers
  // that window whatever the rounding of k × forecast.
  for (const p of pairs) if (k === 1 ? p.forecastMax >= p.actualMax : coverRatio(p) <= k) covered++;
  return covered / pairs.length;
}

/** Σ max(0, k·forecast max − actual max) / Σ actual max: capacity bought beyond the peak, as a share of it. */
export function slack(pairs: readonly WindowPair[], k = 1): number {
  return columnSlack(
    pairs.map((p) => p.forecastMax),
    pairs.map((p) => p.actualMax),
    k,
  );
}

/** slack() over two columns of the same length (window i: forecastMax[i], actualMax[i]), with no pairs built. */
export function columnSlack(forecastMax: ArrayLike<number>, actualMax: ArrayLike<number>, k = 1): number {
  if (!Number.isFinite(k)) return Infinity;
  let over = 0;
  let total = 0;
  for (let i = 0; i < actualMax.length; i++) {
    over += Math.max(0, k * (forecastMax[i] as number) - (actualMax[i] as number));
    total += actualMax[i] as number;
  }
  return total > 0 ? over / total : over > 0 ? Infinity : 0;
}

/**
 * The multiplier that makes a forecast maximum cover an actual maximum: actual / forecast. A window with no
 * load (actual ≤ 0) is covered by any multiplier (0); a positive peak under a forecast of zero by none (∞).
 */
export function coverRatio(p: WindowPair): number {
  return ratioOf(p.forecastMax, p.actualMax);
}

/** coverRatio of one window given as two numbers (no pair object: the calibration's grid asks for ~10^6). */
export function ratioOf(forecastMax: number, actualMax: number): number {
  if (actualMax <= 0) return 0;
  if (forecastMax <= 0) return Infinity;
  return actualMax / forecastMax;
}

/** Ratios sorted ascending. */
function sortedRatios(pairs: readonly WindowPair[]): Float64Array {
  return Float64Array.from(pairs, coverRatio).sort();
}

/**
 * The smallest multiplier k with coverage(pairs, k) ≥ q: the ⌈q·n⌉-th smallest ratio (∞ when that window
 * can never be covered, NaN for no pairs). Compares forecast shapes independently of their margin.
 */
export function multiplierForCoverage(pairs: readonly WindowPair[], q: number): number {
  const r = sortedRatios(pairs);
  if (r.length === 0) return NaN;
  const rank = Math.min(r.length, Math.max(1, Math.ceil(q * r.length - 1e-9)));
  return Math.max(0, r[rank - 1] as number);
}

/**
 * Split-conformal multiplier: the ⌈(n+1)·q⌉-th smallest of n backtest ratios. For exchangeable windows a
 * new window is then covered with probability ≥ q (Vovk et al., "Algorithmic Learning in a Random World",
 * 2005; Lei et al. 2018, "Distribution-free predictive inference for regression", §2.2). When the rank
 * exceeds n the sample is too small for the guarantee and the largest ratio is returned with `exact: false`.
 */
export function conformalMultiplier(ratios: ArrayLike<number>, q: number): { multiplier: number; exact: boolean } {
  return conformalMultiplierInPlace(Float64Array.from(ratios as ArrayLike<number>), q);
}

/** conformalMultiplier on ratios the caller lets it reorder (a scratch copy it reuses). */
export function conformalMultiplierInPlace(r: Float64Array, q: number): { multiplier: number; exact: boolean } {
  const n = r.length;
  if (n === 0) return { multiplier: NaN, exact: false };
  const rank = Math.ceil((n + 1) * q - 1e-9);
  if (rank > n) return { multiplier: Math.max(0, kthSmallest(r, n) as number), exact: false };
  return { multiplier: Math.max(0, kthSmallest(r, Math.max(1, rank)) as number), exact: true };
}

/**
 * The k-th smallest value (1-based) of `r`, reordering `r`: Hoare's selection, linear on average, where a
 * sort is n log n (the calibration's blend search asks for thousands of these per fit). Ordered as a
 * Float64Array sort orders (NaN after every number).
 */
export function kthSmallest(r: Float64Array, k: number): number {
  const less = (a: number, b: number) => a < b || (b !== b && a === a);
  let lo = 0;
  let hi = r.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = r[(lo + hi) >> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (less(r[i] as number, pivot)) i++;
      while (less(pivot, r[j] as number)) j--;
      if (i <= j) {
        const t = r[i] as number;
        r[i] = r[j] as number;
        r[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return r[target] as number;
}

export interface WindowScore {
  windows: number;
  /** 0..1 */
  coverage: number;
  slack: number;
  /** Smallest multiplier reaching `level` coverage, and the slack it costs. */
  multiplierAtLevel: number;
  slackAtLevel: number;
}

export function scoreWindows(pairs: readonly WindowPair[], level = 0.9): WindowScore {
  const k = multiplierForCoverage(pairs, level);
  return { windows: pairs.length, coverage: coverage(pairs), slack: slack(pairs), multiplierAtLevel: k, slackAtLevel: slack(pairs, k) };
}

// --- realized coverage of the forecasts a controller published ---

export interface KeptForecast {
  /** When the forecast was published (unix seconds); it is in force until the next one. */
  madeAt: number;
  /** Unix seconds ascending, and the values. */
  timestamps: ArrayLike<number>;
  values: ArrayLike<number>;
}

export interface RealizedCoverage {
  /** Windows judged (those fully in the past with a forecast in force at their start). */
  windows: number;
  covered: number;
  /** covered / windows; NaN when no window could be judged. */
  coverage: number;
}

/** First index with timestamps[i] ≥ from (ascending timestamps). */
function lowerBound(timestamps: ArrayLike<number>, from: number): number {
  let lo = 0;
  let hi = timestamps.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((timestamps[mid] as number) < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Largest value with from ≤ t ≤ to, or from < t ≤ to when `openStart`. */
function maxIn(timestamps: ArrayLike<number>, values: ArrayLike<number>, from: number, to: number, openStart = false): number | undefined {
  let best: number | undefined;
  // A binary search to the window: the controller judges a day of instants against days of history.
  for (let i = lowerBound(timestamps, from); i < timestamps.length; i++) {
    const t = timestamps[i] as number;
    if (openStart && t <= from) continue;
    if (t > to) break;
    const v = values[i] as number;
    if (best === undefined || v > best) best = v;
  }
  return best;
}

/**
 * Realized coverage over the last `lookbackSeconds` (default one day): at every `strideSeconds` instant t
 * whose window [t, t + window] has fully elapsed by `now`, the window maximum of the forecast in force at t
 * (the newest kept forecast made at or before t, over its samples in [t, t + window], as the adapter serves
 * it) against the largest observed value in (t, t + window]. Instants without a forecast in force, without
 * forecast samples in the window or without observations in it are not judged.
 */
export function realizedCoverage(
  kept: readonly KeptForecast[],
  actual: { timestamps: ArrayLike<number>; values: ArrayLike<number> },
  o: { now: number; windowSeconds: number; strideSeconds: number; lookbackSeconds?: number },
): RealizedCoverage {
  if (!(o.strideSeconds > 0) || !(o.windowSeconds > 0)) throw new RangeError('window and stride must be positive');
  const sorted = [...kept].sort((a, b) => a.madeAt - b.madeAt);
  const from = o.now - (o.lookbackSeconds ?? 86_400);
  let windows = 0;
  let covered = 0;
  let j = -1;
  for (let t = from; t + o.windowSeconds <= o.now; t += o.strideSeconds) {
    while (j + 1 < sorted.length && (sorted[j + 1] as KeptForecast).madeAt <= t) j++;
    if (j < 0) continue;
    const f = sorted[j] as KeptForecast;
    const fmax = maxIn(f.timestamps, f.values, t, t + o.windowSeconds);
    // Open at t (a strict comparison: an epsilon added to a unix time of ~1.8e9 rounds away).
    const amax = maxIn(actual.timestamps, actual.values, t, t + o.windowSeconds, true);
    if (fmax === undefined || amax === undefined) continue;
    windows++;
    if (fmax >= amax) covered++;
  }
  return { windows, covered, coverage: windows ? covered / windows : NaN };
}
