// Time-zone names are case-sensitive in Crane: Go's time.LoadLocation opens $ZONEINFO/<name> (or
// /usr/share/zoneinfo/<name>) and Linux file names are case-sensitive, so Crane's EHPA webhook
// (gocrane/crane pkg/webhooks/autoscaling/validate.go, time.LoadLocation) refuses "asia/shanghai".
// ICU matches names without case; our check must not.
import { expect } from 'chai';
import { isIanaZone, resolveCronZone } from '../../../src/cron/cron-window.ts';
import { isValidTimeZone } from '../../../src/ehpa/validation.ts';

describe('time-zone names are spelled as Go needs them', () => {
  const accepted = ['Asia/Shanghai', 'UTC', 'Etc/UTC', 'Etc/GMT+5', 'Etc/GMT-14', 'EST5EDT', 'CET', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'Asia/Calcutta', 'Europe/Kiev', 'US/Eastern'];
  const wrongCase = ['asia/shanghai', 'ASIA/SHANGHAI', 'utc', 'Utc', 'etc/utc', 'etc/gmt+5', 'est5edt', 'cet', 'america/new_york', 'asia/calcutta'];

  for (const z of accepted) {
    it(`accepts ${z}`, () => {
      expect(isIanaZone(z)).to.equal(true);
      expect(isValidTimeZone(z)).to.equal(true);
    });
  }
  for (const z of wrongCase) {
    it(`refuses ${z}, a correct name in the wrong case`, () => {
      expect(isIanaZone(z)).to.equal(false);
      expect(isValidTimeZone(z)).to.equal(false);
      expect(() => resolveCronZone(z, 'UTC')).to.throw(/time ?zone|timezone/i);
    });
  }
  it('still refuses names that are no zone at all, and keeps "" and Local as Crane reads them', () => {
    expect(isIanaZone('Mars/Olympus_Mons')).to.equal(false);
    expect(isValidTimeZone('')).to.equal(true);
    expect(isValidTimeZone('Local')).to.equal(true);
    expect(isValidTimeZone('local')).to.equal(false);
  });
});
