// End-to-end beside another adapter: KEDA's metrics server already holds v1beta1.external.metrics.k8s.io
// (a stand-in that answers discovery and one external metric, behind an APIService named as KEDA's chart
// names it) when `ehpa-adapter serve` starts with the custom group routed to it. serve names the owner and
// what to do in one log line, exposes it on /metrics, leaves the APIService exactly as it was, and KEDA
// keeps answering its metric through the aggregator.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { issueCertificate } from '../../src/adapter/cert-factory.ts';
import { installCrds, installManifestRbac, waitFor, type AdapterProcess } from './harness/index.ts';
import { useCluster } from './helpers.ts';

const EXTERNAL = 'v1beta1.external.metrics.k8s.io';
const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const KEDA_NS = 'keda';
const KEDA_SVC = 'keda-operator-metrics-apiserver';
const KEDA_METRIC = 's0-http-requests';

interface ApiService {
  metadata: { resourceVersion: string; managedFields?: unknown[] };
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string }[] };
}

/** What KEDA's metrics server answers for this test: discovery of external.metrics.k8s.io/v1beta1, and one metric. */
function startKedaStandIn(): Promise<Server> {
  const nb = new Date(Date.now() - 3_600_000);
  const na = new Date(Date.now() + 86_400_000);
  const pair = issueCertificate({ commonName: KEDA_SVC, usage: 'server', dnsNames: ['localhost', `${KEDA_SVC}.${KEDA_NS}.svc`], ipAddresses: ['127.0.0.1'], notBefore: nb, notAfter: na });
  const server = createServer({ cert: pair.certPem, key: pair.keyPem }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    res.setHeader('Content-Type', 'application/json');
    if (path === '/apis/external.metrics.k8s.io/v1beta1') {
      res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'external.metrics.k8s.io/v1beta1', resources: [{ name: 'externalmetrics', singularName: '', namespaced: true, kind: 'ExternalMetricValueList', verbs: ['get'] }] }));
    } else if (path === `/apis/external.metrics.k8s.io/v1beta1/namespaces/default/${KEDA_METRIC}`) {
      res.end(JSON.stringify({ kind: 'ExternalMetricValueList', apiVersion: 'external.metrics.k8s.io/v1beta1', metadata: {}, items: [{ metricName: KEDA_METRIC, metricLabels: null, timestamp: new Date().toISOString(), value: '42' }] }));
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404 }));
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('e2e: serve beside KEDA, which already holds external.metrics.k8s.io', function () {
  this.timeout(300_000);
  const env = useCluster({ controllerManager: false, kubelet: false, prometheus: false });
  let keda: Server | undefined;
  let serve: AdapterProcess | undefined;

  after(async () => {
    await serve?.stop();
    keda?.closeAllConnections();
    keda?.close();
  });

  it('names the owner and what to do in one line and on /metrics, leaves the APIService untouched, and KEDA keeps answering', async () => {
    const c = env.cluster;
    await installCrds(c);
    // The install's RBAC, so serve reads the APIServices with exactly the rights the Deployment has.
    await installManifestRbac(c);
    keda = await startKedaStandIn();
    const kedaPort = (keda.address() as AddressInfo).port;
    // KEDA's APIService, as its chart installs it (the route to the stand-in is the harness' ExternalName one).
    await c.routeMetricsApisToAdapter({ namespace: KEDA_NS, serviceName: KEDA_SVC, port: kedaPort, groups: ['external.metrics.k8s.io'] });
    await c.waitMetricsApisAvailable(120_000, ['external.metrics.k8s.io']);
    // The custom group is ours.
    const ours = await c.routeMetricsApisToAdapter({ groups: ['custom.metrics.k8s.io'] });
    const kedaMetric = async () => c.admin.get(`/apis/external.metrics.k8s.io/v1beta1/namespaces/default/${KEDA_METRIC}`);
    const before = await kedaMetric();
    expect(before.status, before.body).to.equal(200);
    const apiServiceBefore = await c.admin.getJson<ApiService>(`${APISERVICES}/${EXTERNAL}`);

    serve = await c.startAdapterProcess({
      name: 'serve-beside-keda',
      args: [
        `--secure-port=${c.adapterPort}`, '--bind-address=127.0.0.1', `--cert-dir=${join(c.dir, 'adapter-certs')}`,
        '--controllers=', `--adapter-service-namespace=${ours.namespace}`, `--adapter-service-name=${ours.serviceName}`, '--log-level=debug',
      ],
    });
    await c.waitMetricsApisAvailable(120_000, ['custom.metrics.k8s.io']);

    const logged = async () =>
      (await readFile(serve!.logPath, 'utf8')).split('\n').flatMap((l) => {
        try {
          return [JSON.parse(l) as { level: number; msg: string; apiService?: string; state?: string; owner?: string; neighbour?: string }];
        } catch {
          return [];
        }
      });
    const aboutExternal = async () => (await logged()).filter((l) => l.apiService === EXTERNAL);
    await waitFor('the owner of external.metrics.k8s.io to be logged', async () => (await aboutExternal()).length > 0, { timeoutMs: 30_000 });
    const [line, ...more] = await aboutExternal();
    expect(more, 'one line').to.deep.equal([]);
    expect(line).to.include({ level: 40, state: 'other', owner: `${KEDA_NS}/${KEDA_SVC}`, neighbour: 'KEDA' });
    expect(line!.msg).to.match(
      new RegExp(`^APIService ${EXTERNAL.replace(/\./g, '\\.')} is served by KEDA \\(Service keda/keda-operator-metrics-apiserver\\), not by this adapter; serve leaves it as it is\\. .*--remote-adapter=https://keda-operator-metrics-apiserver\\.keda\\.svc:${kedaPort} `),
    );
    // The custom APIServices are recognised as ours: no warning about them.
    const custom = (await logged()).filter((l) => l.apiService?.endsWith('.custom.metrics.k8s.io'));
    expect(custom.map((l) => l.state)).to.deep.equal(['ours', 'ours']);
    expect(custom.every((l) => l.level < 40)).to.equal(true);

    const metrics = await (await fetch(`${serve.metricsUrl}/metrics`)).text();
    expect(metrics).to.contain(`ehpa_adapter_metrics_apiservice_owner{apiservice="${EXTERNAL}",state="other",owner="${KEDA_NS}/${KEDA_SVC}"} 1`);
    expect(metrics).to.contain(`ehpa_adapter_metrics_apiservice_owner{apiservice="v1beta2.custom.metrics.k8s.io",state="ours",owner="${ours.namespace}/${ours.serviceName}"} 1`);

    // Untouched: same resourceVersion, same spec, still Available; KEDA still answers its metric.
    const apiServiceAfter = await c.admin.getJson<ApiService>(`${APISERVICES}/${EXTERNAL}`);
    expect(apiServiceAfter.metadata.resourceVersion).to.equal(apiServiceBefore.metadata.resourceVersion);
    expect(apiServiceAfter.spec).to.deep.equal(apiServiceBefore.spec);
    expect(apiServiceAfter.status?.conditions?.find((x) => x.type === 'Available')?.status).to.equal('True');
    const after = await kedaMetric();
    expect(after.status, after.body).to.equal(200);
    expect((after.json as { items: { value: string }[] }).items[0]!.value).to.equal('42');
    // And ours answers the custom group through the aggregator.
    expect((await c.admin.get('/apis/custom.metrics.k8s.io/v1beta2')).status).to.equal(200);
  });
});
