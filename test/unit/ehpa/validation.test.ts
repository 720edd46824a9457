import { expect } from 'chai';
import { isValidTimeZone, validateEhpa } from '../../../src/ehpa/validation.ts';
import { cronSyntaxError } from '../../../src/ehpa/cron-syntax.ts';
import { ehpa } from './fixtures.ts';

describe('validateEhpa: bad objects get a reason each', () => {
  it('accepts a good EHPA', () => {
    expect(validateEhpa(ehpa({ crons: [{ name: 'a', timezone: 'Asia/Shanghai', start: '15 10 ? * *', end: '15 14 ? * *', targetReplicas: 3 }] }))).to.deep.equal([]);
  });
  it('rejects min > max', () => {
    expect(validateEhpa(ehpa({ minReplicas: 5, maxReplicas: 2 }))).to.deep.equal([
      { reason: 'InvalidReplicaRange', message: 'spec.minReplicas (5) is greater than spec.maxReplicas (2)' },
    ]);
  });
  it('rejects an invalid cron, an unknown time zone and duplicate names, in order', () => {
    const problems = validateEhpa(
      ehpa({
        crons: [
          { name: 'a', start: '0 9 * * 7', end: '0 10 * * *', targetReplicas: 2 },
          { name: 'a', timezone: 'Mars/Olympus', start: '0 9 * * *', end: '', targetReplicas: 2 },
        ],
      }),
    );
    expect(problems.map((p) => p.reason)).to.deep.equal(['InvalidCron', 'InvalidCron', 'InvalidTimeZone', 'InvalidCron']);
    expect(problems[0]?.message).to.contain('above maximum');
    expect(problems[3]?.message).to.contain('duplicate cron name "a"');
  });
  it('rejects a missing target', () => {
    const e = ehpa();
    e.spec.scaleTargetRef = { kind: '', name: 'x' };
    expect(validateEhpa(e)[0]?.reason).to.equal('InvalidScaleTargetRef');
  });
  it('knows time zones from the IANA database', () => {
    expect(isValidTimeZone('America/Los_Angeles')).to.equal(true);
    expect(isValidTimeZone('Local')).to.equal(true);
    expect(isValidTimeZone('Not/AZone')).to.equal(false);
  });
});

describe('cronSyntaxError: robfig/cron v3.0.1 ParseStandard acceptance (spec §C.5.4)', () => {
  const ok = (s: string) => cronSyntaxError(s, isValidTimeZone);
  it('accepts standard forms, ? in any field, names, steps and descriptors', () => {
    for (const s of ['15 10 ? * *', '*/5 * * * *', '0 9-17/2 * jan-MAR mon-fri', '0 0 1,15 * ?', '5/10 * * * *', '@daily', '@every 1h30m', 'CRON_TZ=Asia/Tokyo 0 9 * * *']) {
      expect(ok(s), s).to.equal(undefined);
    }
  });
  it('rejects what robfig rejects', () => {
    const cases: [string, RegExp][] = [
      ['0 9 * * 7', /above maximum/],
      ['60 * * * *', /above maximum/],
      ['0 9 * *', /exactly 5 fields/],
      ['0 0 0 9 * * *', /exactly 5 fields/],
      ['5-2 * * * *', /beyond end/],
      ['*/0 * * * *', /positive/],
      ['1-2-3 * * * *', /hyphens/],
      ['a * * * *', /parse int/],
      ['@fortnightly', /descriptor/],
      ['TZ=Bad/Zone 0 9 * * *', /bad location/],
      ['', /empty/],
    ];
    for (const [s, re] of cases) expect(ok(s), s).to.match(re);
  });
});
