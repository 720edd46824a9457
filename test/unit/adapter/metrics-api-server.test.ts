import { expect } from 'chai';
import { asUser, startTestAdapter, type Running } from '../../helpers/adapter-fixture.ts';
import { ehpa, seed, tsp, UID } from './fixtures.ts';

const CM = '/apis/custom.metrics.k8s.io';
const EM = '/apis/external.metrics.k8s.io/v1beta1';
const HPA = asUser('system:serviceaccount:kube-system:horizontal-pod-autoscaler');
const POD_Q = `labelSelector=app%3Dweb&metricLabelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3D${UID}`;

describe('metrics API server over HTTPS', function () {
  this.timeout(30_000);
  let a: Running;
  before(async () => {
    a = await startTestAdapter();
    seed(a.sources, a.clock.now);
    a.authorizer.allowedUsers.add('system:serviceaccount:kube-system:horizontal-pod-autoscaler');
  });
  after(async () => a.close());

  describe('discovery (docs/metrics-api.md §1)', () => {
    it('lists both groups with v1beta2 preferred for custom metrics', async () => {
      const r = await a.get('/apis', { headers: HPA });
      expect(r.status).to.equal(200);
      expect(r.headers['content-type']).to.match(/^application\/json/);
      expect(r.json).to.deep.equal({
        kind: 'APIGroupList', apiVersion: 'v1',
        groups: [
          { name: 'custom.metrics.k8s.io', versions: [{ groupVersion: 'custom.metrics.k8s.io/v1beta2', version: 'v1beta2' }, { groupVersion: 'custom.metrics.k8s.io/v1beta1', version: 'v1beta1' }], preferredVersion: { groupVersion: 'custom.metrics.k8s.io/v1beta2', version: 'v1beta2' } },
          { name: 'external.metrics.k8s.io', versions: [{ groupVersion: 'external.metrics.k8s.io/v1beta1', version: 'v1beta1' }], preferredVersion: { groupVersion: 'external.metrics.k8s.io/v1beta1', version: 'v1beta1' } },
        ],
      });
    });
    it('serves APIGroup documents', async () => {
      const r = await a.get('/apis/external.metrics.k8s.io', { headers: HPA });
      expect(r.json).to.deep.equal({ kind: 'APIGroup', apiVersion: 'v1', name: 'external.metrics.k8s.io', versions: [{ groupVersion: 'external.metrics.k8s.io/v1beta1', version: 'v1beta1' }], preferredVersion: { groupVersion: 'external.metrics.k8s.io/v1beta1', version: 'v1beta1' } });
    });
    for (const v of ['v1beta1', 'v1beta2']) {
      it(`lists pods/crane_pod_cpu_usage under custom ${v} with verbs [get] only`, async () => {
        const r = await a.get(`${CM}/${v}`, { headers: HPA });
        expect(r.json).to.deep.equal({
          kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `custom.metrics.k8s.io/${v}`,
          resources: [{ name: 'pods/crane_pod_cpu_usage', singularName: '', namespaced: true, kind: 'MetricValueList', verbs: ['get'] }],
        });
      });
    }
    it('lists the external metrics', async () => {
      const r = await a.get(EM, { headers: HPA });
      expect(r.json.groupVersion).to.equal('external.metrics.k8s.io/v1beta1');
      expect(r.json.resources.map((x: { name: string }) => x.name)).to.deep.equal(['crane_autoscaling_cron', 'crane_autoscaling_prediction']);
      expect(r.json.resources[0]).to.deep.equal({ name: 'crane_autoscaling_cron', singularName: '', namespaced: true, kind: 'ExternalMetricValueList', verbs: ['get'] });
    });
    it('answers an aggregated-discovery-only Accept with 406 (docs/metrics-api.md §7 G4) but JSON to */* and protobuf,*/* (G15)', async () => {
      const v2 = await a.get('/apis', { headers: [...HPA, ['Accept', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList']] });
      expect(v2.status).to.equal(406);
      expect(v2.json.kind).to.equal('Status');
      const pb = await a.get(`${CM}/v1beta2/namespaces/default/pods/%2A/crane_pod_cpu_usage?${POD_Q}`, { headers: [...HPA, ['Accept', 'application/vnd.kubernetes.protobuf, */*']] });
      expect(pb.status).to.equal(200);
      expect(pb.headers['content-type']).to.match(/^application\/json/);
    });
    it('404s openapi and unknown paths with a Status', async () => {
      for (const p of ['/openapi/v2', '/openapi/v3', '/apis/metrics.k8s.io/v1beta1', `${CM}/v1`]) {
        const r = await a.get(p, { headers: HPA });
        expect(r.status, p).to.equal(404);
        expect(r.json).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
      }
    });
  });

  describe('crane_pod_cpu_usage (crane-behaviour.md §C.3)', () => {
    it('v1beta2: max forecast over the window split evenly over the available pods, one item per pod', async () => {
      const r = await a.get(`${CM}/v1beta2/namespaces/default/pods/%2A/crane_pod_cpu_usage?${POD_Q}`, { headers: HPA });
      expect(r.status).to.equal(200);
      expect(r.json.kind).to.equal('MetricValueList');
      expect(r.json.apiVersion).to.equal('custom.metrics.k8s.io/v1beta2');
      expect(r.json.metadata).to.deep.equal({});
      // max(0.5, 0.7, 0.6) cores over 3 available pods (web-new is Ready < 30 s, db-1 is not selected) → 233m.
      expect(r.json.items).to.deep.equal(['web-1', 'web-2', 'web-3'].map((name) => ({
        describedObject: { kind: 'Pod', apiVersion: 'v1', name, namespace: 'default' },
        metric: { name: 'crane_pod_cpu_usage', selector: { matchLabels: { 'autoscaling.crane.io/effective-hpa-uid': UID } } },
        timestamp: '2026-01-05T10:00:00Z',
        windowSeconds: 60,
        value: '233m',
      })));
    });
    it('v1beta1: the same values in v1beta1 field names (metricName, window, item-level selector)', async () => {
      const r = await a.get(`${CM}/v1beta1/namespaces/default/pods/%2A/crane_pod_cpu_usage?${POD_Q}`, { headers: HPA });
      expect(r.json.apiVersion).to.equal('custom.metrics.k8s.io/v1beta1');
      expect(r.json.items[0]).to.deep.equal({
        describedObject: { kind: 'Pod', apiVersion: 'v1', name: 'web-1', namespace: 'default' },
        metricName: 'crane_pod_cpu_usage',
        timestamp: '2026-01-05T10:00:00Z',
        window: 60,
        value: '233m',
        selector: { matchLabels: { 'autoscaling.crane.io/effective-hpa-uid': UID } },
      });
    });
    it('answers a single named pod (Object-style path) with exactly one item', async () => {
      const r = await a.get(`${CM}/v1beta2/namespaces/default/pods/web-2/crane_pod_cpu_usage?metricLabelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3D${UID}`, { headers: HPA });
      expect(r.status).to.equal(200);
      expect(r.json.items.map((i: { describedObject: { name: string } }) => i.describedObject.name)).to.deep.equal(['web-2']);
    });
    it('without the uid metric selector: 400; unknown uid: 404', async () => {
      const r = await a.get(`${CM}/v1beta2/namespaces/default/pods/%2A/crane_pod_cpu_usage?labelSelector=app%3Dweb`, { headers: HPA });
      expect(r.status).to.equal(400);
      expect(r.json.message).to.match(/needs metricLabelSelector autoscaling.crane.io\/effective-hpa-uid/);
      const u = await a.get(`${CM}/v1beta2/namespaces/default/pods/%2A/crane_pod_cpu_usage?labelSelector=app%3Dweb&metricLabelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3Dnope`, { headers: HPA });
      expect(u.status).to.equal(404);
    });
    it('a malformed selector is a 400 naming the problem', async () => {
      const r = await a.get(`${CM}/v1beta2/namespaces/default/pods/%2A/crane_pod_cpu_usage?labelSelector=app%20in%20(web`, { headers: HPA });
      expect(r.status).to.equal(400);
      expect(r.json).to.include({ reason: 'BadRequest' });
      expect(r.json.message).to.match(/unbalanced/);
    });
    it('an unknown custom metric is a 404 in the reference wording', async () => {
      const r = await a.get(`${CM}/v1beta2/namespaces/default/deployments.apps/web/http_requests`, { headers: HPA });
      expect(r.status).to.equal(404);
      expect(r.json.message).to.equal('the server could not find the metric http_requests for deployments.apps web');
      const ns = await a.get(`${CM}/v1beta2/namespaces/default/metrics/queue_depth`, { headers: HPA });
      expect(ns.status).to.equal(404);
      expect(ns.json.message).to.equal('the server could not find the metric queue_depth for namespaces default');
      const root = await a.get(`${CM}/v1beta2/nodes/%2A/node_load1`, { headers: HPA });
      expect(root.status).to.equal(404);
      const short = await a.get(`${CM}/v1beta2/namespaces/default/pods`, { headers: HPA });
      expect(short.status).to.equal(400);
      expect(short.json.message).to.equal('invalid request path');
    });
  });

  describe('the cron external metric', () => {
    before(() => {
      // Window 09:00–17:00 UTC on weekdays; now is Monday 10:00Z.
      a.sources.ehpas.push(
        ehpa({ crons: [{ name: 'day', start: '0 9 * * 1-5', end: '0 17 * * 1-5', targetReplicas: 8 }, { name: 'night', start: '0 22 * * *', end: '0 6 * * *', targetReplicas: 3 }] }, 'shop', 'uid-shop'),
        ehpa({ metrics: [], crons: [{ name: 'night', start: '0 22 * * *', end: '0 6 * * *', targetReplicas: 3 }] }, 'batch', 'uid-batch'),
        ehpa({ crons: [{ name: 'bad', start: '0 9 * * *', end: '0 17 * * *', timezone: 'Mars/Base' }] }, 'broken', 'uid-broken'),
      );
      a.sources.scale.set('default/Deployment/batch', 5);
    });
    it('v0.6–v0.7 name crane_cron_<ehpa>: largest active targetReplicas', async () => {
      const r = await a.get(`${EM}/namespaces/default/crane_cron_shop?labelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3Duid-shop`, { headers: HPA });
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal({
        kind: 'ExternalMetricValueList', apiVersion: 'external.metrics.k8s.io/v1beta1', metadata: {},
        items: [{ metricName: 'crane_cron_shop', metricLabels: { 'autoscaling.crane.io/effective-hpa-uid': 'uid-shop' }, timestamp: '2026-01-05T10:00:00Z', window: 60, value: '8' }],
      });
    });
    it('v0.4 name <ehpa> with the uid selector, and v0.8+ crane_autoscaling_cron with target selectors', async () => {
      const legacy = await a.get(`${EM}/namespaces/default/shop?labelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3Duid-shop`, { headers: HPA });
      expect(legacy.json.items[0].value).to.equal('8');
      const head = await a.get(`${EM}/namespaces/default/crane_autoscaling_cron?labelSelector=resourceIdentifier%3Dcron%2CtargetKind%3DDeployment%2CtargetName%3Dshop%2CtargetNamespace%3Ddefault`, { headers: HPA });
      expect(head.status).to.equal(200);
      expect(head.json.items[0].value).to.equal('8');
      const noSel = await a.get(`${EM}/namespaces/default/crane_autoscaling_cron`, { headers: HPA });
      expect(noSel.status).to.equal(400);
    });
    it('crane_autoscaling_cron answers only for the namespace of the path the caller was authorized for', async () => {
      // Asked from namespace "other" for an EHPA of "default": nothing of "default" comes back.
      const sel = 'labelSelector=resourceIdentifier%3Dcron%2CtargetKind%3DDeployment%2CtargetName%3Dshop%2CtargetNamespace%3Ddefault';
      const cross = await a.get(`${EM}/namespaces/other/crane_autoscaling_cron?${sel}`, { headers: HPA });
      expect(cross.status).to.equal(404);
      expect(JSON.stringify(cross.json)).to.not.match(/"value"/);
      expect(cross.json.message).to.match(/in namespace other/);
      const same = await a.get(`${EM}/namespaces/default/crane_autoscaling_cron?${sel}`, { headers: HPA });
      expect(same.status).to.equal(200);
    });
    it('no active cron: minReplicas with other metrics, current replicas without', async () => {
      a.clock.now = Date.parse('2026-01-05T18:00:00Z');
      try {
        const shop = await a.get(`${EM}/namespaces/default/crane_cron_shop`, { headers: HPA });
        expect(shop.json.items[0].value).to.equal('2');
        const batch = await a.get(`${EM}/namespaces/default/crane_cron_batch`, { headers: HPA });
        expect(batch.json.items[0].value).to.equal('5');
        a.clock.now = Date.parse('2026-01-05T23:00:00Z');
        const night = await a.get(`${EM}/namespaces/default/crane_cron_batch`, { headers: HPA });
        expect(night.json.items[0].value).to.equal('3');
      } finally {
        a.clock.now = Date.parse('2026-01-05T10:00:00Z');
      }
    });
    it('follows the cron time zone across a DST change (02:30 New York start on spring-forward day opens at 03:30 EDT)', async () => {
      a.sources.ehpas.push(ehpa({ crons: [{ name: 'early', timezone: 'America/New_York', start: '30 2 * * *', end: '0 5 * * *', targetReplicas: 6 }] }, 'nyc', 'uid-nyc'));
      const at = async (iso: string) => {
        a.clock.now = Date.parse(iso);
        return (await a.get(`${EM}/namespaces/default/crane_cron_nyc`, { headers: HPA })).json.items[0].value;
      };
      try {
        expect(await at('2026-03-08T07:29:00Z')).to.equal('2');
        expect(await at('2026-03-08T07:30:00Z')).to.equal('6');
        expect(await at('2026-03-08T08:59:59Z')).to.equal('6');
        expect(await at('2026-03-08T09:00:00Z')).to.equal('2');
        expect(await at('2026-03-09T06:30:00Z')).to.equal('6'); // 02:30 EDT the next day
      } finally {
        a.clock.now = Date.parse('2026-01-05T10:00:00Z');
      }
    });
    it('an invalid zone fails that EHPA only, clearly: 422 Invalid naming the EHPA and the field', async () => {
      const r = await a.get(`${EM}/namespaces/default/crane_cron_broken`, { headers: HPA });
      expect(r.status).to.equal(422);
      expect(r.json).to.deep.equal({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
        message: 'EffectiveHorizontalPodAutoscaler default/broken is invalid: spec.crons[0].timezone: unknown time zone "Mars/Base"',
        details: {
          name: 'broken', group: 'autoscaling.crane.io', kind: 'EffectiveHorizontalPodAutoscaler',
          causes: [{ reason: 'FieldValueInvalid', message: 'unknown time zone "Mars/Base"', field: 'spec.crons[0].timezone' }],
        },
      });
      expect((await a.get(`${EM}/namespaces/default/crane_cron_shop`, { headers: HPA })).status).to.equal(200);
    });
    it('a cron the API server stored but robfig refuses (minute 61) is 422 on every cron metric name, not 500', async () => {
      a.sources.ehpas.push(ehpa({ crons: [{ name: 'ok', start: '0 9 * * *', end: '0 17 * * *', targetReplicas: 4 }, { name: 'typo', start: '61 * * * *', end: '0 17 * * *', targetReplicas: 4 }] }, 'typo', 'uid-typo'));
      const sel = 'labelSelector=resourceIdentifier%3Dcron%2CtargetKind%3DDeployment%2CtargetName%3Dtypo%2CtargetNamespace%3Ddefault';
      for (const path of [`crane_cron_typo`, `typo?labelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3Duid-typo`, `crane_autoscaling_cron?${sel}`]) {
        const r = await a.get(`${EM}/namespaces/default/${path}`, { headers: HPA });
        expect(r.status, path).to.equal(422);
        expect(r.json.reason).to.equal('Invalid');
        expect(r.json.details.causes.map((c: { field: string }) => c.field)).to.deep.equal(['spec.crons[1].start']);
        expect(r.json.message).to.match(/^EffectiveHorizontalPodAutoscaler default\/typo is invalid: spec\.crons\[1\]\.start: invalid cron start: .*minute value 61 is above the maximum 59/);
      }
    });
    it('an unknown EHPA or a uid mismatch is 404; an unowned external metric is 404 without a remote adapter', async () => {
      expect((await a.get(`${EM}/namespaces/default/crane_cron_nope`, { headers: HPA })).status).to.equal(404);
      expect((await a.get(`${EM}/namespaces/default/crane_cron_shop?labelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3Dother`, { headers: HPA })).status).to.equal(404);
      const q = await a.get(`${EM}/namespaces/default/queue_messages_ready?labelSelector=queue%3Dorders`, { headers: HPA });
      expect(q.status).to.equal(404);
      expect(q.json.message).to.equal('the server could not find the external metric queue_messages_ready');
    });
  });

  describe('before the caches have synced', () => {
    it('metric requests answer 503 (never 404 for objects not listed yet); discovery and health answer', async () => {
      let synced = false;
      const b = await startTestAdapter({ ready: () => synced });
      try {
        b.authorizer.allowedUsers.add('system:serviceaccount:kube-system:horizontal-pod-autoscaler');
        seed(b.sources, b.clock.now);
        for (const path of [`${CM}/v1beta2/namespaces/default/pods/%2A/crane_pod_cpu_usage?${POD_Q}`, `${EM}/namespaces/default/crane_cron_web`, `${EM}/namespaces/default/no_such_metric`]) {
          const r = await b.get(path, { headers: HPA });
          expect(r.status, path).to.equal(503);
          expect(r.json.message).to.equal('the metrics adapter has not finished reading the cluster yet; try again in a few seconds');
        }
        expect((await b.get(`${CM}/v1beta2`, { headers: HPA })).status).to.equal(200);
        expect((await b.get('/readyz')).status).to.equal(503);
        synced = true;
        expect((await b.get(`${CM}/v1beta2/namespaces/default/pods/%2A/crane_pod_cpu_usage?${POD_Q}`, { headers: HPA })).status).to.equal(200);
      } finally {
        await b.close();
      }
    });
  });

  describe('crane_autoscaling_prediction (v0.8+ name)', () => {
    it('answers the window maximum for the target, untruncated', async () => {
      a.sources.tsps.push(tsp(a.clock.now, [1.2, 2.7, 2.5], { rid: 'resource.cpu', name: 'ehpa-web-head', uid: 'x' }));
      const r = await a.get(`${EM}/namespaces/default/crane_autoscaling_prediction?labelSelector=resourceIdentifier%3Dresource.cpu%2CtargetKind%3DDeployment%2CtargetName%3Dweb%2CtargetNamespace%3Ddefault`, { headers: HPA });
      expect(r.status).to.equal(200);
      expect(r.json.items[0].value).to.equal('2700m');
    });
  });

  describe('security (docs/metrics-api.md §5, §8 checklist 1–4, 13, 14)', () => {
    const path = `${CM}/v1beta2/namespaces/default/pods/%2A/crane_pod_cpu_usage?${POD_Q}`;
    it('health paths are open without any certificate', async () => {
      for (const p of ['/healthz', '/livez', '/readyz']) {
        const r = await a.get(p, { cert: 'none' });
        expect(r.status, p).to.equal(200);
        expect(r.text).to.equal('ok');
      }
    });
    it('the aggregator (system:masters via the front-proxy cert) is allowed without a SAR', async () => {
      const before = a.authorizer.calls.length;
      const r = await a.get(`${CM}/v1beta2`, { headers: asUser('system:kube-aggregator', 'system:masters') });
      expect(r.status).to.equal(200);
      expect(a.authorizer.calls.length).to.equal(before);
    });
    it('no certificate: anonymous → SAR → 403, even when it claims to be system:masters', async () => {
      a.authorizer.calls = [];
      const r = await a.get(path, { cert: 'none', headers: asUser('admin', 'system:masters') });
      expect(r.status).to.equal(403);
      expect(r.json).to.include({ kind: 'Status', reason: 'Forbidden', code: 403 });
      expect(r.json.items).to.equal(undefined);
      expect(a.authorizer.calls[0]?.user).to.deep.equal({ name: 'system:anonymous', groups: ['system:unauthenticated'], extra: {} });
    });
    it('an untrusted certificate (right CN, wrong CA) is 401', async () => {
      const r = await a.get(path, { cert: 'untrusted', headers: asUser('admin', 'system:masters') });
      expect(r.status).to.equal(401);
      expect(r.json).to.deep.equal({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    });
    it('a front-proxy-CA certificate whose CN is not an allowed name is 401', async () => {
      const r = await a.get(path, { cert: 'not-allowed', headers: asUser('admin', 'system:masters') });
      expect(r.status).to.equal(401);
    });
    it('a trusted certificate with a denied user gets 403 with the reference wording and no data', async () => {
      a.authorizer.calls = [];
      const r = await a.get(path, { headers: asUser('jane', 'dev') });
      expect(r.status).to.equal(403);
      expect(r.json.message).to.equal('pods.custom.metrics.k8s.io "*" is forbidden: User "jane" cannot get resource "pods/crane_pod_cpu_usage" in API group "custom.metrics.k8s.io" in the namespace "default"');
      expect(r.json.details).to.deep.equal({ name: '*', group: 'custom.metrics.k8s.io', kind: 'pods' });
      expect(a.authorizer.calls[0]?.attrs).to.deep.equal({ resource: { namespace: 'default', verb: 'get', group: 'custom.metrics.k8s.io', version: 'v1beta2', resource: 'pods', subresource: 'crane_pod_cpu_usage', name: '*' } });
      expect(a.authorizer.calls[0]?.user.groups).to.deep.equal(['dev', 'system:authenticated']);
    });
    it('a trusted certificate with an allowed user gets data; repeated group headers stay separate', async () => {
      a.authorizer.calls = [];
      const r = await a.get(path, { headers: [...asUser('system:serviceaccount:kube-system:horizontal-pod-autoscaler', 'g1', 'g2'), ['X-Remote-Extra-Scopes%2Fa', 'x']] });
      expect(r.status).to.equal(200);
      expect(a.authorizer.calls[0]?.user).to.deep.equal({ name: 'system:serviceaccount:kube-system:horizontal-pod-autoscaler', groups: ['g1', 'g2', 'system:authenticated'], extra: { 'scopes/a': ['x'] } });
    });
    it('external metrics are authorized as verb list on the metric resource', async () => {
      a.authorizer.calls = [];
      await a.get(`${EM}/namespaces/default/crane_cron_shop`, { headers: asUser('jane') });
      expect(a.authorizer.calls[0]?.attrs).to.deep.equal({ resource: { namespace: 'default', verb: 'list', group: 'external.metrics.k8s.io', version: 'v1beta1', resource: 'crane_cron_shop' } });
      const r = await a.get(`${EM}/namespaces/default/crane_cron_shop`, { headers: asUser('jane') });
      expect(r.json.message).to.equal('crane_cron_shop.external.metrics.k8s.io is forbidden: User "jane" cannot list resource "crane_cron_shop" in API group "external.metrics.k8s.io" in the namespace "default"');
    });
    it('discovery is a non-resource SAR; a failing SAR is a 500, never data', async () => {
      a.authorizer.calls = [];
      const d = await a.get(`${CM}/v1beta2`, { headers: asUser('jane') });
      expect(d.status).to.equal(403);
      expect(a.authorizer.calls[0]?.attrs).to.deep.equal({ nonResource: { path: '/apis/custom.metrics.k8s.io/v1beta2', verb: 'get' } });
      a.authorizer.failing = true;
      try {
        const r = await a.get(path, { headers: asUser('jane') });
        expect(r.status).to.equal(500);
        expect(r.json.items).to.equal(undefined);
        // The cause goes to the log, not to the caller (it can carry internals such as URLs).
        expect(r.json.message).to.equal('internal error (see the adapter log)');
        expect(JSON.stringify(r.json)).to.not.contain('connection refused');
      } finally {
        a.authorizer.failing = false;
      }
    });
    it('POST is 405 for an authorized user (after authorization)', async () => {
      const r = await a.get(path, { method: 'POST', headers: HPA });
      expect(r.status).to.equal(405);
      expect(r.json.reason).to.equal('MethodNotAllowed');
    });
    it('exports request, authz-cache and fallback series with the ehpa_adapter_ prefix', async () => {
      const text = await a.registry.metrics();
      expect(text).to.match(/ehpa_adapter_metrics_api_requests_total\{metric="crane_pod_cpu_usage",code="200"\} \d+/);
      expect(text).to.match(/ehpa_adapter_metrics_api_request_duration_seconds_bucket\{le="0.005",metric="crane_pod_cpu_usage",code="200"\}/);
      expect(text).to.match(/ehpa_adapter_authz_cache_lookups_total\{result="miss"\} \d+/);
      expect(text).to.include('ehpa_adapter_prediction_fallbacks_total');
    });
  });
});
