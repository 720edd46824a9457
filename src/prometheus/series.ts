// History as the forecasters consume it: one series per Prometheus label set, columns of unix seconds
// and values. Structurally a superset of the DSP module's `TimeSeries {timestamps, values}`.

export interface HistorySeries {
  labels: Record<string, string>;
  /** Unix seconds, ascending, no duplicates. */
  timestamps: number[];
  /** Finite values only: NaN/Inf samples are dropped on the way in. */
  values: number[];
}

export interface QueryRangeOptions {
  /** Aborts the read (between chunks and mid-request): the object it was for was deleted or edited. */
  signal?: AbortSignal;
  /** Fail the query when it returns more series than this (a tenant's query that forgot to aggregate). */
  maxSeries?: number;
  /** The namespace the query is for: its requests share that namespace's slots (--prometheus-max-concurrency-per-namespace). */
  namespace?: string;
}

export interface HistoryProvider {
  /** `query_range` over [startS, endS] at `stepS`; long ranges are split and joined by the provider. */
  queryRange(query: string, startS: number, endS: number, stepS: number, options?: QueryRangeOptions): Promise<HistorySeries[]>;
}

/** Canonical key of a label set (sorted "k=v" joined by ","), Crane's per-series key (docs/crane-behaviour.md §D.9). */
export function labelKey(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}
