import { expect } from 'chai';
import { Quantity } from '../../../../src/quantity/index.ts';
import { parseInstant } from '../../../../src/gomath/go-time.ts';
import type { ContainerRecommendation } from '../../../../src/vpa/logic/resource-list.ts';
import { desiredVpaStatus, hasTrueCondition, historyUnavailableMessage, statusChanged, type VpaStatusJSON } from '../../../../src/vpa/routines/vpa-status.ts';

const T0 = parseInstant('2026-11-22T09:00:00Z');
const T1 = parseInstant('2026-11-22T09:05:30.5Z');
const q = (s: string) => Quantity.parse(s);
function rec(memory: string): ContainerRecommendation {
  const l = () => new Map([['memory', q(memory)]]);
  return { containerName: 'app', target: l(), lowerBound: l(), upperBound: l(), uncappedTarget: l() };
}

describe('vpa routines: desired VPA status', () => {
  it('a recommendation with matching pods: RecommendationProvided True, no NoPodsMatched, JSON as Go writes it', () => {
    const s = desiredVpaStatus(undefined, { recommendation: [rec('500Mi')], podsMatched: true, now: T0 });
    expect(s).to.deep.equal({
      recommendation: { containerRecommendations: [{ containerName: 'app', target: { memory: '500Mi' }, lowerBound: { memory: '500Mi' }, upperBound: { memory: '500Mi' }, uncappedTarget: { memory: '500Mi' } }] },
      conditions: [{ type: 'RecommendationProvided', status: 'True', lastTransitionTime: '2026-11-22T09:00:00Z' }],
    });
  });

  it('no pods: NoPodsMatched True and RecommendationProvided False with its reason (upstream UpdateConditions)', () => {
    const s = desiredVpaStatus(undefined, { recommendation: [], podsMatched: false, now: T0 });
    expect(s.recommendation).to.deep.equal({});
    expect(s.conditions).to.deep.equal([
      { type: 'NoPodsMatched', status: 'True', reason: 'NoPodsMatched', message: 'No pods match this VPA object', lastTransitionTime: '2026-11-22T09:00:00Z' },
      { type: 'RecommendationProvided', status: 'False', reason: 'NoPodsMatched', message: 'No pods match this VPA object', lastTransitionTime: '2026-11-22T09:00:00Z' },
    ]);
  });

  it('keeps lastTransitionTime while a status holds, moves it (whole seconds) when it flips, drops stale ConfigDeprecated', () => {
    const observed: VpaStatusJSON = {
      conditions: [
        { type: 'RecommendationProvided', status: 'True', lastTransitionTime: '2026-11-20T00:00:00Z' },
        { type: 'NoPodsMatched', status: 'True', lastTransitionTime: '2026-11-20T00:00:00Z' },
        { type: 'ConfigDeprecated', status: 'True', lastTransitionTime: '2026-11-20T00:00:00Z' },
      ],
    };
    const s = desiredVpaStatus(observed, { recommendation: [], podsMatched: true, now: T1 });
    expect(s.conditions).to.deep.equal([{ type: 'RecommendationProvided', status: 'False', lastTransitionTime: '2026-11-22T09:05:30Z' }]);
    const kept = desiredVpaStatus(observed, { recommendation: [rec('1Gi')], podsMatched: true, now: T1 });
    expect(kept.conditions).to.deep.equal([{ type: 'RecommendationProvided', status: 'True', lastTransitionTime: '2026-11-20T00:00:00Z' }]);
  });

  it('says why while an EHPA owns CPU, and removes the condition when it no longer does', () => {
    const s = desiredVpaStatus(undefined, { recommendation: [rec('1Gi')], podsMatched: true, splitWithEhpa: 'web', now: T0 });
    const split = s.conditions!.find((c) => c.type === 'ResourcesSplitWithHPA')!;
    expect(split).to.include({ status: 'True', reason: 'HPAScalesOnCPU' });
    expect(split.message).to.equal('EffectiveHorizontalPodAutoscaler web scales this workload on CPU: the HPA owns CPU, this VPA recommends memory only');
    expect(hasTrueCondition(s, 'ResourcesSplitWithHPA')).to.equal(true);
    const later = desiredVpaStatus(s, { recommendation: [rec('1Gi')], podsMatched: true, now: T1 });
    expect(hasTrueCondition(later, 'ResourcesSplitWithHPA')).to.equal(false);
    expect(later.conditions!.map((c) => c.type)).to.deep.equal(['RecommendationProvided']);
  });

  it('ConfigUnsupported carries the message and goes away when the target is fine', () => {
    const s = desiredVpaStatus(undefined, { recommendation: [], podsMatched: false, configUnsupported: 'Cannot read targetRef', now: T0 });
    expect(s.conditions![0]).to.deep.equal({ type: 'ConfigUnsupported', status: 'True', message: 'Cannot read targetRef', lastTransitionTime: '2026-11-22T09:00:00Z' });
    expect(desiredVpaStatus(s, { recommendation: [], podsMatched: false, now: T0 }).conditions!.some((c) => c.type === 'ConfigUnsupported')).to.equal(false);
  });

  it('an unchanged status (quantities canonicalised by the API server) is not written again', () => {
    const s = desiredVpaStatus(undefined, { recommendation: [rec('1048576000')], podsMatched: true, now: T0 });
    const stored = JSON.parse(JSON.stringify(s).replace(/"1048576000"/g, '"1000Mi"')) as VpaStatusJSON;
    expect(statusChanged(stored, desiredVpaStatus(stored, { recommendation: [rec('1048576000')], podsMatched: true, now: T1 }))).to.equal(false);
    expect(statusChanged(stored, desiredVpaStatus(stored, { recommendation: [rec('1001Mi')], podsMatched: true, now: T1 }))).to.equal(true);
    expect(statusChanged(undefined, s)).to.equal(true);
  });

  it('a failed history load is FetchingHistory=False (HistoryUnavailable) with the cause; only our condition is removed after', () => {
    const message = historyUnavailableMessage('prometheus at https://prom.example:9090 refused the credentials: HTTP 401');
    expect(message).to.equal(
      'Prometheus history could not be loaded when this recommender started: prometheus at https://prom.example:9090 refused the credentials: HTTP 401. ' +
        'Recommending from live usage only; the history is read again at the next start or change of leader',
    );
    const s = desiredVpaStatus(undefined, { recommendation: [rec('1Gi')], podsMatched: true, historyUnavailable: message, now: T0 });
    expect(s.conditions).to.deep.equal([
      { type: 'FetchingHistory', status: 'False', reason: 'HistoryUnavailable', message, lastTransitionTime: '2026-11-22T09:00:00Z' },
      { type: 'RecommendationProvided', status: 'True', lastTransitionTime: '2026-11-22T09:00:00Z' },
    ]);
    // Held with its transition time while the term lasts; unchanged, so nothing to write.
    const held = desiredVpaStatus(s, { recommendation: [rec('1Gi')], podsMatched: true, historyUnavailable: message, now: T1 });
    expect(held.conditions![0]!.lastTransitionTime).to.equal('2026-11-22T09:00:00Z');
    expect(statusChanged(s, held)).to.equal(false);
    // A later term that loaded its history (or did not need it) removes it...
    expect(desiredVpaStatus(s, { recommendation: [rec('1Gi')], podsMatched: true, now: T1 }).conditions!.map((c) => c.type)).to.deep.equal(['RecommendationProvided']);
    // ...but not a FetchingHistory someone else wrote (upstream's checkpoint writer skips a VPA while it is True).
    const theirs: VpaStatusJSON = { conditions: [{ type: 'FetchingHistory', status: 'True', lastTransitionTime: '2026-11-20T00:00:00Z' }] };
    expect(desiredVpaStatus(theirs, { recommendation: [rec('1Gi')], podsMatched: true, now: T1 }).conditions!.map((c) => `${c.type}=${c.status}`)).to.deep.equal(['FetchingHistory=True', 'RecommendationProvided=True']);
  });

  it('the history message strips URL credentials and stays short enough for an Event', () => {
    const m = historyUnavailableMessage(`prometheus unreachable at https://user:s3cret@prom:9090: ${'x'.repeat(5000)}`);
    expect(m).to.not.contain('s3cret');
    expect(m).to.contain('unreachable at https://prom:9090');
    expect(m.length).to.be.lessThan(1024);
  });
});
