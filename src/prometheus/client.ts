// The process's one Prometheus client, for every loop that reads Prometheus (TSP history, the adapter's
// observed-usage fallback, the VPA recommender's current usage and start-up history):
// - `queryRange`: `query_range` split into chunks Prometheus accepts (at most `maxPoints` points per series,
//   11,000 by default, Crane's --prometheus-maxpoints, docs/crane-behaviour.md §D.3) and joined back into one
//   series per label set; gaps stay gaps;
// - `queryInstant`: `query` at now, one sample per series.
// NaN/Inf samples are dropped; errors are thrown as PrometheusError for the caller to turn into a condition,
// never a crash.
import { labelKey, type HistoryProvider, type HistorySeries } from './series.ts';

export class PrometheusError extends Error {
  override name = 'PrometheusError';
}

export interface PrometheusOptions {
  url: string;
  timeoutMs?: number;
  maxPoints?: number;
  fetch?: typeof fetch;
}

/** [start, end] pairs covering [startS, endS] on the step grid, each with at most maxPoints points. */
export function splitRange(startS: number, endS: number, stepS: number, maxPoints: number): [number, number][] {
  if (!(stepS > 0)) throw new PrometheusError(`step must be positive, got ${stepS}`);
  if (maxPoints < 1) throw new PrometheusError('maxPoints must be at least 1');
  const out: [number, number][] = [];
  const span = stepS * (maxPoints - 1);
  for (let s = startS; s <= endS; s += span + stepS) out.push([s, Math.min(endS, s + span)]);
  return out;
}

interface MatrixResponse {
  status: 'success' | 'error';
  error?: string;
  errorType?: string;
  data?: { resultType: string; result: { metric: Record<string, string>; values?: [number, string][] }[] };
}

/** Turns a `query_range` matrix into series, dropping samples whose value is not a finite number. */
export function parseMatrix(body: MatrixResponse): HistorySeries[] {
  if (body.status !== 'success') throw new PrometheusError(`prometheus: ${body.errorType ?? 'error'}: ${body.error ?? 'unknown error'}`);
  if (!body.data || body.data.resultType !== 'matrix') throw new PrometheusError(`prometheus: expected a matrix, got ${body.data?.resultType}`);
  return body.data.result.map((r) => {
    const timestamps: number[] = [];
    const values: number[] = [];
    for (const [t, v] of r.values ?? []) {
      const x = Number(v);
      if (!Number.isFinite(x)) continue;
      timestamps.push(Number(t));
      values.push(x);
    }
    return { labels: { ...r.metric }, timestamps, values };
  });
}

/** Joins chunked results per label set, in time order, later chunks winning on a shared timestamp. */
export function joinSeries(chunks: HistorySeries[][]): HistorySeries[] {
  const byKey = new Map<string, { labels: Record<string, string>; points: Map<number, number> }>();
  for (const chunk of chunks) {
    for (const s of chunk) {
      const key = labelKey(s.labels);
      let e = byKey.get(key);
      if (!e) byKey.set(key, (e = { labels: s.labels, points: new Map() }));
      for (let i = 0; i < s.timestamps.length; i++) e.points.set(s.timestamps[i] as number, s.values[i] as number);
    }
  }
  return [...byKey.values()].map(({ labels, points }) => {
    const ts = [...points.keys()].sort((a, b) => a - b);
    return { labels, timestamps: ts, values: ts.map((t) => points.get(t) as number) };
  });
}

interface VectorResponse {
  status: 'success' | 'error';
  error?: string;
  errorType?: string;
  data?: { resultType: string; result: { metric: Record<string, string>; value?: [number, string] }[] };
}

/** One sample of an instant query: the series' labels, its time (unix seconds) and a finite value. */
export interface InstantSample {
  labels: Record<string, string>;
  time: number;
  value: number;
}

/** Turns an instant-query vector into samples, dropping those whose value is not a finite number. */
export function parseVector(body: VectorResponse): InstantSample[] {
  if (body.status !== 'success') throw new PrometheusError(`prometheus: ${body.errorType ?? 'error'}: ${body.error ?? 'unknown error'}`);
  if (body.data?.resultType !== 'vector') throw new PrometheusError(`prometheus: expected a vector, got ${body.data?.resultType}`);
  const out: InstantSample[] = [];
  for (const r of body.data.result) {
    const v = Number(r.value?.[1]);
    if (!r.value || !Number.isFinite(v)) continue;
    out.push({ labels: r.metric, time: r.value[0], value: v });
  }
  return out;
}

/** Text with the credentials of every URL in it removed (`https://user:pass@host` → `https://host`), for
 *  anything a user may read. */
export function redactUrl(text: string): string {
  return text.replace(/\/\/[^/@\s]*@/g, '//');
}

export class PrometheusClient implements HistoryProvider {
  private readonly base: string;
  /** The base URL as errors show it: credentials in --prometheus-url must not reach statuses and events. */
  private readonly shownBase: string;
  private readonly fetch: typeof fetch;
  /** Requests sent (benchmarks, metrics). */
  requests = 0;

  constructor(private readonly o: PrometheusOptions) {
    this.base = o.url.replace(/\/+$/, '');
    this.shownBase = redactUrl(this.base);
    this.fetch = o.fetch ?? fetch;
  }

  async queryRange(query: string, startS: number, endS: number, stepS: number): Promise<HistorySeries[]> {
    const chunks: HistorySeries[][] = [];
    for (const [s, e] of splitRange(startS, endS, stepS, this.o.maxPoints ?? 11_000)) {
      const params = { query, start: String(s), end: String(e), step: String(stepS) };
      chunks.push(parseMatrix((await this.post('query_range', params)) as MatrixResponse));
    }
    return joinSeries(chunks);
  }

  async queryInstant(query: string): Promise<InstantSample[]> {
    return parseVector((await this.post('query', { query })) as VectorResponse);
  }

  private async post(api: 'query' | 'query_range', params: Record<string, string>): Promise<unknown> {
    this.requests++;
    let res: Response;
    try {
      res = await this.fetch(`${this.base}/api/v1/${api}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(params).toString(),
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 180_000),
      });
    } catch (e) {
      throw new PrometheusError(`prometheus unreachable at ${this.shownBase}: ${redactUrl((e as Error).message)}`);
    }
    try {
      return await res.json();
    } catch {
      throw new PrometheusError(`prometheus answered ${res.status} with a body that is not JSON`);
    }
  }
}
