// The bounds of api/bounds.ts on an EHPA, enforced in code for objects stored before the CRD had them
// (docs/security.md §2). Each names the field, the value and the bound.
import { expect } from 'chai';
import { cpuMs, cpuMsAsync } from '../../helpers/cpu-time.ts';
import { BOUNDS } from '../../../src/api/bounds.ts';
import { validateEhpa } from '../../../src/ehpa/validation.ts';
import { cronValueFor } from '../../../src/adapter/providers/cron-provider.ts';
import type { AdapterSources } from '../../../src/adapter/providers/sources.ts';
import { MetricError } from '../../../src/adapter/status.ts';
import { cpuUtilization50, ehpa } from './fixtures.ts';

const cron = (i: number, extra = {}) => ({ name: `c${i}`, start: '0 0 28 2 *', end: '0 0 29 2 *', targetReplicas: 2, ...extra });

describe('validateEhpa: bounds (review H1, M5)', () => {
  it(`accepts ${BOUNDS.crons} crons and refuses ${BOUNDS.crons + 1} without parsing any of them`, () => {
    expect(validateEhpa(ehpa({ crons: Array.from({ length: BOUNDS.crons }, (_, i) => cron(i)) }))).to.deep.equal([]);
    // 2,000 crons that would each be invalid: one problem, about the count, in well under a millisecond per cron.
    const many = Array.from({ length: 2000 }, (_, i) => cron(i, { start: 'not a cron' }));
    let problems: ReturnType<typeof validateEhpa> = [];
    // CPU time (test/helpers/cpu-time.ts), so a preemption on a loaded machine does not count.
    expect(cpuMs(() => (problems = validateEhpa(ehpa({ crons: many }))))).to.be.below(50);
    expect(problems).to.deep.equal([{ reason: 'InvalidCron', message: 'spec.crons has 2000 items, more than 50' }]);
  });
  it('refuses over-long cron strings before parsing them', () => {
    const long = '0 '.repeat(100) + '* * *';
    const p = validateEhpa(ehpa({ crons: [cron(0, { start: long, timezone: 'x'.repeat(65) })] }));
    expect(p).to.deep.equal([
      { reason: 'InvalidCron', message: 'spec.crons[0] (c0): start is 205 characters long, more than 128' },
      { reason: 'InvalidCron', message: 'spec.crons[0] (c0): timezone is 65 characters long, more than 64' },
    ]);
  });
  it('bounds predictionWindowSeconds to a day and checks the algorithm block', () => {
    const spec = (w: number, dsp = { sampleInterval: '60s', historyLength: '3d' }) => ({
      metrics: [cpuUtilization50],
      prediction: { predictionWindowSeconds: w, predictionAlgorithm: { algorithmType: 'dsp', dsp } },
    });
    expect(validateEhpa(ehpa(spec(86_400)))).to.deep.equal([]);
    expect(validateEhpa(ehpa(spec(2_147_483_647)))).to.deep.equal([
      { reason: 'InvalidPrediction', message: 'spec.prediction.predictionWindowSeconds is 2147483647; it must be a whole number from 1 to 86400' },
    ]);
    // The review's repro: sampleInterval "1ns" was Ready=True and froze the process.
    const p = validateEhpa(ehpa(spec(3600, { sampleInterval: '1ns', historyLength: '15d' })));
    expect(p).to.have.length(1);
    expect(p[0]?.reason).to.equal('InvalidPrediction');
    expect(p[0]?.message).to.match(/^spec\.prediction\.predictionAlgorithm\.dsp\.sampleInterval is 1e-9s/);
  });
  it('bounds the metric-query annotation and the scale target strings', () => {
    const e = ehpa({}, { annotations: { 'metric-query.autoscaling.crane.io/crane_pod_cpu_usage': 'x'.repeat(4097) } });
    expect(validateEhpa(e)).to.deep.equal([
      { reason: 'InvalidPrediction', message: 'annotation metric-query.autoscaling.crane.io/crane_pod_cpu_usage is 4097 characters long, more than 4096' },
    ]);
    const t = ehpa();
    t.spec.scaleTargetRef = { kind: 'Deployment', name: 'n'.repeat(300) };
    expect(validateEhpa(t)).to.deep.equal([{ reason: 'InvalidScaleTargetRef', message: 'spec.scaleTargetRef.name is 300 characters long, more than 253' }]);
  });
});

describe('cron metric: an EHPA stored over the bound costs nothing per request', () => {
  const sources = {
    getScaleReplicas: async () => 1,
  } as unknown as AdapterSources;
  it(`refuses ${BOUNDS.crons + 1}+ crons without evaluating them; ${BOUNDS.crons} worst-case crons stay cheap`, async () => {
    const big = ehpa({ crons: Array.from({ length: 14_000 }, (_, i) => cron(i)) });
    let err: unknown;
    expect(await cpuMsAsync(async () => (err = await cronValueFor(big, Date.UTC(2026, 10, 24), { sources, localZone: 'UTC' }).catch((e: unknown) => e)))).to.be.below(20);
    expect(err).to.be.instanceOf(MetricError);
    expect((err as MetricError).code).to.equal(422);
    expect((err as Error).message).to.contain('spec.crons: 14000 items, more than 50');
    // At the bound, with the review's most expensive cron (Feb 28/29 in Europe/Berlin): measured, not guessed.
    const worst = ehpa({ metrics: [cpuUtilization50], crons: Array.from({ length: BOUNDS.crons }, (_, i) => cron(i, { timezone: 'Europe/Berlin' })) });
    await cronValueFor(worst, Date.UTC(2026, 10, 24), { sources, localZone: 'UTC' });
    // Feb 28 2026 to Feb 29 2028 spans the date: every cron is active, the answer is their target.
    let value: unknown;
    const ms = await cpuMsAsync(async () => (value = await cronValueFor(worst, Date.UTC(2026, 10, 24), { sources, localZone: 'UTC' })));
    expect(value).to.equal(2);
    console.log(`      ${BOUNDS.crons} worst-case crons: ${ms.toFixed(1)} ms of CPU per request`);
    expect(ms, `${BOUNDS.crons} crons took ${ms.toFixed(1)} ms`).to.be.below(20);
  });
});
