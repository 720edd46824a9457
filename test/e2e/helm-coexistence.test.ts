// The chart's default install beside KEDA, on a real control plane: KEDA's metrics server (the stand-in of
// keda-stand-in.ts) already holds v1beta1.external.metrics.k8s.io when the `helm install` of
// docs/getting-started.md step 2 runs, read from that page (with this cluster's Prometheus and replicas=0,
// as helm-chart.test.ts installs it). apiServices.*=auto must then leave KEDA's APIService exactly as it
// was, with KEDA answering its metric through the aggregator, say in the install notes what EHPAs lose,
// and claim the two custom.metrics APIServices nobody served. `ehpa-adapter serve` then runs as a process
// under the chart's service account (the chart's Service routed to it, as in helm-chart.test.ts), and an
// EHPA with prediction, whose HPA reads crane_pod_cpu_usage from custom.metrics.k8s.io, becomes Ready and
// scales its Deployment on it. No history is backfilled, so the metric is the adapter's observed-usage
// fallback: the pods' CPU as kwok reports it and Prometheus scrapes it (pod-cpu.ts).
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createDeployment, createNamespace, prometheusAdapterBinary, REPO_ROOT, waitFor, waitHpa, waitReplicas, type AdapterProcess, type Cluster } from './harness/index.ts';
import { startProcess, type ManagedProcess } from './harness/processes.ts';
import { useCluster } from './helpers.ts';
import { KEDA_METRIC_PATH, KEDA_METRIC_VALUE, KEDA_NS, KEDA_SVC, routeExternalToKeda, startKedaStandIn, stopKedaStandIn } from './keda-stand-in.ts';
import { startPodCpu, type PodCpu } from './pod-cpu.ts';
import { condition, ehpaObject, ehpaPath, post, quantityMilli, startServe, waitObj } from './scenario-helpers.ts';
import { CHART_DIR, helmBin } from '../../scripts/helm-chart.ts';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const EXTERNAL = 'v1beta1.external.metrics.k8s.io';
const CUSTOM = ['v1beta1.custom.metrics.k8s.io', 'v1beta2.custom.metrics.k8s.io'];
const KEDA_OWNER = `${KEDA_NS}/${KEDA_SVC}`;
const NS = 'helm-keda';
const UID_LABEL = 'autoscaling.crane.io/effective-hpa-uid';
// 200m requests at a 50 % target: the generated crane_pod_cpu_usage target is 100m per pod. The
// workload's pods use 300m in all, split over however many there are: 3 replicas, and steady there.
const CPU_REQUEST_MILLI = 200;
const TOTAL_CPU_MILLI = 300;

interface ApiService {
  metadata: { resourceVersion: string; labels?: Record<string, string> };
  spec: { service?: { name: string; namespace: string; port?: number } } & Record<string, unknown>;
  status?: { conditions?: { type: string; status: string }[] };
}

/**
 * The `helm install` of docs/getting-started.md step 2 as argv (without "helm"), continuation lines
 * joined; the chart path is the repository's, `set` replaces the values of the page's --set of that key
 * (or adds them).
 */
function documentedInstall(set: Record<string, string>): string[] {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'getting-started.md'), 'utf8');
  const step = page.slice(page.indexOf('\n## 2. Install'));
  const block = /```sh\n([\s\S]*?)```/.exec(step)?.[1];
  if (!block) throw new Error('docs/getting-started.md: no sh block under "## 2. Install"');
  const line = block.replace(/\\\n\s*/g, ' ').split('\n').find((l) => l.startsWith('helm install '));
  if (!line) throw new Error('docs/getting-started.md step 2: no helm install command');
  const argv = line.trim().split(/\s+/).slice(1);
  const out: string[] = [];
  const left = new Map(Object.entries(set));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === './charts/ehpa-adapter') out.push(CHART_DIR);
    else if (a === '--set' && argv[i + 1]) {
      const [key] = argv[++i]!.split('=', 1);
      const v = left.get(key!);
      left.delete(key!);
      out.push('--set', v === undefined ? argv[i]! : `${key}=${v}`);
    } else out.push(a);
  }
  for (const [k, v] of left) out.push('--set', `${k}=${v}`);
  return out;
}

/**
 * helm against the cluster, asynchronously: the KEDA stand-in answers the aggregator from this process's
 * event loop, and a blocked loop would make KEDA's APIService go unavailable (its status, so its
 * resourceVersion, would change).
 */
async function helmIn(c: Cluster, ...args: string[]): Promise<string> {
  return (await promisify(execFile)(helmBin(), [...args, '--kubeconfig', c.kubeconfigPath], { encoding: 'utf8', maxBuffer: 64 << 20 })).stdout;
}

describe('e2e: helm install (getting-started step 2) beside KEDA, which already holds external.metrics.k8s.io', function () {
  this.timeout(600_000);
  // A realistic scale-down stabilization (the harness' 5 s default would let the HPA dip while new pods'
  // observed usage ramps up in Prometheus' rate window).
  const env = useCluster({ hpaDownscaleStabilization: '300s' });
  const helm = (...args: string[]) => helmIn(env.cluster, ...args);
  let keda: Server | undefined;
  let serve: AdapterProcess | undefined;
  let podCpu: PodCpu | undefined;
  let externalBefore: ApiService;
  let notes = '';

  const kedaAnswers = async () => {
    const r = await env.cluster.admin.get(KEDA_METRIC_PATH);
    expect(r.status, r.body).to.equal(200);
    expect((r.json as { items: { value: string }[] }).items[0]!.value).to.equal(KEDA_METRIC_VALUE);
  };
  const externalUntouched = async () => {
    const now = await env.cluster.admin.getJson<ApiService>(`${APISERVICES}/${EXTERNAL}`);
    expect(now.metadata.resourceVersion).to.equal(externalBefore.metadata.resourceVersion);
    expect(now.spec).to.deep.equal(externalBefore.spec);
    expect(now.spec.service).to.include({ namespace: KEDA_NS, name: KEDA_SVC });
    expect(now.status?.conditions?.find((x) => x.type === 'Available')?.status).to.equal('True');
  };

  before(async function () {
    this.timeout(30 * 60_000);
    helmBin();
    const c = env.cluster;
    keda = await startKedaStandIn();
    await routeExternalToKeda(c, keda);
    // Nothing else holds a metrics APIService: the custom ones are free for the chart.
    for (const name of CUSTOM) expect((await c.admin.get(`${APISERVICES}/${name}`)).status, name).to.equal(404);
    externalBefore = await c.admin.getJson<ApiService>(`${APISERVICES}/${EXTERNAL}`);
    await kedaAnswers();
  });

  after(async () => {
    await serve?.stop();
    await podCpu?.close();
    stopKedaStandIn(keda);
  });

  it('the documented helm install leaves KEDA\'s APIService untouched, KEDA answering, and its notes say what EHPAs lose', async () => {
    const c = env.cluster;
    const argv = documentedInstall({ 'prometheus.url': c.promUrl, replicas: '0' });
    // The page's command as a user copies it: release ehpa-adapter into ehpa-system, apiServices left at auto.
    expect(argv.slice(0, 2)).to.deep.equal(['install', 'ehpa-adapter']);
    expect(argv.join(' ')).to.contain(`${CHART_DIR} --namespace ehpa-system --create-namespace`);
    expect(argv.join(' ')).to.not.contain('apiServices.');
    notes = await helm(...argv);
    expect(notes).to.match(/STATUS: deployed/);
    expect(notes).to.match(/Metric APIs claimed: v1beta1\.custom\.metrics\.k8s\.io, v1beta2\.custom\.metrics\.k8s\.io\.\n/);
    expect(notes).to.contain(
      `${EXTERNAL}: left to ${KEDA_OWNER} (apiServices.externalV1beta1=auto), which keeps answering its metrics. ` +
      'EHPAs go without the cron and crane_autoscaling_prediction metrics. ' +
      `To serve them, set apiServices.externalV1beta1=true with remoteAdapter.url pointing at ${KEDA_OWNER}.`,
    );
    expect(notes).to.not.match(/WARNING/);
    const manifest = await helm('get', 'manifest', 'ehpa-adapter', '--namespace', 'ehpa-system');
    const apiServices = [...manifest.matchAll(/kind: APIService\nmetadata:\n {2}name: (\S+)/g)].map((m) => m[1]);
    expect(apiServices).to.deep.equal(CUSTOM);
    await externalUntouched();
    await kedaAnswers();
  });

  it('the custom.metrics APIServices are the release\'s; once serve runs they are Available and KEDA\'s is still untouched', async function () {
    this.timeout(300_000);
    const c = env.cluster;
    // The adapter is a process on loopback: the chart's Service is routed there (the harness' way) and its
    // APIServices carry the process's port. Nothing else of the release is changed.
    const svc = await c.admin.request('PATCH', '/api/v1/namespaces/ehpa-system/services/ehpa-adapter', {
      contentType: 'application/merge-patch+json',
      body: { spec: { type: 'ExternalName', externalName: 'localhost', clusterIP: null, clusterIPs: null, selector: null, ipFamilies: null, ipFamilyPolicy: null, ports: [{ name: 'https', port: c.adapterPort, protocol: 'TCP' }] } },
    });
    expect(svc.status, svc.body).to.equal(200);
    for (const name of CUSTOM) {
      const r = await c.admin.request('PATCH', `${APISERVICES}/${name}`, { contentType: 'application/merge-patch+json', body: { spec: { service: { port: c.adapterPort } } } });
      expect(r.status, r.body).to.equal(200);
      const a = r.json as ApiService;
      expect(a.metadata.labels?.['app.kubernetes.io/managed-by'], name).to.equal('Helm');
      expect(a.spec.service).to.include({ name: 'ehpa-adapter', namespace: 'ehpa-system' });
    }
    const dep = await c.admin.getJson<{ spec: { replicas: number; template: { spec: { containers: { args: string[] }[] } } } }>('/apis/apps/v1/namespaces/ehpa-system/deployments/ehpa-adapter');
    expect(dep.spec.replicas).to.equal(0);
    const args = dep.spec.template.spec.containers[0]!.args;
    expect(args).to.include(`--prometheus-url=${c.promUrl}`);
    // serve as the chart's ServiceAccount with the chart's controllers and the chart's name for its own
    // Service (startServe passes the same --prometheus-url); it waits for every metrics APIService to be
    // Available, KEDA's included.
    const chartFlags = args.filter((a) => /^--(controllers|recommender-name|adapter-service-name|adapter-service-namespace)=/.test(a));
    expect(chartFlags.filter((a) => a.startsWith('--adapter-service-'))).to.deep.equal(['--adapter-service-name=ehpa-adapter', '--adapter-service-namespace=ehpa-system']);
    serve = await startServe(c, 'serve-helm-keda', chartFlags);
    for (const name of CUSTOM) {
      const a = await c.admin.getJson<ApiService>(`${APISERVICES}/${name}`);
      expect(a.status?.conditions?.find((x) => x.type === 'Available')?.status, name).to.equal('True');
    }
    // The aggregator's proxy learns of availability a moment after the condition is written (a 503 until then).
    await waitFor('custom.metrics.k8s.io/v1beta2 discovery answered by serve', async () => (await c.admin.get('/apis/custom.metrics.k8s.io/v1beta2')).status === 200, { timeoutMs: 30_000 });
    // serve sees the same split as the notes: the custom ones its own, the external one KEDA's.
    let metrics = '';
    await waitFor('serve to report the APIServices\' owners', async () => {
      metrics = await (await fetch(`${serve!.metricsUrl}/metrics`)).text();
      return metrics.includes(`apiservice="${EXTERNAL}"`);
    }, { timeoutMs: 30_000 });
    expect(metrics).to.contain(`ehpa_adapter_metrics_apiservice_owner{apiservice="${EXTERNAL}",state="other",owner="${KEDA_OWNER}"} 1`);
    for (const name of CUSTOM) expect(metrics).to.contain(`ehpa_adapter_metrics_apiservice_owner{apiservice="${name}",state="ours",owner="ehpa-system/ehpa-adapter"} 1`);
    await externalUntouched();
    await kedaAnswers();
  });

  it('an EHPA with prediction becomes Ready and its HPA scales on crane_pod_cpu_usage from this adapter; the external group stays KEDA\'s', async function () {
    this.timeout(540_000);
    const c = env.cluster;
    podCpu = startPodCpu(c);
    podCpu.setCpu(NS, (_pod, count) => Math.round(TOTAL_CPU_MILLI / Math.max(1, count)));
    await createNamespace(c, NS);
    await createDeployment(c, NS, 'web', { replicas: 1, cpuRequest: `${CPU_REQUEST_MILLI}m` });
    await waitReplicas(c, NS, 'web', 1);
    const ehpa = await post(c, ehpaPath(NS), ehpaObject(NS, 'web', 'web', {
      minReplicas: 1, maxReplicas: 5,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
      prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '2d' } } },
    }));
    const uid = ehpa.metadata.uid;

    // The generated HPA reads crane_pod_cpu_usage (custom.metrics.k8s.io, the release's APIServices).
    const podsSpec = { type: 'Pods', pods: { metric: { name: 'crane_pod_cpu_usage', selector: { matchLabels: { [UID_LABEL]: uid } } }, target: { type: 'AverageValue', averageValue: '100m' } } };
    const hpaSpec = await waitHpa(c, NS, 'ehpa-web', 'generated', () => true);
    expect((hpaSpec as unknown as { spec: { metrics: unknown[] } }).spec.metrics).to.deep.include(podsSpec);

    await waitReplicas(c, NS, 'web', 3, 300_000);
    const podsCurrent = (h: Awaited<ReturnType<typeof waitHpa>>) =>
      (h.status?.currentMetrics as { type: string; pods?: { metric: { name: string }; current: { averageValue: string } } }[] | undefined)?.find((m) => m.type === 'Pods')?.pods;
    // Steady at 3 with every pod's usage in Prometheus' rate window: ~100m each, the target.
    const hpa = await waitHpa(c, NS, 'ehpa-web', 'at 3 reading crane_pod_cpu_usage near 100m', (h) => {
      const p = podsCurrent(h);
      return h.status?.currentReplicas === 3 && h.status.desiredReplicas === 3 && p !== undefined && quantityMilli(p.current.averageValue) >= 70;
    }, 240_000);
    const pods = podsCurrent(hpa)!;
    expect(pods.metric.name).to.equal('crane_pod_cpu_usage');
    expect(quantityMilli(pods.current.averageValue)).to.be.within(70, 140);
    expect(hpa.status!.conditions!.find((x) => x.type === 'ScalingActive')).to.include({ status: 'True', reason: 'ValidMetricFound' });
    // The HPA's reads reached this serve: its observed-usage answers for crane_pod_cpu_usage are counted.
    const served = (await (await fetch(`${serve!.metricsUrl}/metrics`)).text()).split('\n')
      .filter((l) => l.startsWith('ehpa_adapter_prediction_fallbacks_total{') && l.includes('metric="crane_pod_cpu_usage"') && l.includes('outcome="observed"'))
      .reduce((a, l) => a + Number(l.split(' ').pop()), 0);
    expect(served, 'observed-usage answers counted by serve').to.be.greaterThan(0);
    const e = await waitObj(c, ehpaPath(NS, 'web'), 'EHPA Ready', (o) => condition(o, 'Ready')?.status === 'True');
    expect(condition(e, 'PredictionFallback')?.status, JSON.stringify(e.status?.conditions)).to.equal('True');

    // What the notes said EHPAs lose: the cron metric is asked of KEDA, which does not know it.
    const cron = await c.admin.get(`/apis/external.metrics.k8s.io/v1beta1/namespaces/${NS}/crane_autoscaling_cron`);
    expect(cron.status, cron.body).to.equal(404);
    await externalUntouched();
    await kedaAnswers();
    expect(serve!.running).to.equal(true);
  });
});

// The same install beside prometheus-adapter (v0.12.0, scripts/build-prometheus-adapter.sh), which already
// holds both custom.metrics APIServices with a rule for the pods' CPU: auto leaves them to it, claims only
// the external one, and the notes say EHPAs go without predicted CPU; prometheus-adapter keeps answering.
describe('e2e: helm install (getting-started step 2) beside prometheus-adapter, which already holds custom.metrics.k8s.io', function () {
  this.timeout(600_000);
  const env = useCluster();
  const PA_NS = 'monitoring';
  const PA_SVC = 'prometheus-adapter';
  const APP_NS = 'pa-app';
  // The pods' CPU rate as a custom metric, the usual first rule of a prometheus-adapter install.
  const RULES = [
    'rules:',
    '- seriesQuery: \'container_cpu_usage_seconds_total{namespace!="",pod!=""}\'',
    '  resources:',
    '    overrides:',
    '      namespace: {resource: namespace}',
    '      pod: {resource: pod}',
    '  name: {matches: "^container_(.*)_seconds_total$", as: "${1}_rate"}',
    '  metricsQuery: \'sum(rate(<<.Series>>{<<.LabelMatchers>>}[1m])) by (<<.GroupBy>>)\'',
    '',
  ].join('\n');
  const metricPath = (version: string) => `/apis/custom.metrics.k8s.io/${version}/namespaces/${APP_NS}/pods/*/cpu_usage_rate`;
  let promAdapter: ManagedProcess | undefined;
  let podCpu: PodCpu | undefined;
  const held: Record<string, ApiService> = {};

  /** prometheus-adapter's answer for the app's pods through the aggregator, in millicores per pod. */
  const paAnswers = async (version: string) => {
    const r = await env.cluster.admin.get(metricPath(version));
    if (r.status !== 200) return { status: r.status, body: r.body, milli: [] as number[] };
    return { status: r.status, body: r.body, milli: (r.json as { items: { value: string }[] }).items.map((i) => quantityMilli(i.value)) };
  };

  before(async function () {
    this.timeout(30 * 60_000);
    helmBin();
    const c = env.cluster;
    const rules = join(c.dir, 'prometheus-adapter-custom-rules.yaml');
    writeFileSync(rules, RULES);
    promAdapter = startProcess({
      name: 'prometheus-adapter',
      command: await prometheusAdapterBinary(),
      logDir: c.logDir,
      args: [
        `--secure-port=${c.adapterPort}`, '--bind-address=127.0.0.1', `--cert-dir=${join(c.dir, 'prometheus-adapter-certs')}`,
        `--lister-kubeconfig=${c.kubeconfigPath}`, `--authentication-kubeconfig=${c.kubeconfigPath}`, `--authorization-kubeconfig=${c.kubeconfigPath}`,
        `--prometheus-url=${c.promUrl}/`, `--config=${rules}`, '--metrics-relist-interval=2s', '--v=2',
      ],
    });
    await c.routeMetricsApisToAdapter({ namespace: PA_NS, serviceName: PA_SVC, groups: ['custom.metrics.k8s.io'] });
    await c.waitMetricsApisAvailable(180_000, ['custom.metrics.k8s.io']);
    podCpu = startPodCpu(c);
    podCpu.setCpu(APP_NS, () => 50);
    await createNamespace(c, APP_NS);
    await createDeployment(c, APP_NS, 'app', { replicas: 1, cpuRequest: '100m' });
    await waitReplicas(c, APP_NS, 'app', 1);
    let last = '';
    await waitFor('prometheus-adapter to answer cpu_usage_rate of the app\'s pod at ~50m', async () => {
      const a = await paAnswers('v1beta1');
      last = `${a.status} ${a.body.slice(0, 300)}`;
      return a.milli.length === 1 && a.milli[0]! >= 30;
    }, { timeoutMs: 180_000 }).catch((e: Error) => {
      throw new Error(`${e.message}; last: ${last}`);
    });
    for (const name of CUSTOM) held[name] = await env.cluster.admin.getJson<ApiService>(`${APISERVICES}/${name}`);
  });

  after(async () => {
    await podCpu?.close();
    await promAdapter?.stop(5000);
  });

  it('claims only the external APIService, leaves both custom ones untouched with prometheus-adapter answering, and the notes say EHPAs lose predicted CPU', async () => {
    const c = env.cluster;
    const notes = await helmIn(c, ...documentedInstall({ 'prometheus.url': c.promUrl, replicas: '0' }));
    expect(notes).to.match(/STATUS: deployed/);
    expect(notes).to.match(/Metric APIs claimed: v1beta1\.external\.metrics\.k8s\.io\.\n/);
    for (const [name, key] of [[CUSTOM[0], 'customV1beta1'], [CUSTOM[1], 'customV1beta2']] as const) {
      expect(notes).to.contain(
        `${name}: left to ${PA_NS}/${PA_SVC} (apiServices.${key}=auto), which keeps answering its metrics. ` +
        'EHPAs go without crane_pod_cpu_usage (predicted CPU). ' +
        `To serve them, set apiServices.${key}=true with remoteAdapter.url pointing at ${PA_NS}/${PA_SVC}.`,
      );
    }
    expect(notes).to.not.match(/WARNING/);
    const manifest = await helmIn(c, 'get', 'manifest', 'ehpa-adapter', '--namespace', 'ehpa-system');
    expect([...manifest.matchAll(/kind: APIService\nmetadata:\n {2}name: (\S+)/g)].map((m) => m[1])).to.deep.equal([EXTERNAL]);
    for (const name of CUSTOM) {
      const now = await c.admin.getJson<ApiService>(`${APISERVICES}/${name}`);
      expect(now.metadata.resourceVersion, name).to.equal(held[name]!.metadata.resourceVersion);
      expect(now.spec, name).to.deep.equal(held[name]!.spec);
      expect(now.status?.conditions?.find((x) => x.type === 'Available')?.status, name).to.equal('True');
    }
    for (const version of ['v1beta1', 'v1beta2']) {
      const a = await paAnswers(version);
      expect(a.status, `${version}: ${a.body}`).to.equal(200);
      expect(a.milli, version).to.have.length(1);
      expect(a.milli[0], version).to.be.within(30, 80);
    }
  });
});
