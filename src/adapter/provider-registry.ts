// Which provider answers a metric: ours first (each provider says what it owns), otherwise the remote
// adapter when one is configured (--remote-adapter, docs/crane-behaviour.md §C.1), whose discovery entries
// are listed beside ours.
import type { LabelSelector } from '../selectors/label-selector.ts';
import { groupVersionPath } from '../kube/api-client.ts';
import type { CustomMetricProvider, ExternalMetricProvider } from './providers/provider.ts';
import type { RemoteAdapter } from './remote-adapter.ts';
import { CUSTOM_GROUP, EXTERNAL_GROUP } from './request-info.ts';
import { send, type ApiRequest, type ApiResponse } from './http-reply.ts';
import { statusBody } from './status.ts';

export class ProviderRegistry {
  constructor(
    private readonly custom: readonly CustomMetricProvider[],
    private readonly external: readonly ExternalMetricProvider[],
    private readonly remote?: RemoteAdapter,
  ) {}

  customOwner(resource: string, metric: string): CustomMetricProvider | undefined {
    return this.custom.find((p) => p.owns(resource, metric));
  }

  async externalOwner(namespace: string, metric: string, selector: LabelSelector): Promise<ExternalMetricProvider | undefined> {
    for (const p of this.external) if (await p.owns(namespace, metric, selector)) return p;
    return undefined;
  }

  /** custom.metrics.k8s.io discovery entries: ours and the remote adapter's. */
  async customListed(version: string): Promise<{ resource: string; metric: string; namespaced: boolean }[]> {
    const remote = (await this.remoteListed(groupVersionPath(`${CUSTOM_GROUP}/${version}`))).flatMap((r) => {
      const slash = r.name.indexOf('/');
      return slash > 0 ? [{ resource: r.name.slice(0, slash), metric: r.name.slice(slash + 1), namespaced: r.namespaced }] : [];
    });
    return [...this.custom.flatMap((p) => p.listed()), ...remote];
  }

  /** external.metrics.k8s.io discovery entries: ours and the remote adapter's. */
  async externalListed(): Promise<string[]> {
    const remote = (await this.remoteListed(groupVersionPath(`${EXTERNAL_GROUP}/v1beta1`))).map((r) => r.name);
    return [...this.external.flatMap((p) => p.listed()), ...remote];
  }

  /** Answers a request no provider of ours owns: from the remote adapter, or 404. Returns the status code. */
  async proxy(req: ApiRequest, res: ApiResponse, notFoundMessage: string): Promise<number> {
    if (!this.remote) {
      send(res, req, 404, statusBody(404, notFoundMessage));
      return 404;
    }
    try {
      const r = await this.remote.get(req.url ?? '/');
      send(res, req, r.status, r.body, r.contentType);
      return r.status;
    } catch (e) {
      send(res, req, 503, statusBody(503, `remote adapter unavailable: ${(e as Error).message}`));
      return 503;
    }
  }

  private async remoteListed(path: string): Promise<{ name: string; namespaced: boolean }[]> {
    if (!this.remote) return [];
    try {
      const r = await this.remote.get(path);
      if (r.status !== 200) return [];
      const doc = JSON.parse(r.body.toString('utf8')) as { resources?: { name?: unknown; namespaced?: unknown }[] };
      return (doc.resources ?? []).flatMap((x) => (typeof x.name === 'string' ? [{ name: x.name, namespaced: x.namespaced === true }] : []));
    } catch {
      return [];
    }
  }
}
