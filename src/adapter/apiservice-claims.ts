// Who answers the metrics APIs this adapter serves. An APIService names one backend Service, and `serve`
// never writes APIServices (the install does), so what it can do beside KEDA, prometheus-adapter or Crane's
// metric-adapter is to look at each APIService it would serve, say plainly when another server holds it and
// what to do about it, and leave it as it is. Pure: the reads are apiservice-watch.ts's.

/** The APIServices whose group-versions this adapter serves. */
export const SERVED_APISERVICES = ['v1beta1.custom.metrics.k8s.io', 'v1beta2.custom.metrics.k8s.io', 'v1beta1.external.metrics.k8s.io'] as const;

export interface ServiceRef {
  namespace: string;
  name: string;
  port?: number;
}

export interface ApiServiceLike {
  spec?: { service?: { namespace?: string; name?: string; port?: number } | null };
}

/** What a read of one APIService gave: the object, nothing (404), or why it could not be read. */
export type ApiServiceRead = { found: ApiServiceLike } | { absent: true } | { error: string };

/**
 * ours: points to this adapter's Service; other: to another server's; unknown: to a Service this adapter
 * cannot tell from its own (--adapter-service-name/--adapter-service-namespace unset); local: served by
 * kube-apiserver itself (no Service); absent: not registered; unreadable: the read failed.
 */
export type ClaimState = 'ours' | 'other' | 'unknown' | 'local' | 'absent' | 'unreadable';

export interface ClaimVerdict {
  apiService: string;
  state: ClaimState;
  /** `namespace/name` of the backend Service, when there is one. */
  owner?: string;
  /** The product behind a well-known Service name (KEDA, prometheus-adapter, Crane's metric-adapter). */
  neighbour?: string;
  level: 'debug' | 'info' | 'warn';
  message: string;
}

/** Service names the usual neighbours install under (their charts' and manifests' defaults). */
const NEIGHBOURS: { test: (name: string) => boolean; product: string }[] = [
  { test: (n) => n === 'keda-operator-metrics-apiserver' || n.endsWith('-keda-operator-metrics-apiserver'), product: 'KEDA' },
  { test: (n) => n === 'prometheus-adapter' || n.endsWith('-prometheus-adapter'), product: 'prometheus-adapter' },
  { test: (n) => n === 'metric-adapter' || n === 'crane-metric-adapter', product: "Crane's metric-adapter" },
];

export function neighbourOf(serviceName: string): string | undefined {
  return NEIGHBOURS.find((n) => n.test(serviceName))?.product;
}

/** What EHPAs lose when this adapter does not answer an API group. */
function whatIsLost(apiService: string): string {
  return apiService.endsWith('.external.metrics.k8s.io')
    ? 'EHPAs then lose the cron metrics and crane_autoscaling_prediction, which HPAs written by Crane v0.8+ read; --crane-exporter can hand them to prometheus-adapter instead'
    : 'EHPAs then lose crane_pod_cpu_usage, the forecast their HPAs scale on';
}

/** Whether --remote-adapter already names this Service (https://<name>.<namespace>.svc[.cluster.local][:port]). */
export function remoteNames(remoteUrl: string | undefined, svc: ServiceRef): boolean {
  if (!remoteUrl) return false;
  let host: string;
  try {
    host = new URL(remoteUrl).hostname;
  } catch {
    return false;
  }
  const base = `${svc.name}.${svc.namespace}`;
  return host === base || host === `${base}.svc` || host === `${base}.svc.cluster.local`;
}

/** The verdict on one APIService, with the line `serve` logs for it. */
export function judgeApiService(apiService: string, read: ApiServiceRead, self: Partial<ServiceRef>, remoteUrl?: string): ClaimVerdict {
  if ('error' in read) {
    return {
      apiService, state: 'unreadable', level: 'info',
      message: `cannot read APIService ${apiService} (${read.error}); whether another adapter serves it is not checked (grant get on apiservices.apiregistration.k8s.io)`,
    };
  }
  if ('absent' in read) {
    return { apiService, state: 'absent', level: 'info', message: `APIService ${apiService} is not registered: no request reaches this adapter for it until it is applied` };
  }
  const svc = read.found.spec?.service;
  if (!svc?.name || !svc.namespace) {
    return { apiService, state: 'local', level: 'warn', message: `APIService ${apiService} is served by kube-apiserver itself (no Service); serve leaves it as it is` };
  }
  const ref: ServiceRef = { namespace: svc.namespace, name: svc.name, port: svc.port ?? 443 };
  const owner = `${ref.namespace}/${ref.name}`;
  if (self.name && self.namespace) {
    if (self.name === ref.name && self.namespace === ref.namespace) {
      return { apiService, state: 'ours', owner, level: 'debug', message: `APIService ${apiService} points to this adapter (Service ${owner})` };
    }
  }
  const neighbour = neighbourOf(ref.name);
  if (!(self.name && self.namespace) && !neighbour) {
    return {
      apiService, state: 'unknown', owner, level: 'info',
      message: `APIService ${apiService} points to Service ${owner}; pass --adapter-service-name and --adapter-service-namespace so serve can tell whether that is this adapter`,
    };
  }
  const who = neighbour ? `${neighbour} (Service ${owner})` : `Service ${owner}`;
  const remote = `https://${ref.name}.${ref.namespace}.svc:${ref.port}`;
  const todo = remoteNames(remoteUrl, ref)
    ? `--remote-adapter already points there: to serve EHPAs' metrics too, point the APIService at this adapter's Service, and ${neighbour ?? 'that server'} keeps answering the metrics we do not own through it`
    : `To serve EHPAs' metrics beside it, point the APIService at this adapter's Service and start serve with --remote-adapter=${remote} so it keeps answering the rest; or leave it and do not claim this API here (${whatIsLost(apiService)})`;
  return {
    apiService, state: 'other', owner, ...(neighbour ? { neighbour } : {}), level: 'warn',
    message: `APIService ${apiService} is served by ${who}, not by this adapter; serve leaves it as it is. ${todo}`,
  };
}

/** The verdicts worth a log line now: those whose state or owner differ from the previous check's. */
export function changedVerdicts(previous: readonly ClaimVerdict[] | undefined, next: readonly ClaimVerdict[]): ClaimVerdict[] {
  const key = (v: ClaimVerdict) => `${v.state}|${v.owner ?? ''}`;
  const before = new Map((previous ?? []).map((v) => [v.apiService, key(v)]));
  return next.filter((v) => before.get(v.apiService) !== key(v));
}
