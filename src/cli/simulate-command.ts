// `ehpa-adapter simulate`: what an EHPA would have done on a recorded CPU history, next to a plain CPU HPA.
// Reads the files, resolves defaults, runs the pure replay (src/simulate), prints one JSON line per step
// and a summary line, and optionally writes an SVG chart. Time comes from the data, never the clock.
import { readFile, writeFile } from 'node:fs/promises';
import { defineCommand } from './command.ts';
import { UsageError } from '../config/flags.ts';
import { parseSeriesCsv, SeriesCsvError } from '../prediction/series-csv.ts';
import { parseEhpaYaml, podCpuRequestFromAnnotation, POD_CPU_REQUEST_ANNOTATION, SimulationInputError } from '../simulate/ehpa-input.ts';
import { defaultReplayStart, simulate, type SimulationResult } from '../simulate/simulate.ts';
import { renderSvg } from '../simulate/svg-plot.ts';
import { quantityMilli } from '../quantity/index.ts';
import { CronWindowError } from '../cron/cron-window.ts';
import { BOUNDS } from '../api/bounds.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../api/ehpa.ts';
import { workloadCpuQuery } from '../ehpa/observed-query.ts';
import { UnsupportedQueryError } from '../prediction/history/queries.ts';
import { PrometheusClient, PrometheusError, redactUrl } from '../prometheus/client.ts';
import { PROMETHEUS_FLAGS, prometheusOptionsFromFlags, type PrometheusFlags } from '../prometheus/flags.ts';
import { isoCost, isoCostTable } from '../simulate/iso-cost.ts';
import type { ParsedSeries } from '../prediction/series-csv.ts';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:\d{2})?$/;

/** Unix seconds, `YYYY-MM-DD HH:MM[:SS]` (UTC) or ISO 8601 with Z or an offset. */
export function parseInstant(text: string, flag: string): number {
  const s = text.trim();
  if (/^\d+$/.test(s)) return Number(s);
  const m = DATE_TIME.exec(s);
  if (m) {
    const iso = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${m[7] ?? 'Z'}`;
    const ms = Date.parse(iso);
    if (Number.isFinite(ms)) return Math.floor(ms / 1000);
  }
  throw new UsageError(`invalid value "${text}" for --${flag}: expected unix seconds or YYYY-MM-DD HH:MM:SS (UTC)`);
}

function wholeSeconds<F>(flags: F, name: keyof F & string): number {
  const ms = flags[name] as number;
  if (ms <= 0 || ms % 1000 !== 0) throw new UsageError(`--${name} must be a positive whole number of seconds`);
  return ms / 1000;
}

/**
 * Progress of a long replay on stderr: nothing for the first `everyMs`, then one line every `everyMs` with
 * the share of steps done. The clock is injected so tests need not wait.
 */
export function progressPrinter(out: NodeJS.WritableStream, now: () => number = Date.now, everyMs = 5000, unit = 'steps'): (done: number, total: number) => void {
  const started = now();
  let next = started + everyMs;
  return (done, total) => {
    const t = now();
    if (t < next || done >= total) return;
    next = t + everyMs;
    const pct = Math.floor((100 * done) / Math.max(1, total));
    out.write(`simulate: ${pct}% (${done} of ${total} ${unit}, ${Math.round((t - started) / 1000)} s)\n`);
  };
}

async function readText(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new UsageError(`--${flag}: cannot read ${path}: ${(e as Error).message}`);
  }
}

const DETAILS = `Replays --history (a CSV like \`forecast\` reads: time, then the workload's TOTAL CPU in cores) through
what the server would do for the EHPA in --ehpa, and through a plain HPA with the EHPA's original metrics
(or 80% CPU when it has none) reacting to observed usage. Prints one JSON line per step ({"type":"step"})
and then one summary line ({"type":"summary"}). A replay longer than 5 s prints its progress on stderr
every 5 s.

What is replayed with the server's own code: the desired HPA (original metrics + crane_pod_cpu_usage +
the cron metric), forecasts of the history up to each step (refreshed when the last one no longer covers
[now, now + predictionWindowSeconds], forecasting 2 windows as the TSP controller does), the largest
forecast in the window split over the pods, cron windows, and the HPA's replica formula with tolerance,
the downscale stabilization window, the scale-up limit (max(2x, 4) per sync) and min/max.

Assumptions: the workload's CPU does not depend on its replica count; pods are identical and share CPU
evenly; each pod requests --pod-cpu-request (else the EHPA annotation
${POD_CPU_REQUEST_ANNOTATION}, else 1 core); the HPA syncs every --step; behavior policies other than
scaleDown.stabilizationWindowSeconds are not replayed; metrics other than CPU, crane_pod_cpu_usage and
the cron metric are skipped (listed in the summary). A failed forecast is retried every --forecast-retry
(the server retries every 30 s). "Under-provisioned" means the usage at a step exceeded the replicas
ready during the interval it measures (decided at earlier steps) times the per-pod CPU target.
scaleStrategy and specificReplicas are ignored: the replay shows what Auto would do. Times in the output
are unix seconds.

History from Prometheus (--prometheus-url, instead of --history): the workload's total CPU over the
--since before --until (default: now), read with the query the TSP controller fits for this EHPA (its CPU
metric-query annotation, else the built-in workload CPU query of its scale target, confined to its
namespace), at --step resolution. The query is printed on stderr. The Prometheus auth and TLS flags are
serve's.

The plain-HPA frontier (--frontier): instead of the step lines and the summary, prints a table: the EHPA as
written, and plain HPAs (no prediction) at 100 %, 98 %, … 80 %, 70 %, … 40 % of its CPU target, each replayed
on the same history, all judged by one rule (a minute is short when usage > ready replicas × the EHPA's
per-pod target), with whether prediction pays: at its replica-hours it is short less than the plain HPAs
there, or at its short minutes it costs less (docs/tuning-prediction.md).

Pod start-up (--pod-startup D, default 0: pods ready at once): a pod the HPA adds at t serves only from
t + D, and counts as capacity for a step only if it was ready since the previous step; removals take
effect at once and remove starting pods first. Starting pods count in the HPA's current replicas (as in
Kubernetes) and in replica-hours (they cost money), not in capacity. The HPA divides the total CPU (or
forecast) over all its pods, ready or not, which is what upstream does when scaling up with unready pods
(they count with zero usage), so starting pods hold further scale-ups back; upstream's scale-down rules
for unready pods and its CPU initialization period are not replayed. Each step line gives readyReplicas.`;

export const simulateCommand = defineCommand({
  name: 'simulate',
  details: DETAILS,
  flags: [
    { name: 'ehpa', type: 'string', default: undefined, help: 'YAML file with an EffectiveHorizontalPodAutoscaler (required)' },
    { name: 'history', type: 'string', default: undefined, help: 'CSV with a header: time (unix seconds or "YYYY-MM-DD HH:MM:SS" UTC), workload total CPU in cores (this or --prometheus-url)' },
    { name: 'since', type: 'duration', default: '14d', help: 'with --prometheus-url: how much history to read, up to --until' },
    { name: 'until', type: 'string', default: undefined, help: 'with --prometheus-url: end of the history read (unix seconds or "YYYY-MM-DD HH:MM:SS" UTC; default: now)' },
    { name: 'frontier', type: 'bool', default: false, help: 'print the EHPA against plain HPAs at lower CPU targets on the same history (a table) instead of the step lines and summary' },
    { name: 'from', type: 'string', default: undefined, help: 'replay start (unix seconds or "YYYY-MM-DD HH:MM:SS" UTC); earlier history only feeds the forecaster (default: first sample + the forecaster\'s history length, at most half the data)' },
    { name: 'to', type: 'string', default: undefined, help: 'replay end, inclusive (default: last sample)' },
    { name: 'step', type: 'duration', default: '60s', help: 'HPA sync interval of the replay' },
    { name: 'pod-cpu-request', type: 'string', default: undefined, help: `CPU request of one pod, a quantity like 500m or 2 (default: annotation ${POD_CPU_REQUEST_ANNOTATION}, else 1)` },
    { name: 'tolerance', type: 'float', default: 0.1, min: 0, max: 1, help: "HPA tolerance (kube-controller-manager's --horizontal-pod-autoscaler-tolerance)" },
    { name: 'downscale-stabilization', type: 'duration', default: '5m', help: 'downscale stabilization window when the EHPA sets no behavior.scaleDown.stabilizationWindowSeconds' },
    { name: 'prediction-pays', type: 'enum', values: ['enforce', 'observe'], default: 'enforce', help: "as serve's flag: enforce steps aside where auto mode's forecast does not pay against a plain HPA on its own history (the metric reads 0: the HPA scales as a plain one), observe serves it anyway" },
    { name: 'prediction-fallback', type: 'enum', values: ['observed', 'error'], default: 'observed', help: 'without a forecast, crane_pod_cpu_usage serves observed usage (observed) or fails (error, as Crane)' },
    { name: 'initial-replicas', type: 'int', default: undefined, min: 0, help: 'replicas at the start (default: what meets the per-pod target at the first step, within min/max)' },
    { name: 'pod-startup', type: 'duration', default: '0s', help: 'time from a scale-up until the new pod serves (e.g. 90s, 3m); starting pods count as replicas and cost, but give no capacity' },
    { name: 'forecast-retry', type: 'duration', default: '10m', help: 'wait after a failed forecast before the next try' },
    { name: 'seed', type: 'int', default: 1, min: 0, max: 4294967295, help: "seed of period detection's permutation test" },
    { name: 'local-zone', type: 'string', default: undefined, help: 'IANA zone that cron timezone "Local" means (default: this process\' zone)' },
    { name: 'plot', type: 'string', default: undefined, help: 'write an SVG chart of usage, forecast and both replica curves to this file' },
    { name: 'print-steps', type: 'bool', default: true, help: 'print the per-step JSON lines (false: summary only)' },
    ...PROMETHEUS_FLAGS,
  ],
  async run(flags, io) {
    const ehpaPath = flags['ehpa'];
    const historyPath = flags['history'];
    if (!ehpaPath) throw new UsageError('--ehpa is required');
    if (!historyPath === !flags['prometheus-url']) throw new UsageError('give one of --history (a CSV file) and --prometheus-url');
    const localZone = (flags['local-zone']) ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    let ehpa;
    try {
      ehpa = parseEhpaYaml(await readText(ehpaPath, 'ehpa'));
    } catch (e) {
      if (e instanceof SimulationInputError) throw new UsageError(`${ehpaPath}: ${e.message}`);
      throw e;
    }
    const stepSeconds = wholeSeconds(flags, 'step');
    let history: ParsedSeries;
    if (historyPath) {
      try {
        history = parseSeriesCsv(await readText(historyPath, 'history'));
      } catch (e) {
        if (e instanceof SeriesCsvError) throw new UsageError(`${historyPath}: ${e.message}`);
        throw e;
      }
    } else {
      history = await historyFromPrometheus(flags, ehpa, stepSeconds, io.stderr);
    }
    const podStartupMs = flags['pod-startup'];
    if (!(podStartupMs >= 0)) throw new UsageError(`--pod-startup must not be negative (got ${podStartupMs / 1000}s)`);
    let podCpuRequestMilli: number;
    const requestFlag = flags['pod-cpu-request'];
    if (requestFlag !== undefined) {
      const m = quantityMilli(requestFlag);
      if (m === undefined || m <= 0) throw new UsageError(`invalid value "${requestFlag}" for --pod-cpu-request: expected a positive CPU quantity like 500m or 2`);
      podCpuRequestMilli = m;
    } else {
      try {
        podCpuRequestMilli = podCpuRequestFromAnnotation(ehpa) ?? 1000;
      } catch (e) {
        if (e instanceof SimulationInputError) throw new UsageError(`${ehpaPath}: ${e.message}`);
        throw e;
      }
    }
    const first = history.timestamps[0] as number;
    const last = history.timestamps[history.timestamps.length - 1] as number;
    const fromText = flags['from'];
    const toText = flags['to'];
    const fromS = fromText !== undefined ? parseInstant(fromText, 'from') : defaultReplayStart(ehpa, history, stepSeconds);
    const toS = toText !== undefined ? parseInstant(toText, 'to') : last;
    if (toS < fromS) throw new UsageError(`the replay window is empty: --to (${toS}) is before --from (${fromS})`);
    if (fromS > last || toS < first) throw new UsageError(`the replay window [${fromS}, ${toS}] does not overlap the history [${first}, ${last}]`);
    let result: SimulationResult;
    try {
      const options = {
        ehpa,
        history,
        fromS,
        toS,
        stepSeconds,
        podCpuRequestMilli,
        tolerance: flags['tolerance'],
        downscaleStabilizationSeconds: wholeSeconds(flags, 'downscale-stabilization'),
        localZone,
        seed: flags['seed'],
        predictionFallback: flags['prediction-fallback'] as 'observed' | 'error',
        predictionPays: flags['prediction-pays'] as 'enforce' | 'observe',
        forecastRetrySeconds: wholeSeconds(flags, 'forecast-retry'),
        podStartupSeconds: podStartupMs / 1000,
        onProgress: progressPrinter(io.stderr),
        ...(flags['initial-replicas'] !== undefined ? { initialReplicas: flags['initial-replicas'] } : {}),
      };
      if (flags['frontier']) {
        const r = isoCost(options, progressPrinter(io.stderr, Date.now, 5000, 'policies replayed'));
        io.stdout.write(isoCostTable(r));
        return 0;
      }
      result = simulate(options);
    } catch (e) {
      if (e instanceof SimulationInputError || e instanceof CronWindowError) throw new UsageError(`${ehpaPath}: ${e.message}`);
      throw e;
    }
    if (flags['print-steps']) {
      for (const s of result.steps) io.stdout.write(JSON.stringify({ type: 'step', ...s }) + '\n');
    }
    io.stdout.write(JSON.stringify(result.summary) + '\n');
    const plot = flags['plot'];
    if (plot) {
      const svg = renderSvg(result.steps, {
        title: `ehpa-adapter simulate: ${ehpa.metadata.namespace}/${ehpa.metadata.name} (${new Date(fromS * 1000).toISOString()} to ${new Date(toS * 1000).toISOString()})`,
        stepSeconds,
        perPodTargetCores: result.summary.perPodTargetCores,
        summary: result.summary,
      });
      try {
        await writeFile(plot, svg);
      } catch (e) {
        throw new UsageError(`--plot: cannot write ${plot}: ${(e as Error).message}`);
      }
    }
    return 0;
  },
});

/** The workload's CPU history from Prometheus, read as the TSP controller would (I/O: the one network edge here). */
async function historyFromPrometheus(flags: PrometheusFlags & { since: number; until: string | undefined }, ehpa: EffectiveHorizontalPodAutoscaler, stepSeconds: number, err: NodeJS.WritableStream): Promise<ParsedSeries> {
  const options = prometheusOptionsFromFlags(flags);
  if (!options) throw new UsageError('--prometheus-url is required without --history');
  const sinceMs = flags.since;
  if (!(sinceMs > 0) || sinceMs % 1000 !== 0) throw new UsageError('--since must be a positive whole number of seconds');
  if (sinceMs / 1000 > BOUNDS.historyLengthSeconds.max) throw new UsageError(`--since must be at most ${BOUNDS.historyLengthSeconds.max / 86_400}d`);
  // The one reading of the clock: "the last 14 days" ends now unless --until says otherwise.
  const untilS = flags.until !== undefined ? parseInstant(flags.until, 'until') : Math.floor(Date.now() / 1000);
  let query: string;
  try {
    query = workloadCpuQuery(ehpa);
  } catch (e) {
    if (e instanceof UnsupportedQueryError) throw new UsageError(`the EHPA's CPU query: ${e.message}`);
    throw e;
  }
  err.write(`simulate: reading ${sinceMs / 86_400_000} days of ${query} from ${redactUrl(options.url)}\n`);
  try {
    const series = await new PrometheusClient(options).queryRange(query, untilS - sinceMs / 1000, untilS, stepSeconds, { maxSeries: 1 });
    const s = series[0];
    if (!s || s.timestamps.length < 2) throw new UsageError(`Prometheus has no history for ${query} between ${untilS - sinceMs / 1000} and ${untilS}: is the scale target's CPU scraped (container_cpu_usage_seconds_total)?`);
    return { timestamps: s.timestamps, values: s.values };
  } catch (e) {
    if (e instanceof PrometheusError) throw new UsageError(`Prometheus: ${e.message}`);
    throw e;
  }
}
