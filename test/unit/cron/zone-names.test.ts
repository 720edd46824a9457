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

describe('the non-geographic zone names ICU resolves without listing them', () => {
  // tzdata's etcetera and backward files (and Go's zoneinfo): each is a file name, so one spelling only.
  const names = ['GMT', 'UTC', 'UCT', 'Universal', 'Zulu', 'Greenwich', 'GMT0', 'GMT+0', 'GMT-0'];
  const all = [...names, ...names.map((n) => `Etc/${n}`), 'EST', 'MST', 'HST', 'EST5EDT', 'CST6CDT', 'MST7MDT', 'PST8PDT', 'CET', 'EET', 'MET', 'WET'];
  for (let h = 1; h <= 14; h++) all.push(`Etc/GMT-${h}`);
  for (let h = 1; h <= 12; h++) all.push(`Etc/GMT+${h}`);
  it(`accepts each of the ${all.length} in its own spelling and refuses it lower-cased`, () => {
    for (const z of all) {
      expect(isIanaZone(z), z).to.equal(true);
      expect(isIanaZone(z.toLowerCase()), z.toLowerCase()).to.equal(false);
    }
  });
  it('has no offsets past tzdata\'s Etc/GMT-14 and Etc/GMT+12', () => {
    expect(isIanaZone('Etc/GMT-15')).to.equal(false);
    expect(isIanaZone('Etc/GMT+13')).to.equal(false);
  });
});
