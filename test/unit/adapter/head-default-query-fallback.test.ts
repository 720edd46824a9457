// The adapter's observed fallback for a Pods/External metric predicted on Crane HEAD's default query
// (--hpa-shape=head, docs/crane-behaviour.md §B.4, §C.9): an HPA reading crane_autoscaling_prediction is
// HEAD's shape, so while the forecast is missing it gets the observed value of the same default query; the
// v0.7 names keep requiring the annotation, as the v0.7 controller does.
import { expect } from 'chai';
import { asUser, startTestAdapter, type Running } from '../../helpers/adapter-fixture.ts';
import type { AdapterSources } from '../../../src/adapter/providers/sources.ts';
import { ehpa, pod, UID } from './fixtures.ts';

const HPA = asUser('hpa');
const head = (rid: string) =>
  `/apis/external.metrics.k8s.io/v1beta1/namespaces/default/crane_autoscaling_prediction?labelSelector=${encodeURIComponent(`targetKind=Deployment,targetName=web,targetNamespace=default,resourceIdentifier=${rid}`)}`;
const EXT_V07 = `/apis/external.metrics.k8s.io/v1beta1/namespaces/default/crane_external_queue_messages_ready?labelSelector=autoscaling.crane.io%2Feffective-hpa-uid%3D${UID}`;

describe('crane_autoscaling_prediction of a metric predicted on HEAD\'s default query (no annotation)', function () {
  this.timeout(30_000);
  let a: Running;
  let queries: { ns: string; promql: string }[];
  beforeEach(async () => {
    a = await startTestAdapter();
    a.authorizer.allowedUsers.add('hpa');
    a.sources.ehpas.push(ehpa({
      metrics: [{ type: 'External', external: { metric: { name: 'queue_messages_ready', selector: { matchLabels: { queue: 'orders' } } }, target: { type: 'AverageValue', averageValue: '30' } } }],
    }));
    a.sources.pods.push(pod('web-1', a.clock.now));
    queries = [];
    (a.sources as AdapterSources).observedQueryTotal = (ns, promql) => {
      queries.push({ ns, promql });
      return 60;
    };
  });
  afterEach(async () => a.close());

  it('with no forecast yet, answers the observed value of the default query, confined to the namespace', async () => {
    const r = await a.get(head('external.queue_messages_ready'), { headers: HPA });
    expect(r.status).to.equal(200);
    expect(r.json.items.map((i: { value: string }) => i.value)).to.deep.equal(['60']);
    expect(queries).to.deep.equal([{ ns: 'default', promql: 'sum(queue_messages_ready{namespace="default",queue="orders"})' }]);
    expect(a.fallbacks.map((f) => [f.metric, f.reason, f.outcome])).to.deep.equal([['crane_autoscaling_prediction external.queue_messages_ready', 'PredictionMissing', 'observed']]);
  });

  it('the v0.7 name still needs the annotation: no default query is run for it', async () => {
    const r = await a.get(EXT_V07, { headers: HPA });
    expect(r.status).to.not.equal(200);
    expect(queries).to.deep.equal([]);
  });
});
