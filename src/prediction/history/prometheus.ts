// Prometheus history provider: `query_range` split into chunks Prometheus accepts (at most `maxPoints`
// points per series, 11,000 by default, Crane's --prometheus-maxpoints, docs/crane-behaviour.md §D.3) and joined back into one
// series per label set. Gaps stay gaps; NaN/Inf samples are dropped; errors are thrown as
// PrometheusError for the caller to turn into a condition, never a crash.
import { labelKey, type HistoryProvider, type HistorySeries } from './types.ts';

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

export class PrometheusHistory implements HistoryProvider {
  private readonly base: string;
  private readonly fetch: typeof fetch;
  /** query_range calls sent (benchmarks, metrics). */
  requests = 0;

  constructor(private readonly o: PrometheusOptions) {
    this.base = o.url.replace(/\/+$/, '');
    this.fetch = o.fetch ?? fetch;
  }

  async queryRange(query: string, startS: number, endS: number, stepS: number): Promise<HistorySeries[]> {
    const chunks: HistorySeries[][] = [];
    for (const [s, e] of splitRange(startS, endS, stepS, this.o.maxPoints ?? 11_000)) {
      chunks.push(await this.queryChunk(query, s, e, stepS));
    }
    return joinSeries(chunks);
  }

  private async queryChunk(query: string, startS: number, endS: number, stepS: number): Promise<HistorySeries[]> {
    const params = new URLSearchParams({ query, start: String(startS), end: String(endS), step: String(stepS) });
    this.requests++;
    let res: Response;
    try {
      res = await this.fetch(`${this.base}/api/v1/query_range`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: params.toString(),
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 180_000),
      });
    } catch (e) {
      throw new PrometheusError(`prometheus unreachable at ${this.base}: ${(e as Error).message}`);
    }
    let body: MatrixResponse;
    try {
      body = (await res.json()) as MatrixResponse;
    } catch {
      throw new PrometheusError(`prometheus answered ${res.status} with a body that is not JSON`);
    }
    return parseMatrix(body);
  }
}
