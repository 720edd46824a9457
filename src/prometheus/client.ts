// The process's one Prometheus client, for every loop that reads Prometheus (TSP history, the adapter's
// observed-usage fallback, the VPA recommender's current usage and start-up history):
// - `queryRange`: `query_range` split into chunks Prometheus accepts (at most `maxPoints` points per series,
//   11,000 by default, Crane's --prometheus-maxpoints, docs/crane-behaviour.md §D.3) and joined back into one
//   series per label set; gaps stay gaps;
// - `queryInstant`: `query` at now, one sample per series.
// NaN/Inf samples are dropped; errors are thrown as PrometheusError for the caller to turn into a condition,
// never a crash.
// What a tenant's query can cost is bounded here (docs/security.md §2): the number of chunks is
// checked before any is sent, a response body is read as a stream and abandoned past `maxResponseBytes`, a
// caller may cap the series a query returns, and an AbortSignal (the object was deleted or edited) stops
// the reads between chunks and mid-request.
// Secured Prometheus (docs/operations.md, "Secured Prometheus"): credentials and TLS from prometheus/credentials.ts,
// through undici's fetch and an Agent carrying the TLS options; at most `maxConcurrency` requests at once,
// and at most `maxConcurrencyPerNamespace` of them for one namespace's queries (fair-slots.ts), which may
// also use at most a share of Prometheus' time (namespace-time-budget.ts).
import { Agent, fetch as undiciFetch } from 'undici';
import { MAX_PROMETHEUS_RESPONSE_BYTES } from '../api/bounds.ts';
import { CredentialsError, loadPrometheusTls, RequestHeaders, type PrometheusCredentials } from './credentials.ts';
import { FairSlots, NamespaceQueueFullError } from './fair-slots.ts';
import { NamespaceTimeBudget, type TimeBudgetOptions } from './namespace-time-budget.ts';
import { labelKey, type HistoryProvider, type HistorySeries, type QueryRangeOptions } from './series.ts';

export class PrometheusError extends Error {
  override name = 'PrometheusError';
}

export interface PrometheusOptions {
  url: string;
  timeoutMs?: number;
  maxPoints?: number;
  /** Bytes of one response body read before the request fails (default MAX_PROMETHEUS_RESPONSE_BYTES). */
  maxResponseBytes?: number;
  /** Requests in flight at once; more wait their turn (default 8). */
  maxConcurrency?: number;
  /** Requests of one namespace (QueryRangeOptions.namespace) in flight at once; more wait in its own queue. */
  maxConcurrencyPerNamespace?: number;
  /** Requests of one namespace waiting beyond maxConcurrencyPerNamespace; more fail at once (default: no limit). */
  maxQueuedPerNamespace?: number;
  /** Prometheus time one namespace's requests may use; past it they fail at once (default: no budget). */
  namespaceTime?: TimeBudgetOptions;
  credentials?: PrometheusCredentials;
  /** Age of the in-memory token or password past which its file is read again (default 60 s). */
  credentialsRereadMs?: number;
  /** For re-reading credential files; injected so tests control it. */
  now?: () => number;
  fetch?: typeof fetch;
}

/** Chunks one range query may be split into: the bounds on history (api/bounds.ts) need at most 10 at the
 *  default 11,000 points; anything near this is a step or range no forecast asked for. */
export const MAX_RANGE_CHUNKS = 1_000;

/** [start, end] pairs covering [startS, endS] on the step grid, each with at most maxPoints points.
 *  The count is checked before the list is built: a 1 ns step over 15 days would be 1e11 chunks. */
export function splitRange(startS: number, endS: number, stepS: number, maxPoints: number, maxChunks = MAX_RANGE_CHUNKS): [number, number][] {
  if (!(stepS > 0)) throw new PrometheusError(`step must be positive, got ${stepS}`);
  if (maxPoints < 1) throw new PrometheusError('maxPoints must be at least 1');
  const out: [number, number][] = [];
  const span = stepS * (maxPoints - 1);
  const count = endS < startS ? 0 : Math.floor((endS - startS) / (span + stepS)) + 1;
  if (!(count <= maxChunks)) {
    throw new PrometheusError(`range [${startS}, ${endS}] at step ${stepS}s needs ${count} queries of ${maxPoints} points, more than ${maxChunks}`);
  }
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

/**
 * Joins chunked results per label set, in time order, later chunks winning on a shared timestamp.
 * This runs on the event loop that serves the metrics APIs, once per history read (15 days at 60 s =
 * 21,600 points in 2 chunks): the usual case, chunks in ascending and disjoint time order as splitRange
 * asks for them, is a concatenation; only overlapping or unordered chunks take the map merge (5–15 ms for
 * such a history on the 2-core machine, against well under 1 ms for the concatenation).
 */
export function joinSeries(chunks: HistorySeries[][]): HistorySeries[] {
  const byKey = new Map<string, { labels: Record<string, string>; parts: HistorySeries[] }>();
  for (const chunk of chunks) {
    for (const s of chunk) {
      const key = labelKey(s.labels);
      let e = byKey.get(key);
      if (!e) byKey.set(key, (e = { labels: s.labels, parts: [] }));
      e.parts.push(s);
    }
  }
  return [...byKey.values()].map(({ labels, parts }) => concatenateAscending(labels, parts) ?? mergeByTime(labels, parts));
}

/** The parts end to end when every timestamp is above the one before it across all of them; else undefined. */
function concatenateAscending(labels: Record<string, string>, parts: HistorySeries[]): HistorySeries | undefined {
  let last = -Infinity;
  let n = 0;
  for (const p of parts) {
    for (const t of p.timestamps) {
      if (!(t > last)) return undefined;
      last = t;
    }
    n += p.timestamps.length;
  }
  if (parts.length === 1) return { labels, timestamps: parts[0]!.timestamps, values: parts[0]!.values };
  const timestamps = new Array<number>(n);
  const values = new Array<number>(n);
  let k = 0;
  for (const p of parts) {
    for (let i = 0; i < p.timestamps.length; i++, k++) {
      timestamps[k] = p.timestamps[i] as number;
      values[k] = p.values[i] as number;
    }
  }
  return { labels, timestamps, values };
}

/** The general join: one point per timestamp, the later part winning, sorted by time. */
function mergeByTime(labels: Record<string, string>, parts: HistorySeries[]): HistorySeries {
  const points = new Map<number, number>();
  for (const p of parts) for (let i = 0; i < p.timestamps.length; i++) points.set(p.timestamps[i] as number, p.values[i] as number);
  const ts = [...points.keys()].sort((a, b) => a - b);
  return { labels, timestamps: ts, values: ts.map((t) => points.get(t) as number) };
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

/** An error's message with its cause (undici puts the TLS or socket reason there: "fetch failed" alone
 *  says nothing). */
function errorText(e: unknown): string {
  const err = e as Error & { cause?: { message?: string; code?: string } };
  const cause = err.cause ? `: ${err.cause.code ? `${err.cause.code} ` : ''}${err.cause.message ?? ''}`.trimEnd() : '';
  return `${err.message}${cause}`;
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
  private readonly headers: RequestHeaders;
  /** TLS material and the Agent carrying it, loaded once; a bad file fails every query with its cause. */
  private readonly dispatcher: Promise<Agent | undefined>;
  private readonly slots: FairSlots;
  private readonly budget: NamespaceTimeBudget | undefined;
  private readonly clock: () => number;
  /** Requests sent (benchmarks, metrics). */
  requests = 0;

  constructor(private readonly o: PrometheusOptions) {
    this.base = o.url.replace(/\/+$/, '');
    this.shownBase = redactUrl(this.base);
    // undici's own fetch with its Agent: the global fetch of Node 20 takes no TLS options.
    this.fetch = o.fetch ?? (undiciFetch as unknown as typeof fetch);
    this.headers = new RequestHeaders(o.credentials ?? {}, o.now ?? Date.now, o.credentialsRereadMs);
    this.dispatcher = loadPrometheusTls(o.credentials ?? {}).then((tls) => (tls ? new Agent({ connect: tls }) : undefined));
    this.dispatcher.catch(() => undefined); // reported by each query, not as an unhandled rejection
    this.clock = o.now ?? Date.now;
    this.budget = o.namespaceTime && o.namespaceTime.share > 0 ? new NamespaceTimeBudget(o.namespaceTime) : undefined;
    this.slots = new FairSlots({
      global: o.maxConcurrency ?? 8,
      ...(o.maxConcurrencyPerNamespace !== undefined ? { perNamespace: o.maxConcurrencyPerNamespace } : {}),
      ...(o.maxQueuedPerNamespace !== undefined ? { maxQueuedPerNamespace: o.maxQueuedPerNamespace } : {}),
    });
  }

  /** Resolves once the TLS files are read; rejects with the cause (for a fail-fast check at start-up). */
  async ready(): Promise<void> {
    await this.dispatcher;
    await this.headers.get();
  }

  async queryRange(query: string, startS: number, endS: number, stepS: number, options: QueryRangeOptions = {}): Promise<HistorySeries[]> {
    const chunks: HistorySeries[][] = [];
    const seen = new Set<string>();
    for (const [s, e] of splitRange(startS, endS, stepS, this.o.maxPoints ?? 11_000)) {
      options.signal?.throwIfAborted();
      const params = { query, start: String(s), end: String(e), step: String(stepS) };
      const chunk = parseMatrix((await this.post('query_range', params, options.signal, options.namespace)) as MatrixResponse);
      if (options.maxSeries !== undefined) {
        for (const c of chunk) seen.add(labelKey(c.labels));
        // Checked per chunk, so a query that forgot to aggregate fails after one request, not ten.
        if (seen.size > options.maxSeries) {
          throw new PrometheusError(`the query returns ${seen.size} series or more, more than the ${options.maxSeries} allowed; aggregate it (e.g. sum by (...))`);
        }
      }
      chunks.push(chunk);
    }
    return joinSeries(chunks);
  }

  async queryInstant(query: string, signal?: AbortSignal): Promise<InstantSample[]> {
    return parseVector((await this.post('query', { query }, signal)) as VectorResponse);
  }

  private async post(api: 'query' | 'query_range', params: Record<string, string>, signal?: AbortSignal, namespace?: string): Promise<unknown> {
    // Checked before waiting for a slot (refused at once) and again when one is free (the namespace's queries
    // ahead of this one may have spent the budget meanwhile).
    this.checkBudget(namespace);
    let release: () => void;
    try {
      release = await this.slots.acquire(namespace);
    } catch (e) {
      if (e instanceof NamespaceQueueFullError) throw new PrometheusError(e.message);
      throw e;
    }
    const started = this.clock();
    try {
      this.checkBudget(namespace);
      return await this.send(api, params, signal);
    } finally {
      if (namespace !== undefined) this.budget?.charge(namespace, this.clock() - started, this.clock());
      release();
    }
  }

  private checkBudget(namespace: string | undefined): void {
    if (namespace === undefined || !this.budget) return;
    const waitMs = this.budget.waitMs(namespace, this.clock());
    if (waitMs === undefined) return;
    throw new PrometheusError(
      `namespace ${namespace} has used its share of Prometheus time (${this.o.namespaceTime?.share} of wall time, --prometheus-namespace-time-share); its next query may run in ${Math.ceil(waitMs / 1000)}s`,
    );
  }

  private async send(api: 'query' | 'query_range', params: Record<string, string>, signal?: AbortSignal): Promise<unknown> {
    signal?.throwIfAborted();
    let dispatcher: Agent | undefined;
    let headers: Record<string, string>;
    try {
      dispatcher = await this.dispatcher;
      headers = await this.headers.get();
    } catch (e) {
      if (e instanceof CredentialsError) throw new PrometheusError(e.message);
      throw e;
    }
    this.requests++;
    const timeout = AbortSignal.timeout(this.o.timeoutMs ?? 180_000);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await this.fetch(`${this.base}/api/v1/${api}`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(params).toString(),
        signal: combined,
        ...(dispatcher ? { dispatcher } : {}),
      } as RequestInit);
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      throw new PrometheusError(`prometheus unreachable at ${this.shownBase}: ${redactUrl(errorText(e))}`);
    }
    // A secured Prometheus refusing us: say so, not "not JSON" (the body of a 401 is usually plain text).
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw new PrometheusError(`prometheus at ${this.shownBase} refused the credentials: HTTP ${res.status}`);
    }
    const text = await this.readBody(res, signal);
    try {
      return JSON.parse(text);
    } catch {
      throw new PrometheusError(`prometheus answered ${res.status} with a body that is not JSON`);
    }
  }

  /** The body as text, read as a stream and abandoned (connection closed) past maxResponseBytes. */
  private async readBody(res: Response, signal?: AbortSignal): Promise<string> {
    const limit = this.o.maxResponseBytes ?? MAX_PROMETHEUS_RESPONSE_BYTES;
    const declared = Number(res.headers.get('content-length'));
    if (declared > limit) {
      await res.body?.cancel();
      throw new PrometheusError(`prometheus answered ${declared} bytes, more than the ${limit} bytes a response may have`);
    }
    if (!res.body) return '';
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    const parts: string[] = [];
    let bytes = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        if (bytes > limit) {
          await reader.cancel();
          throw new PrometheusError(`prometheus answered more than the ${limit} bytes a response may have`);
        }
        parts.push(decoder.decode(value, { stream: true }));
      }
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      if (e instanceof PrometheusError) throw e;
      throw new PrometheusError(`prometheus response from ${this.shownBase} broke off: ${redactUrl((e as Error).message)}`);
    }
    parts.push(decoder.decode());
    return parts.join('');
  }
}
