// craned's command-line flags, as a user migrating from Crane copies them from craned's Deployment, turned
// into `serve`'s own flags before they are parsed. Each craned flag is one row: an alias of a flag of ours
// that means the same thing, accepted and ignored (one log line) where it configures a part of craned that
// does not exist here and ignoring it changes nothing we compute, or refused with a pointer where ignoring
// it would silently predict or authenticate differently from what the user asked for.
//
// The flag names and value shapes are those craned registers (gocrane/crane cmd/craned/app/options/options.go
// and server_options.go at master, pkg/features/features.go for the gates, klog's flags through
// AddGoFlagSet in cmd/craned/app/manager.go) and the Helm chart's defaults (gocrane/helm-charts
// charts/crane/values.yaml: --prometheus-address, --feature-gates=Analysis=true,TimeSeriesPrediction=true,
// Autoscaling=true, --v=2, and --recommendation-configuration-file from the Deployment template). The
// table is our own; docs/crane-behaviour.md §C.8 lists it with the reasons.
import { UsageError, type FlagSpec } from '../config/flags.ts';

/** What the translation did with one craned flag, for serve to log once it has a logger. */
export interface ArgNotice {
  level: 'info' | 'warn';
  flag: string;
  message: string;
}

export interface TranslatedArgs {
  argv: string[];
  notices: ArgNotice[];
}

/** A craned flag's value after the name: undefined for a bare boolean. */
type Apply = (value: string | undefined) => { args: string[]; notice?: Omit<ArgNotice, 'flag'> } | { refuse: string };

interface CranedFlag {
  /** pflag booleans take no separate value (`--x` or `--x=false`); every other flag takes one. */
  bool?: boolean;
  apply: Apply;
}

const DOC = 'docs/crane-behaviour.md §C.8';

function alias(to: string, note = ''): CranedFlag {
  return { apply: (v) => ({ args: [`--${to}=${v ?? ''}`], notice: { level: 'info', message: `craned flag taken as --${to}${note}` } }) };
}
function ignored(why: string, bool = false): CranedFlag {
  return { bool, apply: () => ({ args: [], notice: { level: 'info', message: `craned flag ignored: ${why}` } }) };
}
const isUnset = (v: string | undefined, bool: boolean) => (bool ? v !== undefined && /^(false|0|f)$/i.test(v) : v === undefined || v.trim() === '');
/** Ignored when empty (Crane's default, which Helm charts render), refused with `why` when set. */
function refusedWhenSet(why: string, bool = false): CranedFlag {
  return { bool, apply: (v) => (isUnset(v, bool) ? { args: [], notice: { level: 'info', message: 'craned flag ignored: unset, as by default' } } : { refuse: why }) };
}

// pkg/features/features.go: the gates craned registers. The two for what ehpa-adapter is must stay on
// (turning a controller off is --controllers here); the others switch parts of Crane this does not have.
const OUR_GATES = new Set(['Autoscaling', 'TimeSeriesPrediction']);
const OTHER_GATES = new Set(['Analysis', 'NodeResource', 'NodeResourceTopology', 'PodResource', 'ClusterNodePrediction', 'CraneCPUManager', 'DashboardControl', 'QOSInitializer', 'AllAlpha', 'AllBeta']);

/** k8s.io/component-base featuregate's `Name=bool,Name=bool` (strconv.ParseBool values). */
function featureGates(value: string | undefined): ReturnType<Apply> {
  const ignoredGates: string[] = [];
  for (const pair of (value ?? '').split(',')) {
    const item = pair.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const name = (eq < 0 ? item : item.slice(0, eq)).trim();
    const raw = eq < 0 ? '' : item.slice(eq + 1).trim();
    let on: boolean;
    if (/^(1|t|true)$/i.test(raw)) on = true;
    else if (/^(0|f|false)$/i.test(raw)) on = false;
    else return { refuse: `--feature-gates: "${item}" is not Name=true or Name=false` };
    if (OUR_GATES.has(name)) {
      if (!on) return { refuse: `--feature-gates ${name}=false turns off a controller; here that is --controllers (e.g. --controllers=${name === 'Autoscaling' ? 'tsp' : 'ehpa'}), so drop the gate` };
    } else if (OTHER_GATES.has(name)) {
      ignoredGates.push(name);
    } else {
      return { refuse: `--feature-gates: unrecognized feature gate "${name}" (craned would refuse it too)` };
    }
  }
  const why = ignoredGates.length ? `; ${ignoredGates.join(', ')} switch parts of Crane that ehpa-adapter does not have` : '';
  return { args: [], notice: { level: 'info', message: `craned flag ignored: the EHPA and TSP controllers always exist here (pick them with --controllers)${why}` } };
}

/** craned's --datasource (a pflag string slice, default "prom"): only Prometheus is read here. */
function datasource(value: string | undefined): ReturnType<Apply> {
  const sources = (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const other = sources.filter((s) => s !== 'prom');
  if (other.length) {
    return { refuse: `--datasource=${other.join(',')}: ehpa-adapter reads history from Prometheus only (--prometheus-url); craned's mock, grpc and metricserver sources are not supported (${DOC})` };
  }
  return { args: [], notice: { level: 'info', message: 'craned flag ignored: Prometheus (--prometheus-url) is the only data source here' } };
}

/** craned's --metrics-bind-address is Go's host:port (":8080"); ours is an address with --metrics-port beside it. */
function metricsBindAddress(value: string | undefined): ReturnType<Apply> {
  const v = value ?? '';
  if (v === '0') return { args: [], notice: { level: 'info', message: 'craned flag ignored: "0" turns craned\'s metrics off, but this port also serves /healthz and /readyz' } };
  const m = /^\[([^\]]*)\]:(\d+)$/.exec(v) ?? /^([^:]*):(\d+)$/.exec(v);
  if (!m) return { args: [`--metrics-bind-address=${v}`] };
  const host = m[1] === '' ? '0.0.0.0' : (m[1] as string);
  return { args: [`--metrics-bind-address=${host}`, `--metrics-port=${m[2] as string}`], notice: { level: 'info', message: `craned's host:port taken as --metrics-bind-address=${host} --metrics-port=${m[2] as string}` } };
}

const KLOG_WHY = "klog's logging flag; logs here are JSON lines on stderr at --log-level";
const SECRET_WHY = (ours: string) =>
  `takes the secret on the command line, where ps, /proc and the Deployment show it, and it cannot rotate; ehpa-adapter reads secrets from files: put it in a Secret mounted as a file and pass ${ours} (docs/operations.md, "Secured Prometheus")`;

/** craned's flags that `serve` understands, by name. A flag of ours with the same name and meaning is not listed. */
export const CRANED_FLAGS: Readonly<Record<string, CranedFlag>> = {
  // Prometheus (DataSourcePromConfig).
  'prometheus-address': alias('prometheus-url'),
  'prometheus-auth-username': alias('prometheus-username', ' (with --prometheus-password-file)'),
  'prometheus-auth-password': refusedWhenSet(SECRET_WHY('--prometheus-username with --prometheus-password-file')),
  'prometheus-auth-bearertoken': refusedWhenSet(SECRET_WHY('--prometheus-token-file')),
  'prometheus-query-concurrency': alias('prometheus-max-concurrency'),
  'prometheus-maxpoints': alias('prometheus-max-points'),
  'prometheus-keepalive': ignored('connections to Prometheus are kept alive by the HTTP client'),
  'prometheus-bratelimit': ignored('requests in flight are bounded by --prometheus-max-concurrency', true),
  'prometheus-thanos-partial': ignored('the Thanos querier\'s own partial-response setting applies', true),
  'prometheus-thanos-dedup': ignored('the Thanos querier deduplicates by default', true),
  'prometheus-federated-cluster-scope': refusedWhenSet(`adds a cluster label to every query, which is not built here: point --prometheus-url at the cluster's own Prometheus or write the matcher in the query (${DOC})`, true),
  'prometheus-cluster-label-name': refusedWhenSet(`adds a cluster label to every query, which is not built here: point --prometheus-url at the cluster's own Prometheus or write the matcher in the query (${DOC})`),
  'prometheus-cluster-label-value': refusedWhenSet(`adds a cluster label to every query, which is not built here: point --prometheus-url at the cluster's own Prometheus or write the matcher in the query (${DOC})`),
  'extension-labels': refusedWhenSet(`adds labels to every built-in query, which is not built here: write the matchers in a metric-query annotation (EHPA) or expressionQuery (TSP) (${DOC})`),
  'prometheus-adapter-extension-labels': refusedWhenSet(`prometheus-adapter rules are not read here: give the metric a metric-query.autoscaling.crane.io annotation (${DOC})`),
  'prometheus-adapter-configmap-namespace': refusedWhenSet(`prometheus-adapter rules are not read here: give each Pods/External metric a metric-query.autoscaling.crane.io annotation (${DOC})`),
  'prometheus-adapter-configmap-name': refusedWhenSet(`prometheus-adapter rules are not read here: give each Pods/External metric a metric-query.autoscaling.crane.io annotation (${DOC})`),
  'prometheus-adapter-configmap-key': refusedWhenSet(`prometheus-adapter rules are not read here: give each Pods/External metric a metric-query.autoscaling.crane.io annotation (${DOC})`),
  'prometheus-adapter-config': refusedWhenSet(`prometheus-adapter rules are not read here: give each Pods/External metric a metric-query.autoscaling.crane.io annotation (${DOC})`),
  datasource: { apply: datasource },
  'seed-file': ignored("configures craned's mock data source, which is not supported"),
  'grpc-ds-address': ignored("configures craned's grpc data source, which is not supported"),
  'grpc-ds-timeout': ignored("configures craned's grpc data source, which is not supported"),
  // Kubernetes client and manager.
  'api-qps': alias('kube-api-qps'),
  'api-burst': alias('kube-api-burst'),
  'metrics-bind-address': { apply: metricsBindAddress },
  'health-probe-bind-address': ignored('/healthz and /readyz are served on --metrics-port'),
  'lease-duration': alias('leader-election-lease-duration'),
  'lease-renew-period': alias('leader-election-renew-deadline', " (craned binds it to the Lease's renew deadline)"),
  'lease-retry-period': alias('leader-election-retry-period'),
  'cache-unstructured': ignored('this process caches only the kinds it watches', true),
  // Controllers.
  'prediction-update-frequency-duration': alias('prediction-update-frequency'),
  'time-series-prediction-max-concurrent-reconciles': alias('tsp-workers'),
  'feature-gates': { apply: featureGates },
  'webhook-enabled': ignored("there is no admission webhook: the CRDs' own rules refuse bad objects at admission", true),
  'recommendation-config-file': ignored("Crane's recommendations are not part of ehpa-adapter"),
  'recommendation-configuration-file': ignored("Crane's recommendations are not part of ehpa-adapter"),
  'qos-config-file': ignored("Crane's QoS ensurance is not part of ehpa-adapter"),
  'oom-record-max-number': ignored("the VPA recommender reads OOMs from Evicted events, not craned's ConfigMap"),
  // craned's dashboard web server (ServerOptions).
  'server-bind-address': ignored("craned's dashboard API is not served here"),
  'server-bind-port': ignored("craned's dashboard API is not served here"),
  'server-enable-profiling': ignored("craned's dashboard API is not served here", true),
  'server-enable-metrics': ignored("craned's dashboard API is not served here; /metrics is on --metrics-port", true),
  'server-mode': ignored("craned's dashboard API is not served here"),
  'server-enable-grafana': ignored("craned's dashboard API is not served here", true),
  'server-grafana-config': ignored("craned's dashboard API is not served here"),
  'server-store': ignored("craned's dashboard API is not served here"),
  // klog, registered on craned's command line and on Crane's metric-adapter's.
  v: ignored(`${KLOG_WHY} (--log-level=debug for more)`),
  vmodule: ignored(KLOG_WHY),
  logtostderr: ignored(KLOG_WHY, true),
  alsologtostderr: ignored(KLOG_WHY, true),
  log_dir: ignored(KLOG_WHY),
  log_file: ignored(KLOG_WHY),
  log_file_max_size: ignored(KLOG_WHY),
  stderrthreshold: ignored(KLOG_WHY),
  add_dir_header: ignored(KLOG_WHY, true),
  skip_headers: ignored(KLOG_WHY, true),
  skip_log_headers: ignored(KLOG_WHY, true),
  one_output: ignored(KLOG_WHY, true),
  log_backtrace_at: ignored(KLOG_WHY),
  // Crane's metric-adapter (cmd/metric-adapter/main.go): its start-up message.
  msg: ignored("Crane's metric-adapter start-up message"),
};

// pflag string slices: craned appends every occurrence, where our parser keeps the last. Joined here so a
// repeated flag keeps every value.
const STRING_SLICES = new Set(['ehpa-propagation-label-prefixes', 'ehpa-propagation-labels', 'ehpa-propagation-annotation-prefixes', 'ehpa-propagation-annotations']);

/**
 * `argv` with craned's flags rewritten into ours. Flags of `ours` pass through unchanged (the parser checks
 * their values); a flag neither ours nor craned's is an unknown flag with a pointer to the table. klog's
 * `-v=2` (pflag gives one-letter Go flags a shorthand) is read as `--v=2`. Throws UsageError on a refusal.
 */
export function translateCranedArgs(argv: readonly string[], ours: readonly FlagSpec[]): TranslatedArgs {
  const ourByName = new Map(ours.map((f) => [f.name, f]));
  const out: string[] = [];
  const notices: ArgNotice[] = [];
  const slices = new Map<string, { at: number; values: string[] }>();
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i] as string;
    if (/^-v(=|$)/.test(arg)) arg = `-${arg}`;
    if (!arg.startsWith('--')) {
      out.push(arg); // the parser says what is wrong with it
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    const our = ourByName.get(name);
    const craned = CRANED_FLAGS[name];
    if (our && STRING_SLICES.has(name)) {
      let value = inline;
      if (value === undefined) {
        value = argv[i + 1];
        if (value === undefined) throw new UsageError(`flag --${name} needs a value`);
        i++;
      }
      const seen = slices.get(name);
      if (seen) seen.values.push(value);
      else {
        slices.set(name, { at: out.length, values: [value] });
        out.push('');
      }
      continue;
    }
    if (our && !craned) {
      out.push(arg);
      // A value in the next argument belongs to the flag; copy it unread.
      if (inline === undefined && our.type !== 'bool' && i + 1 < argv.length) out.push(argv[++i] as string);
      continue;
    }
    if (!craned) throw new UsageError(`unknown flag --${name} (neither a flag of ehpa-adapter serve nor one of craned's it knows; see ${DOC})`);
    let value = inline;
    if (value === undefined && !craned.bool) {
      value = argv[i + 1];
      if (value === undefined) throw new UsageError(`flag --${name} needs a value`);
      i++;
    }
    const r = craned.apply(value);
    if ('refuse' in r) throw new UsageError(`craned's --${name} is not accepted: ${r.refuse}`);
    out.push(...r.args);
    if (r.notice) notices.push({ flag: `--${name}`, ...r.notice });
  }
  for (const [name, { at, values }] of slices) out[at] = `--${name}=${values.filter((v) => v !== '').join(',')}`;
  return { argv: out, notices };
}
