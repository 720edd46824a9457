// Edges of EHPA validation: each limit at and just past its value, each message naming its field.
// Sources for the expected verdicts:
// - gocrane/crane pkg/webhooks/autoscaling/validate.go ValidateCronSpecs (crane-behaviour.md §A.3): start and end
//   non-empty ("cron start must not be empty", "cron end must not be empty"), the zone loads with
//   time.LoadLocation, names not repeated;
// - our CRD, crds/autoscaling.crane.io_effectivehorizontalpodautoscalers.yaml, which the code re-checks for
//   objects stored before it (docs/security.md §2): minReplicas ≥ 0, maxReplicas ≥ 1, both int32,
//   minReplicas ≤ maxReplicas, cron targetReplicas ≥ 0;
// - the bounds of docs/security.md §2 / src/api/bounds.ts ("more than N" is refused, N itself is accepted).
import { expect } from 'chai';
import { BOUNDS } from '../../../src/api/bounds.ts';
import type { CronSpec, EffectiveHorizontalPodAutoscaler } from '../../../src/api/ehpa.ts';
import { cronLengthProblems, isValidTimeZone, validateEhpa } from '../../../src/ehpa/validation.ts';
import { cpuUtilization50, ehpa } from './fixtures.ts';

const good = (extra: Partial<CronSpec> = {}): CronSpec => ({ name: 'a', start: '0 9 * * *', end: '0 18 * * *', targetReplicas: 2, ...extra });
const cronProblems = (crons: CronSpec[]) => validateEhpa(ehpa({ crons }));

describe('isValidTimeZone: what Go time.LoadLocation accepts', () => {
  // Go: `""` and "UTC" give UTC, "Local" gives time.Local, IANA names load from tzdata (crane-behaviour.md §C.5.3).
  const cases: [string, boolean][] = [
    ['', true],
    ['UTC', true],
    ['Local', true],
    ['Asia/Shanghai', true],
    ['Etc/GMT+8', true],
    ['Mars/Olympus', false],
    ['+08:00', false],
  ];
  for (const [zone, want] of cases) {
    it(`${JSON.stringify(zone)}: ${want}`, () => {
      expect(isValidTimeZone(zone)).to.equal(want);
    });
  }
  it('an empty timezone on a cron is valid (UTC), as Crane\'s webhook accepts it', () => {
    expect(cronProblems([good({ timezone: '' })])).to.deep.equal([]);
  });
});

describe('spec.scaleTargetRef', () => {
  const withRef = (ref: Partial<EffectiveHorizontalPodAutoscaler['spec']['scaleTargetRef']> | undefined) => {
    const e = ehpa();
    (e.spec as { scaleTargetRef?: unknown }).scaleTargetRef = ref;
    return validateEhpa(e);
  };

  it('without kind, name or the whole reference: InvalidScaleTargetRef naming spec.scaleTargetRef (the CRD requires kind and name)', () => {
    for (const ref of [undefined, { name: 'web' }, { kind: 'Deployment' }, { kind: 'Deployment', name: '' }]) {
      const p = withRef(ref);
      expect(p, JSON.stringify(ref)).to.have.length(1);
      expect(p[0]?.reason).to.equal('InvalidScaleTargetRef');
      expect(p[0]?.message, JSON.stringify(ref)).to.match(/^spec\.scaleTargetRef\b/);
    }
  });

  it(`name and apiVersion: ${BOUNDS.nameLength} characters pass, one more is refused naming the field`, () => {
    expect(withRef({ kind: 'Deployment', name: 'n'.repeat(BOUNDS.nameLength), apiVersion: 'a'.repeat(BOUNDS.apiVersionLength) })).to.deep.equal([]);
    const name = withRef({ kind: 'Deployment', name: 'n'.repeat(BOUNDS.nameLength + 1) });
    expect(name.map((p) => p.reason)).to.deep.equal(['InvalidScaleTargetRef']);
    expect(name[0]?.message).to.match(/^spec\.scaleTargetRef\.name is 254 characters long/);
    const apiVersion = withRef({ kind: 'Deployment', name: 'web', apiVersion: 'a'.repeat(BOUNDS.apiVersionLength + 1) });
    expect(apiVersion[0]?.message).to.match(/^spec\.scaleTargetRef\.apiVersion is 254 characters long/);
  });
});

describe('replica range (CRD: minReplicas ≥ 0, maxReplicas ≥ 1, integers, minReplicas ≤ maxReplicas)', () => {
  const cases: [string, { minReplicas?: number; maxReplicas?: number }, RegExp | undefined][] = [
    ['max 1 (the smallest)', { minReplicas: 1, maxReplicas: 1 }, undefined],
    ['min 0 (the smallest)', { minReplicas: 0, maxReplicas: 1 }, undefined],
    ['min equal to max', { minReplicas: 3, maxReplicas: 3 }, undefined],
    ['min unset (defaults to 1), max 1', { minReplicas: undefined, maxReplicas: 1 }, undefined],
    ['max 0', { maxReplicas: 0 }, /^spec\.maxReplicas must be an integer >= 1, got 0$/],
    ['max not whole', { maxReplicas: 1.5 }, /^spec\.maxReplicas must be an integer >= 1, got 1\.5$/],
    ['max missing', { maxReplicas: undefined }, /^spec\.maxReplicas must be an integer >= 1, got undefined$/],
    ['min negative', { minReplicas: -1 }, /^spec\.minReplicas must be an integer >= 0, got -1$/],
    ['min not whole', { minReplicas: 1.5 }, /^spec\.minReplicas must be an integer >= 0, got 1\.5$/],
    ['min above max', { minReplicas: 4, maxReplicas: 3 }, /^spec\.minReplicas \(4\) is greater than spec\.maxReplicas \(3\)$/],
  ];
  for (const [name, spec, want] of cases) {
    it(`${name}: ${want ? 'InvalidReplicaRange' : 'valid'}`, () => {
      const p = validateEhpa(ehpa(spec));
      if (!want) {
        expect(p).to.deep.equal([]);
        return;
      }
      expect(p).to.have.length(1);
      expect(p[0]?.reason).to.equal('InvalidReplicaRange');
      expect(p[0]?.message).to.match(want);
    });
  }
});

describe('crons: each problem is prefixed with spec.crons[i] and, when it has a usable name, the name', () => {
  it("empty start or end: Crane's own words, after the cron's path", () => {
    expect(cronProblems([good({ start: '' })])).to.deep.equal([{ reason: 'InvalidCron', message: 'spec.crons[0] (a): cron start must not be empty' }]);
    expect(cronProblems([good({ end: '' })])).to.deep.equal([{ reason: 'InvalidCron', message: 'spec.crons[0] (a): cron end must not be empty' }]);
  });

  it('a cron without a name is labelled by its index alone', () => {
    const p = cronProblems([{ start: '0 9 * * 7', end: '0 18 * * *', targetReplicas: 2 }]);
    expect(p).to.have.length(1);
    expect(p[0]?.message).to.match(/^spec\.crons\[0\]: start "0 9 \* \* 7": /);
  });

  it(`a name of ${BOUNDS.cronNameLength} characters labels the cron; one more is refused and left out of the label`, () => {
    const atBound = 'n'.repeat(BOUNDS.cronNameLength);
    const p = cronProblems([good({ name: atBound, start: '0 9 * * 7' })]);
    expect(p[0]?.message.startsWith(`spec.crons[0] (${atBound}): start "0 9 * * 7": `)).to.equal(true);
    expect(cronProblems([good({ name: 'n'.repeat(BOUNDS.cronNameLength + 1) })])).to.deep.equal([
      { reason: 'InvalidCron', message: `spec.crons[0]: name is ${BOUNDS.cronNameLength + 1} characters long, more than ${BOUNDS.cronNameLength}` },
    ]);
  });

  it('targetReplicas must be a whole number ≥ 0 (CRD: int32, minimum 0)', () => {
    expect(cronProblems([good({ targetReplicas: 0 })])).to.deep.equal([]);
    for (const targetReplicas of [-1, 1.5]) {
      const p = cronProblems([good({ targetReplicas })]);
      expect(p, String(targetReplicas)).to.have.length(1);
      expect(p[0]?.reason).to.equal('InvalidCron');
      expect(p[0]?.message).to.match(/^spec\.crons\[0\] \(a\): targetReplicas\b/);
    }
  });

  it('two crons without a name share the name "" and the second is a duplicate (Crane: cronNames.Has(""))', () => {
    const p = cronProblems([
      { start: '0 9 * * *', end: '0 10 * * *', targetReplicas: 2 },
      { start: '0 18 * * *', end: '0 19 * * *', targetReplicas: 3 },
    ]);
    expect(p).to.deep.equal([{ reason: 'InvalidCron', message: 'spec.crons[1]: duplicate cron name ""' }]);
  });

  it(`at exactly ${BOUNDS.crons} crons every cron is still checked`, () => {
    const crons = Array.from({ length: BOUNDS.crons }, (_, i) => good({ name: `c${i}` }));
    crons[BOUNDS.crons - 1] = good({ name: `c${BOUNDS.crons - 1}`, end: '0 18 * * 7' });
    const p = cronProblems(crons);
    expect(p).to.have.length(1);
    expect(p[0]?.message).to.match(new RegExp(`^spec\\.crons\\[${BOUNDS.crons - 1}\\] \\(c${BOUNDS.crons - 1}\\): end "0 18 \\* \\* 7": `));
  });
});

describe('cronLengthProblems: each cron string at its bound passes, one character more names the field', () => {
  const bounds = {
    start: BOUNDS.cronExpressionLength,
    end: BOUNDS.cronExpressionLength,
    name: BOUNDS.cronNameLength,
    timezone: BOUNDS.timeZoneLength,
    description: BOUNDS.descriptionLength,
  } as const;
  it('at the bounds: no problem', () => {
    const atBound = Object.fromEntries(Object.entries(bounds).map(([f, n]) => [f, 'x'.repeat(n)]));
    expect(cronLengthProblems(atBound)).to.deep.equal([]);
  });
  for (const [field, max] of Object.entries(bounds)) {
    it(`${field}: ${max + 1} characters`, () => {
      expect(cronLengthProblems({ [field]: 'x'.repeat(max + 1) })).to.deep.equal([`${field} is ${max + 1} characters long, more than ${max}`]);
    });
  }
});

describe('spec.prediction.predictionWindowSeconds: 1 to 86400 (docs/security.md §2; crane-behaviour.md §I.1, no 600 s floor)', () => {
  const withWindow = (w: number) =>
    validateEhpa(ehpa({ metrics: [cpuUtilization50], prediction: { predictionWindowSeconds: w, predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } } } }));
  it('1 s is accepted', () => {
    expect(withWindow(1)).to.deep.equal([]);
  });
  it('0 s is refused naming the field', () => {
    const p = withWindow(0);
    expect(p.map((x) => x.reason)).to.deep.equal(['InvalidPrediction']);
    expect(p[0]?.message).to.match(/^spec\.prediction\.predictionWindowSeconds is 0;/);
  });
});

describe('metric-query annotations: only they are bounded, at 4096 characters (docs/security.md §2 user PromQL)', () => {
  const KEY = 'metric-query.autoscaling.crane.io/resource.cpu';
  it(`a query of ${BOUNDS.promqlLength} characters, or a short one, passes`, () => {
    expect(validateEhpa(ehpa({}, { annotations: { [KEY]: 'x'.repeat(BOUNDS.promqlLength) } }))).to.deep.equal([]);
    expect(validateEhpa(ehpa({}, { annotations: { [KEY]: 'sum(rate(x[5m]))' } }))).to.deep.equal([]);
  });
  it('a long annotation that is not a metric query is none of our business', () => {
    expect(validateEhpa(ehpa({}, { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'x'.repeat(BOUNDS.promqlLength * 2) } }))).to.deep.equal([]);
  });
  it('an object without metadata is validated, not thrown on', () => {
    const e = ehpa();
    (e as { metadata?: unknown }).metadata = undefined;
    expect(validateEhpa(e)).to.deep.equal([]);
  });
});
