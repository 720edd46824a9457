// Crane's history preprocessing (pkg/prediction/dsp/preprocessing.go, docs/crane-behaviour.md §D.6): keep the data after the
// last gap longer than an hour, fill shorter gaps linearly, keep the last whole hours, then replace extreme
// outliers (outside P0.1..P99.9) by the previous value.

export interface TimeSeries {
  /** Unix seconds, ascending. */
  timestamps: ArrayLike<number>;
  values: ArrayLike<number>;
}

export interface RegularSeries {
  /** Timestamp of values[0], unix seconds. */
  start: number;
  intervalSeconds: number;
  values: Float64Array;
}

/** The largest gap Crane bridges by interpolation; a longer one discards everything before it. */
export const MAX_GAP_SECONDS = 3600;

export class InvalidSeriesError extends Error {
  override name = 'InvalidSeriesError';
}

/**
 * Crane's fillMissingData: regularizes the series at `intervalSeconds`, keeping the last whole `unitSeconds`
 * (Crane: one hour). Throws InvalidSeriesError for an empty series, timestamps out of order or off the
 * interval grid (Crane drops such a series).
 */
export function fillMissingData(ts: TimeSeries, intervalSeconds: number, unitSeconds = 3600): RegularSeries {
  const t = ts.timestamps;
  const v = ts.values;
  if (t.length !== v.length) throw new InvalidSeriesError('timestamps and values differ in length');
  if (t.length === 0) throw new InvalidSeriesError('empty time series');
  let first = 0;
  for (let i = 1; i < t.length; i++) {
    const diff = (t[i] as number) - (t[i - 1] as number);
    if (diff > MAX_GAP_SECONDS) {
      first = i;
      continue;
    }
    if (diff <= 0 || diff % intervalSeconds !== 0) {
      throw new InvalidSeriesError(
        `invalid time series: samples at ${t[i - 1]} and ${t[i]} are not a positive multiple of ${intervalSeconds}s apart`,
      );
    }
  }
  const filled: number[] = [v[first] as number];
  for (let i = first + 1; i < t.length; i++) {
    const times = ((t[i] as number) - (t[i - 1] as number)) / intervalSeconds;
    const prev = v[i - 1] as number;
    const unitDiff = ((v[i] as number) - prev) / times;
    for (let j = 1; j < times; j++) filled.push(prev + unitDiff * j);
    filled.push(v[i] as number);
  }
  const perUnit = Math.trunc(unitSeconds / intervalSeconds);
  const begin = perUnit > 0 ? filled.length % perUnit : filled.length;
  return {
    start: (t[first] as number) + begin * intervalSeconds,
    intervalSeconds,
    values: Float64Array.from(filled.slice(begin)),
  };
}

/** montanaflynn/stats v0.6.6 Percentile (the version Crane pins): NaN where that version returns an error. */
export function stats066Percentile(values: ArrayLike<number>, percent: number): number {
  const n = values.length;
  if (n === 0) return NaN;
  if (n === 1) return values[0] as number;
  if (percent <= 0 || percent > 100) return NaN;
  const c = Float64Array.from(values).sort();
  const index = (percent / 100) * n;
  if (index === Math.trunc(index)) return c[index - 1] as number;
  if (index > 1) {
    const i = Math.trunc(index);
    return ((c[i - 1] as number) + (c[i] as number)) / 2;
  }
  return NaN;
}

/** Crane's removeExtremeOutliers, in place; the replacement cascades and sample 0 is never replaced. */
export function removeExtremeOutliers(values: Float64Array): void {
  const high = stats066Percentile(values, 99.9);
  const low = stats066Percentile(values, 0.1);
  // Crane ignores the error (fewer than 1000 samples): nothing is removed.
  if (Number.isNaN(high) || Number.isNaN(low)) return;
  for (let i = 1; i < values.length; i++) {
    const x = values[i] as number;
    if (x > high || x < low) values[i] = values[i - 1] as number;
  }
}

/** preProcessTimeSeries: fill, (no-op detrend), clamp outliers. */
export function preprocess(ts: TimeSeries, intervalSeconds: number): RegularSeries {
  const regular = fillMissingData(ts, intervalSeconds, 3600);
  removeExtremeOutliers(regular.values);
  return regular;
}
