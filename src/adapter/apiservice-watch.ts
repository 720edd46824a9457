// The edge of apiservice-claims.ts: reads the APIServices this adapter serves at start and every few
// minutes after (KEDA may be installed later, or an APIService pointed elsewhere), logs a line when what
// one of them points to changes, and keeps a gauge of it. Read-only: serve never writes an APIService.
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import { KubeApiError, resourcePath } from '../kube/api-client.ts';
import { METRIC_PREFIX } from '../observability/metrics-registry.ts';
import { SERVED_APISERVICES, changedVerdicts, judgeApiService, type ApiServiceLike, type ApiServiceRead, type ClaimVerdict, type ServiceRef } from './apiservice-claims.ts';
import { every } from './reloader.ts';

/** How often the APIServices are looked at again after start. */
export const APISERVICE_CHECK_MS = 5 * 60_000;

export interface ApiServiceWatchOptions {
  client: { get<T>(path: string): Promise<T> };
  /** This adapter's Service (--adapter-service-namespace, --adapter-service-name), when known. */
  self: Partial<ServiceRef>;
  remoteUrl?: string;
  registry: Registry;
  log: Pick<Logger, 'debug' | 'info' | 'warn'>;
  intervalMs?: number;
}

async function readApiService(client: ApiServiceWatchOptions['client'], name: string): Promise<ApiServiceRead> {
  try {
    return { found: await client.get<ApiServiceLike>(resourcePath('apiregistration.k8s.io/v1', 'apiservices', undefined, name)) };
  } catch (e) {
    if (e instanceof KubeApiError && e.notFound) return { absent: true };
    return { error: e instanceof KubeApiError ? `HTTP ${e.status} ${e.reason}` : (e as Error).message };
  }
}

export function watchApiServiceClaims(o: ApiServiceWatchOptions): { check(): Promise<ClaimVerdict[]>; stop(): void } {
  const gauge = new Gauge({
    name: `${METRIC_PREFIX}metrics_apiservice_owner`,
    help:
      'One series per APIService this adapter serves, set to 1, labelled with what it points to: state ours, other (another server holds it; serve leaves it as it is), ' +
      'unknown (a Service serve cannot tell from its own without --adapter-service-name/--adapter-service-namespace), local, absent or unreadable; owner is the Service as namespace/name',
    labelNames: ['apiservice', 'state', 'owner'],
    registers: [o.registry],
  });
  let previous: ClaimVerdict[] | undefined;
  const check = async (): Promise<ClaimVerdict[]> => {
    const verdicts: ClaimVerdict[] = [];
    for (const name of SERVED_APISERVICES) verdicts.push(judgeApiService(name, await readApiService(o.client, name), o.self, o.remoteUrl));
    for (const v of changedVerdicts(previous, verdicts)) {
      o.log[v.level]({ apiService: v.apiService, state: v.state, ...(v.owner ? { owner: v.owner } : {}), ...(v.neighbour ? { neighbour: v.neighbour } : {}) }, v.message);
    }
    previous = verdicts;
    gauge.reset();
    for (const v of verdicts) gauge.set({ apiservice: v.apiService, state: v.state, owner: v.owner ?? '' }, 1);
    return verdicts;
  };
  const poll = every(o.intervalMs ?? APISERVICE_CHECK_MS, check);
  return { check, stop: () => poll.stop() };
}
