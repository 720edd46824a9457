import { expect } from 'chai';
import { isValidTimeZone, validateEhpa } from '../../../src/ehpa/validation.ts';
import { cronExpressionError } from '../../../src/cron/standard-cron.ts';
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
    expect(problems[0]?.message).to.contain('above the maximum 6');
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

describe('cron expressions in validation use the window parser (robfig/cron v3.0.1 ParseStandard grammar, crane-behaviour.md §C.5.4)', () => {
  const err = (s: string) => cronExpressionError(s, isValidTimeZone);
  it('accepts standard forms, ? in any field, names, steps, descriptors (@every too) and zone prefixes', () => {
    for (const s of ['15 10 ? * *', '*/5 * * * *', '0 9-17/2 * jan-MAR mon-fri', '0 0 1,15 * ?', '5/10 * * * *', '@daily', '@every 1h30m', 'CRON_TZ=Asia/Tokyo 0 9 * * *']) {
      expect(err(s), s).to.equal(undefined);
    }
  });
  it('rejects what robfig rejects', () => {
    // Each refusal names its reason (robfig's own reasons for the same inputs, in our words).
    const cases: [string, RegExp][] = [
      ['0 9 * * 7', /day-of-week value 7 is above the maximum 6/],
      ['60 * * * *', /minute value 60 is above the maximum 59/],
      ['0 9 * *', /exactly 5 fields, found 4/],
      ['0 0 0 9 * * *', /exactly 5 fields, found 7/],
      ['5-2 * * * *', /range 5-2 runs backwards/],
      ['*/0 * * * *', /invalid minute step "0"/],
      ['1-2-3 * * * *', /invalid minute range "1-2-3"/],
      ['a * * * *', /invalid minute value "a"/],
      ['@fortnightly', /unrecognized descriptor: @fortnightly/],
      ['@Daily', /unrecognized descriptor: @Daily/],
      ['@every 1d', /failed to parse duration @every 1d/],
      ['', /empty spec string/],
    ];
    for (const [s, reason] of cases) expect(err(s), JSON.stringify(s)).to.match(reason);
    expect(err('TZ=Bad/Zone 0 9 * * *')).to.match(/bad location Bad\/Zone/);
    expect(err('0 9 *')).to.match(/exactly 5 fields/);
  });
});
