// Crane's percentile `aggregated` switch (docs/crane-behaviour.md §E.2; gocrane/crane pkg/prediction/percentile
// prediction.go initFromHistory/process): with `aggregated: true` every sample of every series the query
// returns goes into one histogram, and the answer is one series without labels; with `false` each label
// set gets its own histogram. Aggregating here means one input series holding all the samples, so the
// estimate itself (percentile-forecast.ts) does not change. Pure.
import type { HistorySeries } from '../../prometheus/series.ts';

/**
 * All samples of `series` as one unlabelled series, ordered by timestamp (samples at the same instant
 * keep their input order). The histogram ignores order; the ordering is for the forecast, which reads
 * the history up to `now` and starts after its last sample.
 */
export function mergeSeries(series: readonly HistorySeries[]): HistorySeries {
  const idx: { t: number; v: number }[] = [];
  for (const s of series) {
    for (let i = 0; i < s.timestamps.length; i++) idx.push({ t: s.timestamps[i] as number, v: s.values[i] as number });
  }
  // Array.prototype.sort is stable, so samples at one instant keep their input order.
  idx.sort((a, b) => a.t - b.t);
  return { labels: {}, timestamps: idx.map((x) => x.t), values: idx.map((x) => x.v) };
}
