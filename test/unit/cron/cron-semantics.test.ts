// --cron-semantics truth tables: the cron metric's value and window rules under Crane v0.2–v0.7 ('v0.7') and
// Crane HEAD ('head'), docs/crane-behaviour.md §C.4, §C.5. Crane sources: gocrane/crane
// pkg/metricprovider/cron_trigger.go (same file v0.4 to HEAD) and external_metric_provider.go (v0.7.0, HEAD
// 2b0ddae8), robfig/cron v3.0.1 parser.go and constantdelay.go.
import { expect } from 'chai';
import { cronWindowActive, nextCronOccurrence, resolveCronZone } from '../../../src/cron/cron-window.ts';
import { parseStandardCron } from '../../../src/cron/standard-cron.ts';
import { cronReplicas, cronNeedsCurrentReplicas, type CronSemantics } from '../../../src/metric-values/cron-replicas.ts';
import { cronValueFor } from '../../../src/adapter/providers/cron-provider.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../../../src/api/ehpa.ts';
import type { CrossVersionObjectReference } from '../../../src/api/meta.ts';

const at = (iso: string) => Date.parse(iso);

describe('cron semantics: the value with and without active crons (truth table)', () => {
  // [semantics, active targets, other metrics?, minReplicas, current replicas, expected replicas, why]
  const rows: [CronSemantics, number[], boolean, number, number, number, string][] = [
    ['v0.7', [8], true, 2, 5, 8, 'active'],
    ['v0.7', [8, 3], false, 2, 5, 8, 'active'],
    ['v0.7', [1], true, 2, 5, 1, 'active'], // below min: Crane v0.7 answers 1; the HPA clamps to min
    ['v0.7', [0], false, 2, 5, 0, 'active'],
    ['v0.7', [], true, 2, 5, 2, 'min'],
    ['v0.7', [], false, 2, 5, 5, 'current'], // cron-only EHPA outside its windows keeps its count
    ['head', [8], true, 2, 5, 8, 'active'],
    ['head', [8, 3], false, 2, 5, 8, 'active'],
    ['head', [1], true, 2, 5, 2, 'min'], // HEAD starts from minReplicas and only raises
    ['head', [0], false, 2, 5, 2, 'min'],
    ['head', [2], false, 2, 5, 2, 'active'], // `>=`: equal to min counts as the cron's
    ['head', [], true, 2, 5, 2, 'min'],
    ['head', [], false, 2, 5, 2, 'min'], // cron-only EHPA outside its windows drops to min
  ];
  for (const [semantics, activeTargets, hasOtherMetrics, minReplicas, currentReplicas, want, why] of rows) {
    it(`${semantics}: active ${JSON.stringify(activeTargets)}, other metrics ${hasOtherMetrics} → ${want} (${why})`, () => {
      expect(cronReplicas({ semantics, activeTargets, hasOtherMetrics, minReplicas, currentReplicas })).to.deep.equal({ ok: true, replicas: want, why });
      // The scale subresource is read exactly when the answer is the current replicas.
      expect(cronNeedsCurrentReplicas(activeTargets.length, hasOtherMetrics, semantics)).to.equal(why === 'current');
    });
  }
  it('v0.7 without the current replicas when it needs them: an error, not a guess', () => {
    expect(cronReplicas({ semantics: 'v0.7', activeTargets: [], hasOtherMetrics: false, minReplicas: 2 }).ok).to.equal(false);
    expect(cronReplicas({ semantics: 'head', activeTargets: [], hasOtherMetrics: false, minReplicas: 2 })).to.deep.equal({ ok: true, replicas: 2, why: 'min' });
  });
});

describe('cron semantics: what an unset timezone means', () => {
  it('v0.7: UTC; head: the adapter\'s local zone; "" and UTC are UTC and Local the local zone under both', () => {
    expect(resolveCronZone(undefined, 'Asia/Shanghai', 'UTC')).to.equal('UTC');
    expect(resolveCronZone(undefined, 'Asia/Shanghai', 'Local')).to.equal('Asia/Shanghai');
    for (const unset of ['UTC', 'Local'] as const) {
      expect(resolveCronZone('', 'Asia/Shanghai', unset)).to.equal('UTC');
      expect(resolveCronZone('UTC', 'Asia/Shanghai', unset)).to.equal('UTC');
      expect(resolveCronZone('Local', 'Asia/Shanghai', unset)).to.equal('Asia/Shanghai');
      expect(resolveCronZone('Europe/Paris', 'Asia/Shanghai', unset)).to.equal('Europe/Paris');
    }
  });
  it('moves a 09:00–17:00 window without timezone by the local offset under head only', () => {
    const cron = { start: '0 9 * * *', end: '0 17 * * *' };
    // 02:00Z is 10:00 in Shanghai.
    expect(cronWindowActive(cron, at('2026-01-05T02:00:00Z'), 'Asia/Shanghai', 'UTC')).to.equal(false);
    expect(cronWindowActive(cron, at('2026-01-05T02:00:00Z'), 'Asia/Shanghai', 'Local')).to.equal(true);
    expect(cronWindowActive(cron, at('2026-01-05T10:00:00Z'), 'Asia/Shanghai', 'UTC')).to.equal(true);
    expect(cronWindowActive(cron, at('2026-01-05T10:00:00Z'), 'Asia/Shanghai', 'Local')).to.equal(false);
  });
});

describe('cron semantics: window activity truth table (same under both semantics)', () => {
  // Now is Monday 2026-01-05 in UTC. [start, end, now, active, why]
  const rows: [string, string, string, boolean, string][] = [
    ['0 9 * * *', '0 17 * * *', '2026-01-05T08:59:59Z', false, 'before the start'],
    ['0 9 * * *', '0 17 * * *', '2026-01-05T09:00:00Z', true, 'at the start'],
    ['0 9 * * *', '0 17 * * *', '2026-01-05T16:59:59Z', true, 'before the end'],
    ['0 9 * * *', '0 17 * * *', '2026-01-05T17:00:00Z', false, 'at the end'],
    ['0 9 * * *', '0 9 * * *', '2026-01-05T09:00:00Z', true, 'start == end: next end <= next start always'],
    ['0 9 * * *', '0 9 * * *', '2026-01-05T12:34:56Z', true, 'start == end, between occurrences'],
    ['@hourly', '0 * * * *', '2026-01-05T12:34:56Z', true, 'same instants, other spelling'],
    ['@daily', '@midnight', '2026-01-05T12:34:56Z', true, 'two descriptors for the same schedule'],
    ['@hourly', '30 * * * *', '2026-01-05T12:10:00Z', true, '@hourly start, :30 end'],
    ['@hourly', '30 * * * *', '2026-01-05T12:40:00Z', false, 'after :30'],
    ['@weekly', '0 12 * * 0', '2026-01-04T06:00:00Z', true, '@weekly is Sunday 00:00'],
    ['@weekly', '0 12 * * 0', '2026-01-05T06:00:00Z', false, 'closed on Sunday 12:00'],
    ['@monthly', '0 0 2 * *', '2026-01-01T05:00:00Z', true, '@monthly: the 1st'],
    ['@yearly', '@annually', '2026-06-01T00:00:00Z', true, 'same schedule'],
    // @every: next start = now's second + d; active when an end comes no later.
    ['@every 1h', '0 17 * * *', '2026-01-05T16:00:00Z', true, 'the end (17:00) is exactly 1 h away'],
    ['@every 1h', '0 17 * * *', '2026-01-05T16:30:00Z', true, 'the end is 30 min away, within the hour'],
    ['@every 1h', '0 17 * * *', '2026-01-05T15:59:59Z', false, 'the end is more than 1 h away'],
    ['0 9 * * *', '@every 30m', '2026-01-05T08:40:00Z', false, 'the start is nearer than the delay'],
    ['0 9 * * *', '@every 30m', '2026-01-05T08:30:00Z', true, 'the end (now + 30m) ties with the start'],
    ['0 9 * * *', '@every 30m', '2026-01-05T12:00:00Z', true, 'the start is a day away'],
    ['@every 1m', '@every 2m', '2026-01-05T12:00:00Z', false, 'the start always comes first'],
    ['@every 2m', '@every 1m', '2026-01-05T12:00:00Z', true, 'the end always comes first'],
    ['@every 90s', '@every 1m30s', '2026-01-05T12:00:00Z', true, 'equal delays: same schedule'],
    ['@every 500ms', '@every 1s', '2026-01-05T12:00:00Z', true, 'delays under a second are a second'],
  ];
  for (const unset of ['UTC', 'Local'] as const) {
    for (const [start, end, iso, want, why] of rows) {
      it(`${unset === 'UTC' ? 'v0.7' : 'head'}: ${start} → ${end} at ${iso}: ${want} (${why})`, () => {
        expect(cronWindowActive({ start, end }, at(iso), 'UTC', unset)).to.equal(want);
        // Millisecond jitter inside the second does not change the answer.
        expect(cronWindowActive({ start, end }, at(iso) + 999, 'UTC', unset)).to.equal(want);
      });
    }
  }
});

describe('robfig descriptors (robfig/cron v3.0.1 parseDescriptor)', () => {
  it('expands the named descriptors and accepts them after a TZ= prefix', () => {
    expect(parseStandardCron('@hourly')).to.include({ dayRule: 'and' });
    expect(parseStandardCron('@hourly').hours).to.have.length(24);
    expect(parseStandardCron('@weekly').daysOfWeek.filter(Boolean)).to.have.length(1);
    expect(parseStandardCron('TZ=Asia/Tokyo @daily').zone).to.equal('Asia/Tokyo');
  });
  it('@every: Go durations, at least one second, truncated to whole seconds', () => {
    expect(parseStandardCron('@every 1h30m').everyMs).to.equal(5_400_000);
    expect(parseStandardCron('@every 1.5s').everyMs).to.equal(1000);
    expect(parseStandardCron('@every 100ms').everyMs).to.equal(1000);
    expect(parseStandardCron('@every -5m').everyMs).to.equal(1000);
    expect(parseStandardCron('@every 0').everyMs).to.equal(1000);
    expect(nextCronOccurrence('@every 10m', at('2026-01-05T12:00:00.700Z'), 'UTC')).to.equal(at('2026-01-05T12:10:00Z'));
  });
  it('refuses what robfig refuses: other case, a missing duration, trailing text, bad units', () => {
    for (const bad of ['@Daily', '@HOURLY', '@every', '@every ', '@every 5', '@every 1d', '@daily ', '@fortnightly', ' @daily']) {
      expect(() => parseStandardCron(bad), JSON.stringify(bad)).to.throw();
    }
  });
});

describe('cronValueFor under each semantics', () => {
  const ref: CrossVersionObjectReference = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'batch' };
  const cronOnly: EffectiveHorizontalPodAutoscaler = {
    apiVersion: 'autoscaling.crane.io/v1alpha1', kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name: 'batch', namespace: 'default', uid: 'u1' },
    spec: { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 20, crons: [{ name: 'night', start: '0 22 * * *', end: '0 6 * * *', targetReplicas: 9 }] },
  };
  let scaleReads = 0;
  const sources = { getScaleReplicas: async () => { scaleReads++; return 5; } };
  it('outside the window: v0.7 keeps the current replicas (one scale read), head answers minReplicas (none)', async () => {
    scaleReads = 0;
    expect(await cronValueFor(cronOnly, at('2026-01-05T12:00:00Z'), { sources, localZone: 'UTC' })).to.equal(5);
    expect(scaleReads).to.equal(1);
    expect(await cronValueFor(cronOnly, at('2026-01-05T12:00:00Z'), { sources, localZone: 'UTC', semantics: 'head' })).to.equal(2);
    expect(scaleReads).to.equal(1);
  });
  it('inside the window: the target under both', async () => {
    for (const semantics of ['v0.7', 'head'] as const) {
      expect(await cronValueFor(cronOnly, at('2026-01-05T23:00:00Z'), { sources, localZone: 'UTC', semantics })).to.equal(9);
    }
  });
  it('an unset timezone follows the semantics (the local zone here is UTC+8)', async () => {
    // 14:00Z is 22:00 in Shanghai: open under head (Local), closed under v0.7 (UTC).
    expect(await cronValueFor(cronOnly, at('2026-01-05T14:00:00Z'), { sources, localZone: 'Asia/Shanghai', semantics: 'head' })).to.equal(9);
    expect(await cronValueFor(cronOnly, at('2026-01-05T14:00:00Z'), { sources, localZone: 'Asia/Shanghai', semantics: 'v0.7' })).to.equal(5);
  });
});
