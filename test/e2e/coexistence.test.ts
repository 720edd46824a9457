// End-to-end beside another adapter: KEDA's metrics server already holds v1beta1.external.metrics.k8s.io
// (a stand-in that answers discovery and one external metric, behind an APIService named as KEDA's chart
// names it) when `ehpa-adapter serve` starts with the custom group routed to it. serve names the owner and
// what to do in one log line, exposes it on /metrics, leaves the APIService exactly as it was, and KEDA
// keeps answering its metric through the aggregator.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:https';
import { join } from 'node:path';
import { installCrds, installManifestRbac, waitFor, type AdapterProcess } from './harness/index.ts';
import { useCluster } from './helpers.ts';
import { KEDA_METRIC_PATH, KEDA_METRIC_VALUE, KEDA_NS, KEDA_SVC, routeExternalToKeda, startKedaStandIn, stopKedaStandIn } from './keda-stand-in.ts';

const EXTERNAL = 'v1beta1.external.metrics.k8s.io';
const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

interface ApiService {
  metadata: { resourceVersion: string; managedFields?: unknown[] };
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string }[] };
}

describe('e2e: serve beside KEDA, which already holds external.metrics.k8s.io', function () {
  this.timeout(300_000);
  const env = useCluster({ controllerManager: false, kubelet: false, prometheus: false });
  let keda: Server | undefined;
  let serve: AdapterProcess | undefined;

  after(async () => {
    await serve?.stop();
    stopKedaStandIn(keda);
  });

  it('names the owner and what to do in one line and on /metrics, leaves the APIService untouched, and KEDA keeps answering', async () => {
    const c = env.cluster;
    await installCrds(c);
    // The install's RBAC, so serve reads the APIServices with exactly the rights the Deployment has.
    await installManifestRbac(c);
    keda = await startKedaStandIn();
    // KEDA's APIService, as its chart installs it (the route to the stand-in is the harness' ExternalName one).
    const kedaPort = await routeExternalToKeda(c, keda);
    // The custom group is ours.
    const ours = await c.routeMetricsApisToAdapter({ groups: ['custom.metrics.k8s.io'] });
    const kedaMetric = async () => c.admin.get(KEDA_METRIC_PATH);
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
    expect((after.json as { items: { value: string }[] }).items[0]!.value).to.equal(KEDA_METRIC_VALUE);
    // And ours answers the custom group through the aggregator.
    expect((await c.admin.get('/apis/custom.metrics.k8s.io/v1beta2')).status).to.equal(200);
  });
});
