// The request pipeline of the metrics API server: route → (health answered at once) → filters
// (authenticate, authorize: request-filters.ts) → method check → answer (router.ts, with the providers in
// provider-registry.ts), every failure a metav1.Status (docs/metrics-api.md §3.6, §5) and every request
// counted and timed. Nothing returns data to anyone the Authorizer has not allowed for that exact request.
import type { IncomingMessage, ServerResponse } from 'node:http';
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
import { send } from './http-reply.ts';

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

export function createMetricsApiHandler(deps: HandlerDeps) {
  const router = { providers: new ProviderRegistry(deps.custom, deps.external, deps.remote), ...(deps.promText ? { promText: deps.promText } : {}) };

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    // We never read bodies; drain them so a kept-alive connection stays usable after our answer.
    req.resume();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    let code = 500;
    const label = { metric: 'other' };
    try {
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
      if (!res.headersSent) send(res, req, code, statusBody(code, message));
      else res.destroy();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = { metric: label.metric, code: String(code) };
      deps.metrics.requests.inc(labels);
      deps.metrics.latency.observe(labels, seconds);
    }
  };
}
