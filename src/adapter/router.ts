// Answers a routed, authenticated and authorized request: discovery documents, custom and external metric
// values from their providers (or the remote adapter), and the process's Prometheus text. Health paths
// never get here: the pipeline answers them before authentication.
import { CUSTOM_GROUP, type Route } from './request-info.ts';
import { MetricError, statusBody } from './status.ts';
import { parseLabelSelector } from '../selectors/label-selector.ts';
import type { ProviderRegistry } from './provider-registry.ts';
import { queryOf, send, type ApiRequest, type ApiResponse } from './http-reply.ts';
import * as wire from './wire-format.ts';

export type RoutedRequest = Exclude<Route, { kind: 'health' }>;

export interface RouterDeps {
  providers: ProviderRegistry;
  /** Prometheus text of the process registry, for an authorized GET /metrics. */
  promText?: () => Promise<{ contentType: string; body: string }>;
}

/** True when the Accept header asks only for aggregated-discovery media types (docs/metrics-api.md §7 G4: answer 406). */
function wantsOnlyAggregatedDiscovery(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((t) => t.trim()).filter((t) => t !== '');
  return types.length > 0 && types.every((t) => t.includes('g=apidiscovery.k8s.io'));
}

function labelled(label: { metric: string }, code: number, metric: string): number {
  label.metric = metric;
  return code;
}

/**
 * Writes the answer and returns its status code. `label.metric` names the request in the request metrics; it
 * is set before a provider runs, so a provider's error is counted under its metric too.
 */
export async function answer(deps: RouterDeps, req: ApiRequest, res: ApiResponse, route: RoutedRequest, nowMs: number, label: { metric: string }): Promise<number> {
  const q = queryOf(req.url ?? '');
  switch (route.kind) {
    case 'discovery-root':
    case 'discovery-group':
    case 'discovery-version': {
      if (wantsOnlyAggregatedDiscovery(req.headers.accept)) {
        send(res, req, 406, statusBody(406, 'only application/json discovery is served'));
        return labelled(label, 406, 'discovery');
      }
      if (route.kind === 'discovery-root') send(res, req, 200, wire.apiGroupList());
      else if (route.kind === 'discovery-group') send(res, req, 200, wire.apiGroupDoc(route.group));
      else if (route.group === CUSTOM_GROUP) send(res, req, 200, wire.customResourceList(route.version, await deps.providers.customListed(route.version)));
      else send(res, req, 200, wire.externalResourceList(await deps.providers.externalListed()));
      return labelled(label, 200, 'discovery');
    }
    case 'custom': {
      const selector = parseLabelSelector(q.get('labelSelector'));
      const metricSelector = parseLabelSelector(q.get('metricLabelSelector'));
      const owner = deps.providers.customOwner(route.resource, route.metric);
      const what = route.name === '*' ? route.resource : `${route.resource} ${route.name}`;
      if (!owner) return labelled(label, await deps.providers.proxy(req, res, `the server could not find the metric ${route.metric} for ${what}`), 'remote');
      label.metric = route.metric;
      const values = await owner.values({
        ...(route.namespace !== undefined ? { namespace: route.namespace } : {}),
        resource: route.resource, name: route.name, metric: route.metric, selector, metricSelector, nowMs,
      });
      // One object asked for by name: exactly one value, else the apiserver library's 404.
      if (route.name !== '*' && values.length !== 1) {
        throw new MetricError(404, `the server could not find the metric ${route.metric} for ${what}`);
      }
      send(res, req, 200, wire.metricValueList(route.version, route.metric, values, metricSelector, nowMs));
      return labelled(label, 200, route.metric);
    }
    case 'external': {
      const selector = parseLabelSelector(q.get('labelSelector'));
      const owner = await deps.providers.externalOwner(route.namespace, route.metric, selector);
      if (!owner) return labelled(label, await deps.providers.proxy(req, res, `the server could not find the external metric ${route.metric}`), 'remote');
      // Legacy cron names embed the EHPA name: label by family to keep the series count bounded.
      const family = owner.listed()[0] ?? 'external';
      label.metric = family;
      const values = await owner.values({ namespace: route.namespace, metric: route.metric, selector, nowMs });
      send(res, req, 200, wire.externalMetricValueList(route.metric, values, nowMs));
      return labelled(label, 200, family);
    }
    case 'metrics': {
      if (!deps.promText) {
        send(res, req, 404, statusBody(404, 'the server could not find the requested resource'));
        return labelled(label, 404, 'other');
      }
      const p = await deps.promText();
      send(res, req, 200, p.body, p.contentType);
      return labelled(label, 200, 'prometheus');
    }
    case 'bad-request':
      send(res, req, 400, statusBody(400, route.message));
      return labelled(label, 400, 'other');
    case 'not-found':
      send(res, req, 404, statusBody(404, 'the server could not find the requested resource'));
      return labelled(label, 404, 'other');
  }
}
