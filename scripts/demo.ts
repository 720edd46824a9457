// `npm run demo`: the whole system on a local control plane. etcd, kube-apiserver, kube-controller-manager
// (the real HPA), kube-scheduler, kwok (a fake node: pods really scheduled and run through their lifecycle),
// the real metrics-server and Prometheus (history backfilled from a real Crane daily trace) come from the
// e2e harness; `ehpa-adapter serve` runs as its own process behind the aggregator. The demo
// creates a Deployment, an EHPA with DSP prediction and a cron window opening a minute later, and a VPA
// for memory, replays the trace's next minutes as live usage, prints what the HPA decides every few
// seconds and ends with a chart (demo.svg) and the raw observations (timeline.json).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { formatFlagHelp, parseFlags, UsageError, type FlagSpec } from '../src/config/flags.ts';
import { cronWindowActive } from '../src/cron/cron-window.ts';
import {
  createDeployment, createNamespace, installCrds, installManifestRbac, locateBinaries, parseTraceCsv, podsOf, queryRange,
  REPO_ROOT, startCluster, usageAnnotations, type AdapterProcess, type Cluster,
} from '../test/e2e/harness/index.ts';
import { renderDemoSvg, type Point } from './demo/chart.ts';
import { formatTick, readTick, type Tick } from './demo/observe.ts';

import {
  CONTAINER, CPU_REQUEST_MILLI, CPU_TARGET_UTILIZATION, demoCronWindow, demoEhpa, demoVpa, HISTORY_POD, MEMORY_BASE_BYTES,
  MAX_REPLICAS, MEMORY_BYTES_PER_CORE, MIN_REPLICAS, NAMESPACE, PREDICTION_WINDOW_SECONDS, serveOffersVpaRecommender, WORKLOAD,
} from './demo/scenario.ts';
import { planTrace, traceValueAt } from './demo/trace-plan.ts';

const DEFAULT_TRACE = 'examples/traces/crane-daily-3d.csv';
const FLAGS: FlagSpec[] = [
  { name: 'trace', type: 'string', default: DEFAULT_TRACE, help: 'workload CPU trace: `ts,value` CSV (unix seconds) at a fixed step, covering at least 50 hours; the default holds 3 days of a Crane test trace' },
  { name: 'minutes', type: 'float', default: 5, min: 2, max: 120, help: 'how long to watch the HPA (at least 2: the cron window opens about a minute in)' },
  { name: 'out', type: 'string', default: 'demo-out', help: 'directory for demo.svg and timeline.json' },
  { name: 'interval', type: 'duration', default: '5s', min: 1000, help: 'time between printed lines' },
  { name: 'help', type: 'bool', default: false, help: 'show this help' },
];

/** What one pod should carry: the EHPA's CPU utilization target of the pod's request, in cores. */
const PER_POD_TARGET_CORES = (CPU_REQUEST_MILLI * CPU_TARGET_UTILIZATION) / 100 / 1000;
const t0 = Date.now();
const say = (msg: string) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function which(name: string): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, name)));
}

async function serveHelp(): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'bin', 'ehpa-adapter.js'), 'serve', '--help'], { cwd: REPO_ROOT });
  return stdout + stderr;
}

async function main(): Promise<number> {
  let flags;
  try {
    flags = parseFlags(FLAGS, process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`demo: ${e.message}`);
      return 2;
    }
    throw e;
  }
  if (flags['help']) {
    console.log(`npm run demo -- [flags]: the EHPA, the real HPA and Prometheus on a local control plane\n${formatFlagHelp(FLAGS)}`);
    return 0;
  }
  const minutes = flags['minutes'] as number;
  const intervalMs = flags['interval'] as number;
  const outDir = resolve(flags['out'] as string);
  const tracePath = resolve(flags['trace'] === DEFAULT_TRACE ? join(REPO_ROOT, DEFAULT_TRACE) : (flags['trace'] as string));

  const missing = ['prometheus', 'promtool', 'openssl'].filter((b) => !which(b));
  if (missing.length) {
    console.error(`demo: ${missing.join(', ')} not found; install them with: bash scripts/install-system-deps.sh`);
    return 1;
  }
  let trace;
  try {
    trace = planTrace(parseTraceCsv(await readFile(tracePath, 'utf8')), { historySeconds: 2 * 86_400 + 3600, lookaheadSeconds: PREDICTION_WINDOW_SECONDS, p95Cores: 1.5, leadSeconds: 7 * 60 });
  } catch (e) {
    console.error(`demo: ${tracePath}: ${(e as Error).message}`);
    return 2;
  }
  const helpText = serveHelp();
  helpText.catch(() => undefined);

  say('control-plane binaries: scripts/build-control-plane.sh (the first run builds them with Go, ~7 min on 2 cores; then cached)');
  const tb = Date.now();
  const bins = await locateBinaries();
  say(`binaries ready in ${((Date.now() - tb) / 1000).toFixed(1)}s: ${bins.kubeApiserver.replace(/\/kube-apiserver$/, '')}`);

  const work = await mkdtemp(join(tmpdir(), 'ehpa-demo-'));
  const historyCsv = join(work, 'history.csv');
  await writeFile(historyCsv, `ts,value\n${trace.history.map((p) => `${p.ts},${p.value}`).join('\n')}\n`);
  say(`trace ${tracePath}: ${trace.history.length} points of history up to ${new Date(trace.cutTs * 1000).toISOString()} (trace time), ` +
    `scaled by ${trace.scale.toPrecision(3)} to cores; the minutes after it are replayed live`);

  let cluster: Cluster | undefined;
  let adapter: AdapterProcess | undefined;
  let stopDriver = () => undefined as void;
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130); // a second Ctrl-C: the harness's exit hook kills the children
    interrupted = true;
    console.log('\ninterrupted: writing what was observed so far and tearing down (Ctrl-C again to force)');
  };
  try {
    cluster = await startCluster({
      traces: [{
        file: historyCsv, namespace: NAMESPACE, pod: HISTORY_POD, container: CONTAINER, cpuScale: trace.scale,
        memBaseBytes: MEMORY_BASE_BYTES, memBytesPerCore: MEMORY_BYTES_PER_CORE, continueLive: false,
      }],
    });
    // Our own Ctrl-C handling from here on, so the stack is stopped in order and the outputs are written.
    process.removeAllListeners('SIGINT');
    process.removeAllListeners('SIGTERM');
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const c = cluster;
    say(`control plane up in ${(c.timings.totalMs / 1000).toFixed(1)}s: etcd, kube-apiserver ${c.apiserverUrl}, kube-controller-manager (HPA sync 2s), Prometheus ${c.promUrl}`);
    const offset = c.backfilled[0]!.lastTs - trace.cutTs; // wall time = trace time + offset

    await installCrds(c);
    await installManifestRbac(c);
    await createNamespace(c, NAMESPACE);
    await createDeployment(c, NAMESPACE, WORKLOAD, { replicas: 2, cpuRequest: `${CPU_REQUEST_MILLI}m`, memoryRequest: '256Mi', memoryLimit: '512Mi', container: CONTAINER });
    say(`applied crds/ and the RBAC of manifests/; Deployment ${NAMESPACE}/${WORKLOAD} (2 replicas, requests cpu ${CPU_REQUEST_MILLI}m, memory 256Mi)`);

    // Live usage: the trace after the cut, in real time, split evenly over the workload's current pods, set
    // through kwok's usage annotations: its kubelet endpoint reports it to metrics-server and to Prometheus.
    const written = new Map<string, string>(); // the annotations last written per pod (a patch only on change)
    let pods = 0;
    let totalCores = 0;
    let driving = true;
    const drive = async () => {
      while (driving) {
        try {
          totalCores = traceValueAt(trace.points, Date.now() / 1000 - offset) * trace.scale;
          const names = (await podsOf(c, NAMESPACE, `app=${WORKLOAD}`)).map((p) => p.name);
          pods = names.length;
          const perPod = names.length ? totalCores / names.length : 0;
          const u = { cpuCores: perPod, memBytes: MEMORY_BASE_BYTES + MEMORY_BYTES_PER_CORE * perPod };
          const annotations = JSON.stringify(usageAnnotations(u));
          for (const n of names) {
            if (written.get(n) !== annotations) {
              await c.kwok!.setPodUsage(NAMESPACE, n, u);
              written.set(n, annotations);
            }
          }
          for (const n of [...written.keys()]) if (!names.includes(n)) written.delete(n);
        } catch {
          // a slow API call: try again
        }
        await sleep(1000);
      }
    };
    void drive();
    stopDriver = () => {
      driving = false;
    };
    const vpaLoop = serveOffersVpaRecommender(await helpText.catch(() => ''));
    const controllers = vpaLoop ? 'ehpa,tsp,vpa-recommender' : 'ehpa,tsp';
    await c.routeMetricsApisToAdapter();
    const adapterStarted = c.startAdapterProcess({
      name: 'ehpa-adapter-serve',
      args: [
        `--controllers=${controllers}`, `--secure-port=${c.adapterPort}`, `--prometheus-url=${c.promUrl}`,
        '--leader-elect=false', '--prediction-update-frequency=5s',
        // The demo shows the forecast at work on a short backfilled history: its verdict on whether that
        // forecast pays (the EHPA's PredictionPays condition) is reported, not enforced.
        '--prediction-pays=observe',
      ],
    });
    adapterStarted.catch(() => undefined);
    say(`live usage: kwok's kubelet endpoint on ${c.kwok!.nodeNames.join(', ')}, scraped by metrics-server (metrics.k8s.io) and Prometheus (the same usage, set per pod through kwok)`);
    adapter = await adapterStarted;
    say(`ehpa-adapter serve running (pid ${adapter.pid}, controllers ${controllers}, log ${adapter.logPath})`);

    const cron = demoCronWindow(Date.now(), minutes);
    const ehpa = demoEhpa(cron);
    const post = async (path: string, body: unknown) => {
      const r = await c.admin.request('POST', path, { body });
      if (r.status !== 201) throw new Error(`create ${path}: ${r.status} ${r.body.slice(0, 300)}`);
    };
    await post(`/apis/autoscaling.crane.io/v1alpha1/namespaces/${NAMESPACE}/effectivehorizontalpodautoscalers`, ehpa);
    const ehpaCreatedS = Date.now() / 1000;
    await post(`/apis/autoscaling.k8s.io/v1/namespaces/${NAMESPACE}/verticalpodautoscalers`, demoVpa());
    const hhmm = (s: number) => new Date(s * 1000).toISOString().slice(11, 16);
    say(`EHPA ${NAMESPACE}/${WORKLOAD}: min ${MIN_REPLICAS}, max ${MAX_REPLICAS}, cpu ${CPU_TARGET_UTILIZATION}% of request (${(CPU_REQUEST_MILLI * CPU_TARGET_UTILIZATION) / 100}m per pod), ` +
      `DSP prediction over ${PREDICTION_WINDOW_SECONDS / 60} min, cron "${cron.name}" ${hhmm(cron.startS)}-${hhmm(cron.endS)} UTC -> ${cron.targetReplicas} replicas`);
    say(vpaLoop
      ? `VPA ${NAMESPACE}/${WORKLOAD}-memory (updateMode Off, memory only) with the vpa-recommender loop`
      : `VPA ${NAMESPACE}/${WORKLOAD}-memory (updateMode Off, memory only) created; the VPA recommender is not in this build, so it gets no recommendation`);
    await c.waitMetricsApisAvailable(90_000);
    say(`metrics APIs Available through the aggregator; watching for ${minutes} min (Ctrl-C stops early)`);

    const ticks: Tick[] = [];
    const watchStart = Date.now();
    const windowMinutes = PREDICTION_WINDOW_SECONDS / 60;
    while (!interrupted && Date.now() - watchStart < minutes * 60_000) {
      const now = Date.now();
      try {
        const k = await readTick(c.admin, {
          t: Math.floor(now / 1000), pods, cpuCores: totalCores, cronActive: cronWindowActive(ehpa.spec.crons![0]!, now, 'UTC'),
          windowSeconds: PREDICTION_WINDOW_SECONDS, namespace: NAMESPACE, hpa: `ehpa-${WORKLOAD}`, tsp: `ehpa-${WORKLOAD}`,
          vpa: `${WORKLOAD}-memory`, container: CONTAINER,
        });
        ticks.push(k);
        console.log(formatTick(k, windowMinutes, vpaLoop));
      } catch (e) {
        console.log(`${new Date(now).toISOString().slice(11, 19)}  (could not read state: ${(e as Error).message})`);
      }
      if (!adapter.running) throw new Error(`ehpa-adapter serve exited; see ${adapter.logPath}`);
      await sleep(Math.max(0, intervalMs - (Date.now() - now)));
    }

    // The chart: the workload's CPU from Prometheus (2 h of history, then live) and the last forecast.
    const end = Math.floor(Date.now() / 1000);
    const query = `sum(rate(container_cpu_usage_seconds_total{namespace="${NAMESPACE}",container="${CONTAINER}"}[2m]))`;
    const history: Point[] = (await queryRange(c.promUrl, query, end - 2 * 3600, end, 30))[0]?.values.map(([t, v]) => ({ t: Number(t), v: Number(v) })) ?? [];
    const tsp = await c.admin.get(`/apis/prediction.crane.io/v1alpha1/namespaces/${NAMESPACE}/timeseriespredictions/ehpa-${WORKLOAD}`);
    const samples = (tsp.json as { status?: { predictionMetrics?: { prediction?: { samples: { timestamp: number; value: string }[] }[] }[] } } | undefined)
      ?.status?.predictionMetrics?.[0]?.prediction?.[0]?.samples ?? [];
    const forecast: Point[] = samples.map((s) => ({ t: s.timestamp, v: Number(s.value) }));
    const perPodTargetCores = PER_POD_TARGET_CORES;
    await mkdir(outDir, { recursive: true });
    const svgPath = join(outDir, 'demo.svg');
    const jsonPath = join(outDir, 'timeline.json');
    await writeFile(svgPath, renderDemoSvg({
      title: `ehpa-adapter demo: Deployment ${NAMESPACE}/${WORKLOAD} under the real HPA (trace ${tracePath.split('/').pop()})`,
      history, forecast, ticks, cron, perPodTargetCores,
    }));
    await writeFile(jsonPath, JSON.stringify({
      trace: { file: tracePath, cutTs: trace.cutTs, scale: trace.scale, wallOffsetSeconds: offset },
      ehpa: ehpa.spec, cron, vpaRecommender: vpaLoop, perPodTargetCores, ticks, history, forecast,
    }, null, 2) + '\n');
    summarize(ticks, cron, watchStart, ehpaCreatedS);
    console.log(`chart:    ${svgPath}`);
    console.log(`timeline: ${jsonPath}`);
    return interrupted ? 130 : 0;
  } finally {
    stopDriver();
    say('tearing down');
    await adapter?.stop(5000).catch(() => undefined);
    await cluster?.stop().catch(() => undefined);
    await rm(work, { recursive: true, force: true });
    say('stopped');
  }
}

function summarize(ticks: Tick[], cron: { startS: number; endS: number; targetReplicas: number }, watchStart: number, ehpaCreatedS: number): void {
  const rel = (t: number) => `${new Date(t * 1000).toISOString().slice(11, 19)} (+${Math.round(t - watchStart / 1000)}s into the watch)`;
  const ready = ticks.find((k) => k.tspReady);
  const cronHit = ticks.find((k) => k.cronActive && (k.desiredReplicas ?? 0) >= cron.targetReplicas);
  const beforeCron = ticks.filter((k) => k.t < cron.startS && k.desiredReplicas !== null).pop();
  const afterCron = ticks.filter((k) => k.t >= cron.endS + 15 && k.desiredReplicas !== null).pop();
  console.log('summary:');
  console.log(`  TimeSeriesPrediction Ready: ${ready ? `by ${Math.ceil(ready.t - ehpaCreatedS)}s after the EHPA was created` : 'not within the demo'}`);
  if (beforeCron) console.log(`  before the cron window: HPA desired ${beforeCron.desiredReplicas} (CPU alone asks ${Math.max(MIN_REPLICAS, Math.ceil(beforeCron.cpuCores / PER_POD_TARGET_CORES - 1e-9))}, the forecast max ${beforeCron.forecastMaxCores === null ? '-' : Math.ceil(beforeCron.forecastMaxCores / PER_POD_TARGET_CORES - 1e-9)})`);
  console.log(`  HPA desired reached the cron's ${cron.targetReplicas} replicas: ${cronHit ? rel(cronHit.t) : 'no'}`);
  if (afterCron) console.log(`  after the cron window: HPA desired ${afterCron.desiredReplicas}`);
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`demo failed: ${err.message}`);
    process.exit(1);
  },
);
