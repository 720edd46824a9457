// The harness's route from kube-apiserver's aggregator to a process on loopback (ExternalName Service
// -> https://localhost:<APIService port>), checked with a bare TLS probe that records what arrives. The
// probe serves no metrics: it answers discovery with an empty resource list so the aggregator marks the
// APIService available and proxies, and 404 for everything else. It shows what the real adapter will see:
// the front-proxy client certificate and the caller's identity in X-Remote-* headers.
import { expect } from 'chai';
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { directAdapterClient, waitFor } from './harness/index.ts';
import { useCluster } from './helpers.ts';

interface Seen {
  url: string;
  peerCn: string;
  peerIssuerCn: string;
  user: string | undefined;
  groups: string[];
  authorization: string | undefined;
}

describe('e2e: aggregator route to a loopback server', function () {
  this.timeout(180_000);
  const env = useCluster({ controllerManager: false, prometheus: false, kubelet: false });
  const seen: Seen[] = [];
  let probe: Server;

  before(async () => {
    const c = env.cluster;
    // Any serving certificate will do: the APIServices skip verification.
    probe = createServer({ cert: readFileSync(c.pki.apiserver.certPath), key: readFileSync(c.pki.apiserver.keyPath), requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({
        url: req.url ?? '',
        peerCn: typeof peer?.subject?.CN === 'string' ? peer.subject.CN : '',
        peerIssuerCn: typeof peer?.issuer?.CN === 'string' ? peer.issuer.CN : '',
        user: req.headersDistinct['x-remote-user']?.[0],
        groups: req.headersDistinct['x-remote-group'] ?? [],
        authorization: req.headers.authorization,
      });
      const m = /^\/apis\/([^/]+)\/([^/?]+)\/?(\?.*)?$/.exec(req.url ?? '');
      if (m) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${m[1]}/${m[2]}`, resources: [] }));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'route probe' }));
    });
    await new Promise<void>((resolve) => probe.listen(c.adapterPort, '127.0.0.1', resolve));
  });

  after(async () => {
    probe?.closeAllConnections();
    await new Promise((r) => probe?.close(r));
  });

  it('registers the ExternalName Service and the three APIServices, which become Available', async () => {
    const c = env.cluster;
    const route = await c.routeMetricsApisToAdapter();
    const svc = await c.admin.getJson<{ spec: { type: string; externalName: string } }>(`/api/v1/namespaces/${route.namespace}/services/${route.serviceName}`);
    expect(svc.spec).to.include({ type: 'ExternalName', externalName: 'localhost' });
    await c.waitMetricsApisAvailable(90_000);
    // The availability check reached us over mTLS with kube-apiserver's front-proxy client certificate.
    const check = seen.find((s) => s.url.startsWith('/apis/external.metrics.k8s.io/v1beta1'));
    expect(check, JSON.stringify(seen.slice(0, 5))).to.not.equal(undefined);
    expect(check!.peerCn).to.equal('front-proxy-client');
    // ...asserting system:kube-aggregator in system:masters (kube-aggregator remote_available_controller).
    expect(check!.user).to.equal('system:kube-aggregator');
    expect(check!.groups).to.deep.equal(['system:masters']);
  });

  it('proxies a caller\'s request with its identity in X-Remote-* headers and no bearer token', async () => {
    const c = env.cluster;
    const alice = await c.identity('alice', ['team-a']);
    // Let alice through RBAC for this one metric so the aggregator forwards the call.
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'e2e-external-reader' },
      rules: [{ apiGroups: ['external.metrics.k8s.io'], resources: ['*'], verbs: ['get', 'list'] }],
    };
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'e2e-external-reader-alice' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'e2e-external-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    };
    expect((await c.admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: role })).status).to.equal(201);
    expect((await c.admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: binding })).status).to.equal(201);
    const path = '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/crane_autoscaling_cron?labelSelector=a%3Db';
    let status = 0;
    await waitFor('alice proxied', async () => {
      status = (await alice.rest.get(path)).status;
      return status === 404;
    }, { timeoutMs: 30_000 });
    const hit = seen.find((s) => s.url.startsWith('/apis/external.metrics.k8s.io/v1beta1/namespaces/default/crane_autoscaling_cron'));
    expect(hit).to.not.equal(undefined);
    expect(hit!.peerCn).to.equal('front-proxy-client');
    expect(hit!.user).to.equal('alice');
    expect(hit!.groups).to.include.members(['team-a', 'system:authenticated']);
    expect(hit!.authorization).to.equal(undefined);
    // Without RBAC the aggregator itself refuses: the request never reaches the server.
    const before = seen.length;
    const bob = await c.identity('bob');
    expect((await bob.rest.get(path)).status).to.equal(403);
    expect(seen.slice(before).some((s) => s.user === 'bob')).to.equal(false);
  });

  it('directAdapterClient presents the cert each negative test needs', async () => {
    const c = env.cluster;
    const cases = [
      ['front-proxy', 'front-proxy-client', 'ehpa-e2e-front-proxy-ca'],
      ['untrusted', 'front-proxy-client', 'rogue-ca'],
      ['cluster-ca', 'front-proxy-client', 'ehpa-e2e-cluster-ca'],
      ['none', '', ''],
    ] as const;
    for (const [mode, cn, issuer] of cases) {
      const client = await directAdapterClient(c, mode);
      const r = await client.request('GET', `/probe-${mode}`, { headers: { 'X-Remote-User': 'mallory' } });
      expect(r.status).to.equal(404);
      const hit = seen.find((x) => x.url === `/probe-${mode}`);
      expect(hit, mode).to.include({ peerCn: cn, peerIssuerCn: issuer, user: 'mallory' });
    }
  });

  it('unregisters the APIServices', async () => {
    const c = env.cluster;
    await c.unrouteMetricsApis();
    expect((await c.admin.get('/apis/apiregistration.k8s.io/v1/apiservices/v1beta2.custom.metrics.k8s.io')).status).to.equal(404);
  });
});
