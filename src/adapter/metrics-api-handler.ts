// The request pipeline of the metrics API server: authenticate → authorize → route → answer, with every
// failure a metav1.Status (docs/metrics-api.md §3.6, §5). Health paths skip authn/authz; nothing
// else returns data to anyone the Authorizer has not allowed for that exact request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { requestInfo, BadPathError, CUSTOM_GROUP, EXTERNAL_GROUP, type RequestInfo, type Route } from './request-info.ts';
import { statusBody, MetricError } from './status.ts';
import { parseLabelSelector, SelectorError, type LabelSelector } from '../selectors/label-selector.ts';
import type { AuthnResult, UserInfo } from './authn.ts';
import type { Authorizer } from './authz.ts';
import type { AdapterMetrics } from './adapter-metrics.ts';
import type { CustomMetricProvider, ExternalMetricProvider } from './providers/provider.ts';
import type { RemoteAdapter } from './remote-adapter.ts';
import * as wire from './wire-format.ts';

export interface HandlerDeps {
  authenticate(req: IncomingMessage): AuthnResult;
  authorizer: Authorizer;
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

const ALWAYS_ALLOWED_GROUP = 'system:masters';

function send(res: ServerResponse, req: IncomingMessage, code: number, body: unknown, contentType = 'application/json'): void {
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  if (req.method === 'HEAD') res.end();
  else res.end(text);
}

function forbiddenMessage(user: UserInfo, info: RequestInfo): { message: string; details: Record<string, unknown> } {
  const r = info.resource;
  if (!r) {
    return { message: `forbidden: User "${user.name}" cannot ${info.nonResource?.verb ?? 'get'} path "${info.nonResource?.path ?? ''}"`, details: {} };
  }
  const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  const object = r.name !== undefined ? `${r.resource}.${r.group} "${r.name}"` : `${r.resource}.${r.group}`;
  const where = r.namespace !== undefined ? ` in the namespace "${r.namespace}"` : '';
  return {
    message: `${object} is forbidden: User "${user.name}" cannot ${r.verb} resource "${resource}" in API group "${r.group}"${where}`,
    details: { ...(r.name !== undefined ? { name: r.name } : {}), group: r.group, kind: r.resource },
  };
}

/** True when the Accept header asks only for aggregated-discovery media types (docs/metrics-api.md §7 G4: answer 406). */
function wantsOnlyAggregatedDiscovery(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((t) => t.trim()).filter((t) => t !== '');
  return types.length > 0 && types.every((t) => t.includes('g=apidiscovery.k8s.io'));
}

function query(url: string): URLSearchParams {
  const q = url.indexOf('?');
  return new URLSearchParams(q >= 0 ? url.slice(q + 1) : '');
}

export function createMetricsApiHandler(deps: HandlerDeps) {
  const { metrics } = deps;

  async function ownerOfCustom(resource: string, metric: string): Promise<CustomMetricProvider | undefined> {
    return deps.custom.find((p) => p.owns(resource, metric));
  }
  async function ownerOfExternal(ns: string, metric: string, selector: LabelSelector): Promise<ExternalMetricProvider | undefined> {
    for (const p of deps.external) if (await p.owns(ns, metric, selector)) return p;
    return undefined;
  }

  async function proxy(req: IncomingMessage, res: ServerResponse, notFoundMessage: string): Promise<number> {
    if (!deps.remote) {
      send(res, req, 404, statusBody(404, notFoundMessage));
      return 404;
    }
    try {
      const r = await deps.remote.get(req.url ?? '/');
      send(res, req, r.status, r.body, r.contentType);
      return r.status;
    } catch (e) {
      const msg = `remote adapter unavailable: ${(e as Error).message}`;
      send(res, req, 503, statusBody(503, msg));
      return 503;
    }
  }

  async function remoteListed(path: string): Promise<{ name: string; namespaced: boolean }[]> {
    if (!deps.remote) return [];
    try {
      const r = await deps.remote.get(path);
      if (r.status !== 200) return [];
      const doc = JSON.parse(r.body.toString('utf8')) as { resources?: { name?: unknown; namespaced?: unknown }[] };
      return (doc.resources ?? []).flatMap((x) => (typeof x.name === 'string' ? [{ name: x.name, namespaced: x.namespaced === true }] : []));
    } catch {
      return [];
    }
  }

  /** Answers a routed, authorized request; returns [code, metric label]. */
  async function serve(req: IncomingMessage, res: ServerResponse, route: Route, nowMs: number, ctx: { metric: string }): Promise<[number, string]> {
    const q = query(req.url ?? '');
    switch (route.kind) {
      case 'discovery-root':
      case 'discovery-group':
      case 'discovery-version': {
        if (wantsOnlyAggregatedDiscovery(req.headers.accept)) {
          send(res, req, 406, statusBody(406, 'only application/json discovery is served'));
          return [406, 'discovery'];
        }
        if (route.kind === 'discovery-root') send(res, req, 200, wire.apiGroupList());
        else if (route.kind === 'discovery-group') send(res, req, 200, wire.apiGroupDoc(route.group));
        else if (route.group === CUSTOM_GROUP) {
          const local = deps.custom.flatMap((p) => p.listed());
          const remote = (await remoteListed(`/apis/${CUSTOM_GROUP}/${route.version}`)).flatMap((r) => {
            const slash = r.name.indexOf('/');
            return slash > 0 ? [{ resource: r.name.slice(0, slash), metric: r.name.slice(slash + 1), namespaced: r.namespaced }] : [];
          });
          send(res, req, 200, wire.customResourceList(route.version, [...local, ...remote]));
        } else {
          const remote = (await remoteListed(`/apis/${EXTERNAL_GROUP}/v1beta1`)).map((r) => r.name);
          send(res, req, 200, wire.externalResourceList([...deps.external.flatMap((p) => p.listed()), ...remote]));
        }
        return [200, 'discovery'];
      }
      case 'custom': {
        const selector = parseLabelSelector(q.get('labelSelector'));
        const metricSelector = parseLabelSelector(q.get('metricLabelSelector'));
        const owner = await ownerOfCustom(route.resource, route.metric);
        const what = route.name === '*' ? route.resource : `${route.resource} ${route.name}`;
        if (!owner) return [await proxy(req, res, `the server could not find the metric ${route.metric} for ${what}`), 'remote'];
        ctx.metric = route.metric;
        const values = await owner.values({
          ...(route.namespace !== undefined ? { namespace: route.namespace } : {}),
          resource: route.resource, name: route.name, metric: route.metric, selector, metricSelector, nowMs,
        });
        if (route.name !== '*' && values.length !== 1) {
          throw new MetricError(404, `the server could not find the metric ${route.metric} for ${what}`);
        }
        send(res, req, 200, wire.metricValueList(route.version, route.metric, values, metricSelector, nowMs));
        return [200, route.metric];
      }
      case 'external': {
        const selector = parseLabelSelector(q.get('labelSelector'));
        const owner = await ownerOfExternal(route.namespace, route.metric, selector);
        if (!owner) return [await proxy(req, res, `the server could not find the external metric ${route.metric}`), 'remote'];
        // Legacy cron names embed the EHPA name: label by family to keep the series count bounded.
        ctx.metric = owner.listed()[0] ?? 'external';
        const values = await owner.values({ namespace: route.namespace, metric: route.metric, selector, nowMs });
        send(res, req, 200, wire.externalMetricValueList(route.metric, values, nowMs));
        return [200, ctx.metric];
      }
      case 'metrics': {
        if (!deps.promText) {
          send(res, req, 404, statusBody(404, 'the server could not find the requested resource'));
          return [404, 'other'];
        }
        const p = await deps.promText();
        send(res, req, 200, p.body, p.contentType);
        return [200, 'prometheus'];
      }
      case 'bad-request':
        send(res, req, 400, statusBody(400, route.message));
        return [400, 'other'];
      case 'health':
        send(res, req, 200, 'ok', 'text/plain; charset=utf-8');
        return [200, 'health'];
      case 'not-found':
        send(res, req, 404, statusBody(404, 'the server could not find the requested resource'));
        return [404, 'other'];
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    // We never read bodies; drain them so a kept-alive connection stays usable after our answer.
    req.resume();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    let code = 500;
    const ctx = { metric: 'other' };
    try {
      let info: RequestInfo;
      try {
        info = requestInfo(req.method ?? 'GET', path);
      } catch (e) {
        if (!(e instanceof BadPathError)) throw e;
        info = { route: { kind: 'bad-request', message: e.message }, nonResource: { path, verb: 'get' } };
      }
      if (info.route.kind === 'health') {
        const ready = info.route.path !== '/readyz' || (deps.ready?.() ?? true);
        code = ready ? 200 : 503;
        send(res, req, code, ready ? 'ok' : 'not ready', 'text/plain; charset=utf-8');
        ctx.metric = 'health';
        return;
      }
      const authn = deps.authenticate(req);
      if (!authn.ok) {
        code = 401;
        send(res, req, 401, statusBody(401, 'Unauthorized'));
        return;
      }
      const user = authn.user;
      if (!user.groups.includes(ALWAYS_ALLOWED_GROUP)) {
        const decision = await deps.authorizer.authorize(user, info.resource ? { resource: info.resource } : { nonResource: info.nonResource! });
        if (!decision.allowed) {
          const f = forbiddenMessage(user, info);
          code = 403;
          send(res, req, 403, statusBody(403, f.message, f.details));
          return;
        }
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        code = 405;
        send(res, req, 405, statusBody(405, 'the server does not allow this method on the requested resource'));
        return;
      }
      [code, ctx.metric] = await serve(req, res, info.route, deps.now(), ctx);
    } catch (e) {
      if (e instanceof MetricError) code = e.code;
      else if (e instanceof SelectorError) code = 400;
      else {
        code = 500;
        deps.logger.error({ err: e, url }, 'metrics API request failed');
      }
      const message = code === 500 && !(e instanceof MetricError) ? `internal error: ${(e as Error).message}` : (e as Error).message;
      if (!res.headersSent) send(res, req, code, statusBody(code, message));
      else res.destroy();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = { metric: ctx.metric, code: String(code) };
      metrics.requests.inc(labels);
      metrics.latency.observe(labels, seconds);
    }
  }

  return handle;
}
