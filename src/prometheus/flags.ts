// The Prometheus every loop reads (TSP history, the adapter's fallback, the VPA recommender), declared once,
// and the client options they make. Names follow prometheus-adapter's flags where it has one
// (--prometheus-ca-file, --prometheus-token-file, --prometheus-client-cert/-key, --prometheus-header); the
// mapping to Crane's and prometheus-adapter's flags is in docs/operations.md, "Secured Prometheus".
import { UsageError, type FlagSpec, type FlagsOf } from '../config/flags.ts';
import type { PrometheusOptions } from './client.ts';
import { CredentialsError, parseHeaderList } from './credentials.ts';
import { DEFAULT_PROMQL_COST_BOUNDS, formatPromqlDuration, type PromqlCostBounds } from './promql-cost.ts';

export const PROMETHEUS_FLAGS = [
  { name: 'prometheus-url', type: 'string', default: undefined, help: 'Prometheus base URL for TimeSeriesPrediction history, e.g. http://prometheus:9090 (put no credentials here: use the flags below)' },
  { name: 'prometheus-timeout', type: 'duration', default: '3m', help: 'timeout of one Prometheus query_range request' },
  { name: 'prometheus-max-points', type: 'int', default: 11000, min: 2, help: 'most points per series in one query_range; longer ranges are split' },
  { name: 'prometheus-max-concurrency', type: 'int', default: 8, min: 1, max: 1000, help: 'Prometheus requests in flight at once per loop; more wait their turn' },
  { name: 'prometheus-token-file', type: 'string', default: undefined, help: 'file with a bearer token for Prometheus, re-read every --prometheus-credentials-reread-interval (projected service-account tokens rotate)' },
  { name: 'prometheus-username', type: 'string', default: undefined, help: 'basic-auth user for Prometheus (with --prometheus-password-file)' },
  { name: 'prometheus-password-file', type: 'string', default: undefined, help: 'file with the basic-auth password for Prometheus, re-read every --prometheus-credentials-reread-interval' },
  { name: 'prometheus-credentials-reread-interval', type: 'duration', default: '1m', min: 1000, help: 'how old the in-memory copy of the token or password file may get before the file is read again' },
  { name: 'prometheus-ca-file', type: 'string', default: undefined, help: "PEM CA bundle that verifies Prometheus' TLS certificate (default: the system roots)" },
  { name: 'prometheus-client-cert', type: 'string', default: undefined, help: 'PEM client certificate for mutual TLS to Prometheus (with --prometheus-client-key)' },
  { name: 'prometheus-client-key', type: 'string', default: undefined, help: 'PEM key of --prometheus-client-cert' },
  { name: 'prometheus-insecure-skip-verify', type: 'bool', default: false, help: "do not verify Prometheus' TLS certificate (testing only; logged as a warning)" },
  { name: 'prometheus-header', type: 'string', default: undefined, help: 'extra request headers as Name=value[,Name=value], e.g. X-Scope-OrgID=team-a for Mimir/Cortex tenants' },
] as const satisfies readonly FlagSpec[];

export type PrometheusFlags = FlagsOf<typeof PROMETHEUS_FLAGS>;

/**
 * What one namespace's PromQL may cost Prometheus (`serve` only: the queries tenants write or trigger).
 * docs/security.md §3 gives the reasons for the numbers.
 */
export const TENANT_PROMQL_FLAGS = [
  {
    name: 'user-promql-max-range', type: 'duration', default: formatPromqlDuration(DEFAULT_PROMQL_COST_BOUNDS.maxRangeMs), min: 1000,
    help: 'longest range [d] of a range selector or subquery in PromQL users write; a longer one is refused with a condition (unrestricted namespaces are not checked)',
  },
  {
    name: 'user-promql-min-subquery-step', type: 'duration', default: formatPromqlDuration(DEFAULT_PROMQL_COST_BOUNDS.minSubqueryStepMs), min: 1,
    help: 'finest resolution [d:r] of a subquery in PromQL users write; a finer one is refused with a condition',
  },
  {
    name: 'prometheus-max-concurrency-per-namespace', type: 'int', default: 2, min: 1, max: 1000,
    help: "Prometheus requests in flight at once for one namespace's metric requests; more wait in that namespace's own queue, so one namespace never holds all --prometheus-max-concurrency slots",
  },
  {
    name: 'prometheus-namespace-time-share', type: 'float', default: 0.25, min: 0, max: 1000,
    help: "seconds of Prometheus time one namespace's metric requests may use per second, sustained (10 s saved up at most); past it they are answered 503 until it has earned time again (0: no limit)",
  },
] as const satisfies readonly FlagSpec[];

/** The cost bounds of user PromQL from the flags. */
export function promqlCostBoundsFromFlags(f: FlagsOf<typeof TENANT_PROMQL_FLAGS>): PromqlCostBounds {
  return { maxRangeMs: f['user-promql-max-range'], minSubqueryStepMs: f['user-promql-min-subquery-step'] };
}

/** Client options from the flags, or undefined without --prometheus-url; a flag mistake is a UsageError. */
export function prometheusOptionsFromFlags(f: PrometheusFlags, overrides: Partial<PrometheusOptions> = {}): PrometheusOptions | undefined {
  const url = f['prometheus-url'];
  if (!url) return undefined;
  let headers: Record<string, string>;
  try {
    headers = parseHeaderList(f['prometheus-header']);
  } catch (e) {
    if (e instanceof CredentialsError) throw new UsageError(e.message);
    throw e;
  }
  if (!!f['prometheus-client-cert'] !== !!f['prometheus-client-key']) throw new UsageError('--prometheus-client-cert and --prometheus-client-key go together');
  if (!!f['prometheus-username'] !== !!f['prometheus-password-file']) throw new UsageError('--prometheus-username and --prometheus-password-file go together');
  if (f['prometheus-token-file'] && f['prometheus-username']) throw new UsageError('choose one of --prometheus-token-file and --prometheus-username');
  if (/^[a-z]+:\/\/[^/@]*@/i.test(url)) throw new UsageError('--prometheus-url must not carry credentials: use --prometheus-username/--prometheus-password-file or --prometheus-token-file');
  const credentials = {
    ...(f['prometheus-token-file'] ? { bearerTokenFile: f['prometheus-token-file'] } : {}),
    ...(f['prometheus-username'] ? { username: f['prometheus-username'] } : {}),
    ...(f['prometheus-password-file'] ? { passwordFile: f['prometheus-password-file'] } : {}),
    ...(f['prometheus-ca-file'] ? { caFile: f['prometheus-ca-file'] } : {}),
    ...(f['prometheus-client-cert'] ? { certFile: f['prometheus-client-cert'] } : {}),
    ...(f['prometheus-client-key'] ? { keyFile: f['prometheus-client-key'] } : {}),
    ...(f['prometheus-insecure-skip-verify'] ? { insecureSkipVerify: true } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
  };
  return {
    url,
    timeoutMs: f['prometheus-timeout'],
    maxPoints: f['prometheus-max-points'],
    maxConcurrency: f['prometheus-max-concurrency'],
    credentials,
    credentialsRereadMs: f['prometheus-credentials-reread-interval'],
    ...overrides,
  };
}
