// A stand-in for KEDA's metrics server (keda-operator-metrics-apiserver), for the suites that check how
// ehpa-adapter behaves beside it: it answers discovery of external.metrics.k8s.io/v1beta1 and one external
// metric, behind an APIService named and routed as KEDA's chart installs it. Anything else is a 404, as a
// KEDA without that ScaledObject answers.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCertificate } from '../../src/adapter/cert-factory.ts';
import type { Cluster } from './harness/index.ts';

export const KEDA_NS = 'keda';
export const KEDA_SVC = 'keda-operator-metrics-apiserver';
export const KEDA_METRIC = 's0-http-requests';
/** The one metric the stand-in serves, through the aggregator; it reads 42. */
export const KEDA_METRIC_PATH = `/apis/external.metrics.k8s.io/v1beta1/namespaces/default/${KEDA_METRIC}`;
export const KEDA_METRIC_VALUE = '42';

/** The stand-in's HTTPS server on a free loopback port. */
export function startKedaStandIn(): Promise<Server> {
  const nb = new Date(Date.now() - 3_600_000);
  const na = new Date(Date.now() + 86_400_000);
  const pair = issueCertificate({ commonName: KEDA_SVC, usage: 'server', dnsNames: ['localhost', `${KEDA_SVC}.${KEDA_NS}.svc`], ipAddresses: ['127.0.0.1'], notBefore: nb, notAfter: na });
  const server = createServer({ cert: pair.certPem, key: pair.keyPem }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    res.setHeader('Content-Type', 'application/json');
    if (path === '/apis/external.metrics.k8s.io/v1beta1') {
      res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'external.metrics.k8s.io/v1beta1', resources: [{ name: 'externalmetrics', singularName: '', namespaced: true, kind: 'ExternalMetricValueList', verbs: ['get'] }] }));
    } else if (path === KEDA_METRIC_PATH) {
      res.end(JSON.stringify({ kind: 'ExternalMetricValueList', apiVersion: 'external.metrics.k8s.io/v1beta1', metadata: {}, items: [{ metricName: KEDA_METRIC, metricLabels: null, timestamp: new Date().toISOString(), value: KEDA_METRIC_VALUE }] }));
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404 }));
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * Registers v1beta1.external.metrics.k8s.io as KEDA's chart does, served by `server` (through the harness'
 * ExternalName route to loopback), and waits until the aggregator reports it Available. Returns the port.
 */
export async function routeExternalToKeda(c: Cluster, server: Server): Promise<number> {
  const port = (server.address() as AddressInfo).port;
  await c.routeMetricsApisToAdapter({ namespace: KEDA_NS, serviceName: KEDA_SVC, port, groups: ['external.metrics.k8s.io'] });
  await c.waitMetricsApisAvailable(120_000, ['external.metrics.k8s.io']);
  return port;
}

export function stopKedaStandIn(server: Server | undefined): void {
  server?.closeAllConnections();
  server?.close();
}
