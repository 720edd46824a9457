import { expect } from 'chai';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { asUser, startTestAdapter, testPki, type Running } from '../../helpers/adapter-fixture.ts';
import { seed, tsp, UID } from './fixtures.ts';

const HPA = asUser('hpa');
const PATH = `/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/%2A/crane_pod_cpu_usage?labelSelector=app%3Dweb&metricLabelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3D${UID}`;

describe('crane_pod_cpu_usage when the forecast cannot be used', function () {
  this.timeout(30_000);

  describe('default --prediction-fallback=observed', () => {
    let a: Running;
    beforeEach(async () => {
      a = await startTestAdapter();
      seed(a.sources, a.clock.now);
      a.authorizer.allowedUsers.add('hpa');
      a.sources.observed.set('default/web-1', 410).set('default/web-2', 390.2).set('default/web-3', 0);
    });
    afterEach(async () => a.close());

    it('a stale forecast (no point in the window) answers observed usage per pod and reports why', async () => {
      a.clock.now += 2 * 3600_000;
      const r = await a.get(PATH, { headers: HPA });
      expect(r.status).to.equal(200);
      expect(r.json.items.map((i: { describedObject: { name: string }; value: string }) => [i.describedObject.name, i.value])).to.deep.equal([['web-1', '410m'], ['web-2', '391m'], ['web-3', '0']]);
      expect(a.fallbacks).to.have.length(1);
      expect(a.fallbacks[0]).to.deep.include({ namespace: 'default', ehpaName: 'web', ehpaUid: UID, reason: 'PredictionOutdated', outcome: 'observed', metric: 'crane_pod_cpu_usage' });
      expect(a.fallbacks[0]?.message).to.match(/TimeSeriesPrediction default\/ehpa-web: TimeSeries is outdated/);
      expect(await a.registry.metrics()).to.match(/ehpa_adapter_prediction_fallbacks_total\{metric="crane_pod_cpu_usage",reason="PredictionOutdated",outcome="observed"\} 1/);
    });
    it('a missing TimeSeriesPrediction or a not-ready one falls back too, with its own reason', async () => {
      a.sources.tsps = [];
      expect((await a.get(PATH, { headers: HPA })).status).to.equal(200);
      a.sources.tsps = [tsp(a.clock.now, [1], { ready: false })];
      expect((await a.get(PATH, { headers: HPA })).status).to.equal(200);
      expect(a.fallbacks.map((f) => f.reason)).to.deep.equal(['PredictionMissing', 'PredictionNotReady']);
    });
    it('with no observed usage either: 503 naming both problems', async () => {
      a.sources.tsps = [];
      a.sources.observed.clear();
      const r = await a.get(PATH, { headers: HPA });
      expect(r.status).to.equal(503);
      expect(r.json.message).to.equal('no TimeSeriesPrediction for EffectiveHorizontalPodAutoscaler default/web; no observed CPU usage to fall back to');
      expect(a.fallbacks[0]?.outcome).to.equal('error');
    });
    it('with Prometheus unreachable for observed usage: 503 naming both problems, not a 500', async () => {
      a.sources.tsps = [];
      a.sources.observedPodCpuMillis = () => {
        throw new Error('prometheus unreachable at http://prom:9090: fetch failed');
      };
      const r = await a.get(PATH, { headers: HPA });
      expect(r.status).to.equal(503);
      expect(r.json.message).to.equal('no TimeSeriesPrediction for EffectiveHorizontalPodAutoscaler default/web; observed CPU usage unavailable: prometheus unreachable at http://prom:9090: fetch failed');
      expect(a.fallbacks.map((f) => f.outcome)).to.deep.equal(['error']);
    });
    it('with a good forecast but no available pod: 503 (Crane: "failed to get available pods")', async () => {
      a.sources.pods = a.sources.pods.map((p) => ({ ...p, status: { ...p.status, phase: 'Pending' } }));
      const r = await a.get(PATH, { headers: HPA });
      expect(r.status).to.equal(503);
      expect(r.json.message).to.match(/failed to get available pods/);
    });
    it('a HEAD-style TSP (resourceIdentifier resource.cpu) is read too', async () => {
      a.sources.tsps = [tsp(a.clock.now, [0.9], { rid: 'resource.cpu' })];
      const r = await a.get(PATH, { headers: HPA });
      expect(r.json.items[0].value).to.equal('300m');
      expect(a.fallbacks).to.have.length(0);
    });
  });

  describe('--prediction-fallback=error (Crane behaviour)', () => {
    it('answers 503 with the reason and reports it', async () => {
      const a = await startTestAdapter({ predictionFallback: 'error' });
      try {
        seed(a.sources, a.clock.now);
        a.authorizer.allowedUsers.add('hpa');
        a.sources.observed.set('default/web-1', 410);
        a.clock.now += 2 * 3600_000;
        const r = await a.get(PATH, { headers: HPA });
        expect(r.status).to.equal(503);
        expect(r.json).to.include({ reason: 'ServiceUnavailable' });
        expect(r.json.message).to.match(/TimeSeries is outdated/);
        expect(a.fallbacks[0]).to.deep.include({ reason: 'PredictionOutdated', outcome: 'error' });
      } finally {
        await a.close();
      }
    });
  });
});

describe('--remote-adapter', function () {
  this.timeout(30_000);
  it('proxies metrics we do not own (with our token, without the caller identity) and merges discovery', async () => {
    const p = testPki();
    const seen: { url: string; auth?: string; remoteUser?: string }[] = [];
    const remote = createServer({ cert: p.serving.certPem, key: p.serving.keyPem }, (req, res) => {
      seen.push({ url: req.url ?? '', ...(req.headers.authorization ? { auth: req.headers.authorization } : {}), ...(req.headers['x-remote-user'] ? { remoteUser: String(req.headers['x-remote-user']) } : {}) });
      res.setHeader('Content-Type', 'application/json');
      if (req.url === '/apis/external.metrics.k8s.io/v1beta1') {
        res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'external.metrics.k8s.io/v1beta1', resources: [{ name: 'queue_messages_ready', namespaced: true }] }));
      } else if (req.url === '/apis/custom.metrics.k8s.io/v1beta2') {
        res.end(JSON.stringify({ kind: 'APIResourceList', resources: [{ name: 'pods/http_requests', namespaced: true }] }));
      } else {
        res.end(JSON.stringify({ kind: 'ExternalMetricValueList', apiVersion: 'external.metrics.k8s.io/v1beta1', metadata: {}, items: [{ metricName: 'queue_messages_ready', value: '42' }] }));
      }
    });
    await new Promise<void>((r) => remote.listen(0, '127.0.0.1', () => r()));
    const { writeFile, mkdtemp } = await import('node:fs/promises');
    const dir = await mkdtemp('/tmp/remote-token-');
    await writeFile(`${dir}/token`, 'sa-token\n');
    const a = await startTestAdapter({
      remoteAdapter: { url: `https://127.0.0.1:${(remote.address() as AddressInfo).port}`, insecure: true, tokenFile: `${dir}/token`, timeoutMs: 2000 },
    });
    try {
      a.authorizer.allowedUsers.add('hpa');
      const r = await a.get('/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready?labelSelector=queue%3Dorders', { headers: HPA });
      expect(r.status).to.equal(200);
      expect(r.json.items[0].value).to.equal('42');
      expect(seen.at(-1)).to.deep.equal({ url: '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready?labelSelector=queue%3Dorders', auth: 'Bearer sa-token' });
      const d = await a.get('/apis/external.metrics.k8s.io/v1beta1', { headers: HPA });
      expect(d.json.resources.map((x: { name: string }) => x.name)).to.deep.equal(['crane_autoscaling_cron', 'crane_autoscaling_prediction', 'queue_messages_ready']);
      const c = await a.get('/apis/custom.metrics.k8s.io/v1beta2', { headers: HPA });
      expect(c.json.resources.map((x: { name: string }) => x.name)).to.deep.equal(['pods/crane_pod_cpu_usage', 'pods/http_requests']);
      // Unauthorized callers never reach the remote.
      const before = seen.length;
      const denied = await a.get('/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready', { headers: asUser('jane') });
      expect(denied.status).to.equal(403);
      expect(seen.length).to.equal(before);
      // A remote that is down is a 503 Status.
      await new Promise<void>((r) => remote.close(() => r()));
      remote.closeAllConnections();
      const down = await a.get('/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready', { headers: HPA });
      expect(down.status).to.equal(503);
      expect(down.json.message).to.match(/^remote adapter unavailable/);
    } finally {
      await a.close();
      remote.close();
    }
  });
});
