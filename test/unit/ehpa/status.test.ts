import { expect } from 'chai';
import { buildStatus, PREDICTION_FALLBACK } from '../../../src/ehpa/status.ts';
import { CONDITION_MESSAGE_MAX, metaTime } from '../../../src/api/meta.ts';
import type { HorizontalPodAutoscaler } from '../../../src/api/autoscaling.ts';
import type { TimeSeriesPrediction } from '../../../src/api/prediction.ts';
import { ehpa } from './fixtures.ts';

const T0 = Date.parse('2026-11-22T08:00:00Z');
const hpa = (status: HorizontalPodAutoscaler['status']): HorizontalPodAutoscaler => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'ehpa-php-apache', namespace: 'default' },
  spec: { scaleTargetRef: { kind: 'Deployment', name: 'php-apache' }, maxReplicas: 10 },
  status,
});

describe('buildStatus (crane-behaviour.md §A.2)', () => {
  it('copies replicas, lastScaleTime (Auto too, unlike Crane) and the HPA conditions; Ready=True', () => {
    const s = buildStatus({
      ehpa: ehpa(),
      nowMs: T0,
      hpa: hpa({
        currentReplicas: 3,
        desiredReplicas: 5,
        lastScaleTime: '2026-11-22T07:59:00Z',
        conditions: [{ type: 'AbleToScale', status: 'True', reason: 'SucceededRescale', message: 'ok', lastTransitionTime: '2026-11-22T07:00:00Z' }],
      }),
    });
    expect(s.currentReplicas).to.equal(3);
    expect(s.expectReplicas).to.equal(5);
    expect(s.lastScaleTime).to.equal('2026-11-22T07:59:00Z');
    expect(s.conditions).to.deep.equal([
      { type: 'Ready', status: 'True', reason: 'EffectiveHorizontalPodAutoscalerReady', message: 'Effective HPA is ready', lastTransitionTime: '2026-11-22T08:00:00Z' },
      { type: 'AbleToScale', status: 'True', reason: 'SucceededRescale', message: 'ok', lastTransitionTime: '2026-11-22T07:00:00Z' },
    ]);
  });

  it('keeps lastTransitionTime while a condition does not flip, so an idle reconcile changes nothing', () => {
    const first = buildStatus({ ehpa: ehpa(), nowMs: T0, hpa: hpa({ desiredReplicas: 2, currentReplicas: 2 }) });
    const e = ehpa();
    e.status = first;
    const second = buildStatus({ ehpa: e, nowMs: T0 + 60_000, hpa: hpa({ desiredReplicas: 2, currentReplicas: 2 }) });
    expect(second).to.deep.equal(first);
    const failed = buildStatus({ ehpa: e, nowMs: T0 + 120_000, failure: { reason: 'FailedGetScale', message: 'Failed to get scale' } });
    expect(failed.conditions?.[0]).to.deep.include({ status: 'False', reason: 'FailedGetScale', lastTransitionTime: metaTime(T0 + 120_000) });
  });

  it('mirrors the TSP Ready condition as PredictionReady only when it has a reason', () => {
    const tsp = (reason: string): TimeSeriesPrediction => ({
      apiVersion: 'prediction.crane.io/v1alpha1',
      kind: 'TimeSeriesPrediction',
      metadata: { name: 'ehpa-php-apache', namespace: 'default' },
      spec: { targetRef: { kind: 'Deployment', name: 'php-apache' }, predictionWindowSeconds: 3600, predictionMetrics: [] },
      status: { conditions: [{ type: 'Ready', status: 'False', reason, message: 'not all metric predicted', lastTransitionTime: '2026-11-22T07:00:00Z' }] },
    });
    const s = buildStatus({ ehpa: ehpa(), nowMs: T0, tsp: tsp('PredictPartial') });
    expect(s.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).to.deep.equal([
      ['Ready', 'True', 'EffectiveHorizontalPodAutoscalerReady', 'Effective HPA is ready'],
      ['PredictionReady', 'False', 'PredictPartial', 'not all metric predicted'],
    ]);
    expect(buildStatus({ ehpa: ehpa(), nowMs: T0, tsp: tsp('') }).conditions).to.have.length(1);
  });

  it('in Preview ignores the HPA lastScaleTime (it scaled the Substitute) and records a manual scale', () => {
    const e = ehpa({ scaleStrategy: 'Preview', specificReplicas: 4 });
    const noScale = buildStatus({ ehpa: e, nowMs: T0, hpa: hpa({ desiredReplicas: 6, currentReplicas: 2, lastScaleTime: '2026-11-22T07:00:00Z' }) });
    expect(noScale.lastScaleTime).to.equal(undefined);
    expect(noScale.expectReplicas).to.equal(6);
    const scaled = buildStatus({ ehpa: e, nowMs: T0 + 500, hpa: hpa({ desiredReplicas: 6, currentReplicas: 2 }), currentReplicas: 4, scaledNow: true });
    expect(scaled.lastScaleTime).to.equal('2026-11-22T08:00:00Z');
    expect(scaled.currentReplicas).to.equal(4);
  });

  it('reports scaling disabled with currentReplicas 0', () => {
    const s = buildStatus({ ehpa: ehpa(), nowMs: T0, currentReplicas: 0, failure: { reason: 'ScalingDisabled', message: 'scaling is disabled since the replica count of the target is zero' } });
    expect(s.currentReplicas).to.equal(0);
    expect(s.conditions?.[0]?.reason).to.equal('ScalingDisabled');
  });

  it('skips copied conditions whose reason would fail metav1.Condition validation', () => {
    const s = buildStatus({ ehpa: ehpa(), nowMs: T0, hpa: hpa({ conditions: [{ type: 'ScalingActive', status: 'False', reason: 'bad reason!', message: '' }] }) });
    expect(s.conditions?.map((c) => c.type)).to.deep.equal(['Ready']);
  });

  it("bounds a copied condition's message: 2,000 HPAs on one Deployment make AmbiguousSelector's list longer than the CRD admits", () => {
    const names = Array.from({ length: 2000 }, (_, i) => `burst/ehpa-e${i}`).join(' ');
    const message = `pods by selector app=web are controlled by multiple HPAs: [${names}]`;
    expect(message.length).to.be.above(32_768);
    const s = buildStatus({ ehpa: ehpa(), nowMs: T0, hpa: hpa({ conditions: [{ type: 'ScalingActive', status: 'False', reason: 'AmbiguousSelector', message }] }) });
    const copied = s.conditions?.find((c) => c.type === 'ScalingActive');
    expect(copied?.message.length).to.equal(CONDITION_MESSAGE_MAX);
    expect(copied?.message).to.match(/^pods by selector app=web are controlled by multiple HPAs: \[burst\/ehpa-e0 /);
    expect(copied?.message).to.match(/ … \(cut\)$/);
    // One more HPA on the same pods: the cut message is the same, so the status is not rewritten for it.
    const longer = buildStatus({ ehpa: ehpa(), nowMs: T0, hpa: hpa({ conditions: [{ type: 'ScalingActive', status: 'False', reason: 'AmbiguousSelector', message: message.replace(']', ' burst/ehpa-e2000]') }] }) });
    expect(longer.conditions?.find((c) => c.type === 'ScalingActive')?.message).to.equal(copied?.message);
  });

  it('bounds our own conditions too (a TSP message carried into PredictionReady)', () => {
    const t: TimeSeriesPrediction = {
      apiVersion: 'prediction.crane.io/v1alpha1',
      kind: 'TimeSeriesPrediction',
      metadata: { name: 'ehpa-php-apache', namespace: 'default' },
      spec: { targetRef: { kind: 'Deployment', name: 'php-apache' }, predictionWindowSeconds: 3600, predictionMetrics: [] },
      status: { conditions: [{ type: 'Ready', status: 'False', reason: 'PredictPartial', message: 'x'.repeat(50_000), lastTransitionTime: '2026-11-22T07:00:00Z' }] },
    };
    const s = buildStatus({ ehpa: ehpa(), nowMs: T0, tsp: t });
    expect(s.conditions?.find((c) => c.type === 'PredictionReady')?.message.length).to.equal(CONDITION_MESSAGE_MAX);
    for (const c of s.conditions ?? []) expect(c.message.length, c.type).to.be.at.most(CONDITION_MESSAGE_MAX);
  });
});

describe('PredictionFallback condition (crane_pod_cpu_usage served from observed usage)', () => {
  it('is True with the adapter reason while the forecast is unusable, False once it is served', () => {
    const e = ehpa({});
    const bad = buildStatus({ ehpa: e, nowMs: 1_000_000, cpuForecast: { ok: false, reason: 'PredictionOutdated', message: 'samples end before now' } });
    const c = bad.conditions?.find((x) => x.type === PREDICTION_FALLBACK);
    expect(c).to.include({ status: 'True', reason: 'PredictionOutdated' });
    expect(c?.message).to.contain('samples end before now');
    const good = buildStatus({ ehpa: { ...e, status: bad }, nowMs: 2_000_000, cpuForecast: { ok: true, largest: 2.5 } });
    expect(good.conditions?.find((x) => x.type === PREDICTION_FALLBACK)).to.include({ status: 'False', reason: 'ForecastServed' });
    expect(buildStatus({ ehpa: e, nowMs: 0 }).conditions?.some((x) => x.type === PREDICTION_FALLBACK)).to.equal(false);
  });
});
