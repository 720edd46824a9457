// The request pipeline of the metrics API server: body refusal → route → (health answered at once) →
// filters (authenticate, authorize: request-filters.ts) → method check → answer (router.ts, with the
// providers in provider-registry.ts), every failure a metav1.Status (docs/metrics-api.md §3.6, §5) and every
// request counted and timed. Nothing returns data to anyone the Authorizer has not allowed for that exact
// request.
//
// The method check stays after authorization on purpose: k8s.io/apiserver v0.34 authorizes every request
// (a POST is reviewed as verb "create") before the handler answers 405, so a caller without rights learns
// only 403, and our SubjectAccessReviews carry the same attributes as the reference's. What a POST could
// cost before authorization is its body, and that is refused first: nothing here reads a body.
import { constants as http2Constants } from 'node:http2';
import type { Logger } from 'pino';
import { requestInfo, BadPathError, type RequestInfo } from './request-info.ts';
import { statusBody, MetricError } from './status.ts';
import { SelectorError } from '../selectors/label-selector.ts';
import type { AdapterMetrics } from './adapter-metrics.ts';
import type { CustomMetricProvider, ExternalMetricProvider } from './providers/provider.ts';
import type { RemoteAdapter } from './remote-adapter.ts';
import { authenticateAndAuthorize, type FilterDeps } from './request-filters.ts';
import { ProviderRegistry } from './provider-registry.ts';
import { answer } from './router.ts';
import { http2StreamOf, send, type ApiRequest, type ApiResponse } from './http-reply.ts';

export interface HandlerDeps extends FilterDeps {
  custom: CustomMetricProvider[];
  external: ExternalMetricProvider[];
  remote?: RemoteAdapter;
  metrics: AdapterMetrics;
  now: () => number;
  logger: Logger;
  /** Prometheus text of the process registry, for an authorized GET /metrics. */
  promText?: () => Promise<{ contentType: string; body: string }>;
  ready?: () => boolean;
}

function route(method: string, path: string): RequestInfo {
  try {
    return requestInfo(method, path);
  } catch (e) {
    if (!(e instanceof BadPathError)) throw e;
    return { route: { kind: 'bad-request', message: e.message }, nonResource: { path, verb: 'get' } };
  }
}

/**
 * Whether a request carries a body: a Content-Length above 0 says so at once; a chunked (Transfer-Encoding)
 * request is known by its first chunk, or its end when empty (Node's client sends POST/PUT without a body
 * as an empty chunked stream). At most one chunk is buffered; the headers/request timeouts bound the wait.
 */
export function hasBody(req: ApiRequest): boolean | Promise<boolean> {
  const cl = req.headers['content-length'];
  if (cl !== undefined && Number(cl) !== 0) return true;
  const te = req.headers['transfer-encoding'];
  if (te === undefined || te === '' || req.complete) return false;
  return new Promise((resolve) => {
    const done = (present: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onEnd);
      if (present) req.pause();
      resolve(present);
    };
    const onData = () => done(true);
    const onEnd = () => done(false);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onEnd);
  });
}

/**
 * The request line and headers together may hold this many bytes: Node's HTTP/1.1 parser answers 431 past
 * its default (16 KiB) by itself, and HTTP/2 requests get the same bound and an answer here. One HTTP/2
 * header field over 64 KiB never reaches us: nghttp2 (inside Node, a compile-time bound) refuses the stream
 * with REFUSED_STREAM, which Go's HTTP/2 client, and so kube-apiserver's aggregator, retries with backoff
 * for about a minute before it answers 503 (docs/security.md).
 */
export const MAX_REQUEST_HEAD_BYTES = 16 * 1024;

/** 414 for a URI over the bound, 431 for headers that take the whole over it, else undefined. */
function oversizedRequest(req: ApiRequest, url: string): 414 | 431 | undefined {
  if (url.length > MAX_REQUEST_HEAD_BYTES) return 414;
  let bytes = url.length;
  const raw = req.rawHeaders;
  // HTTP/2's pseudo-headers (:path, :method, ...) repeat the request line, already counted.
  for (let i = 0; i + 1 < raw.length; i += 2) if (!(raw[i] as string).startsWith(':')) bytes += (raw[i] as string).length + (raw[i + 1] as string).length;
  return bytes > MAX_REQUEST_HEAD_BYTES ? 431 : undefined;
}

export function createMetricsApiHandler(deps: HandlerDeps) {
  const router = { providers: new ProviderRegistry(deps.custom, deps.external, deps.remote), ...(deps.promText ? { promText: deps.promText } : {}) };

  return async function handle(req: ApiRequest, res: ApiResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    let code = 500;
    const label = { metric: 'other' };
    try {
      const oversized = oversizedRequest(req, url);
      if (oversized !== undefined) {
        code = oversized;
        const stream = http2StreamOf(req);
        if (!stream) res.setHeader('Connection', 'close');
        send(res, req, oversized, statusBody(oversized, oversized === 414 ? `the request URI is longer than ${MAX_REQUEST_HEAD_BYTES} bytes` : `the request headers are larger than ${MAX_REQUEST_HEAD_BYTES} bytes`));
        stream?.close(http2Constants.NGHTTP2_NO_ERROR);
        return;
      }
      // Synchronous for the usual body-less GET; only a chunked request waits for its first chunk or end.
      const body = hasBody(req);
      if (body === true || (body !== false && (await body))) {
        // Not read, not drained: answer and close, so a client streaming a large body costs one small write.
        code = 413;
        // HTTP/1.1: close the connection. HTTP/2 forbids connection headers; the stream alone is ended once
        // the answer is sent, with RST_STREAM NO_ERROR (RFC 9113 §8.1), and the session goes on.
        const stream = http2StreamOf(req);
        if (!stream) res.setHeader('Connection', 'close');
        send(res, req, 413, statusBody(413, 'request bodies are not accepted by the metrics API'));
        stream?.close(http2Constants.NGHTTP2_NO_ERROR);
        return;
      }
      const info = route(req.method ?? 'GET', path);
      const r = info.route;
      if (r.kind === 'health') {
        const ready = r.path !== '/readyz' || (deps.ready?.() ?? true);
        code = ready ? 200 : 503;
        label.metric = 'health';
        send(res, req, code, ready ? 'ok' : 'not ready', 'text/plain; charset=utf-8');
        return;
      }
      const filtered = await authenticateAndAuthorize(deps, req, info);
      if (!filtered.ok) {
        code = filtered.code;
        send(res, req, code, filtered.body);
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        code = 405;
        send(res, req, 405, statusBody(405, 'the server does not allow this method on the requested resource'));
        return;
      }
      // Before the caches the answers come from have their first list, "no such EHPA / pod" would be a lie
      // (a restart answered 404 for objects that exist): say "not yet", which the HPA retries.
      if ((r.kind === 'custom' || r.kind === 'external') && !(deps.ready?.() ?? true)) {
        code = 503;
        send(res, req, 503, statusBody(503, 'the metrics adapter has not finished reading the cluster yet; try again in a few seconds'));
        return;
      }
      code = await answer(router, req, res, r, deps.now(), label);
    } catch (e) {
      if (e instanceof MetricError) code = e.code;
      else if (e instanceof SelectorError) code = 400;
      else {
        code = 500;
        deps.logger.error({ err: e, url }, 'metrics API request failed');
      }
      // An unexpected error's text can carry internals (URLs, paths, other tenants' names): it goes to the log
      // above, the caller gets a generic 500.
      const message = code === 500 && !(e instanceof MetricError) ? 'internal error (see the adapter log)' : (e as Error).message;
      if (!res.headersSent) send(res, req, code, statusBody(code, message, e instanceof MetricError ? e.details : undefined));
      else res.destroy();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = { metric: label.metric, code: String(code) };
      deps.metrics.requests.inc(labels);
      deps.metrics.latency.observe(labels, seconds);
    }
  };
}
