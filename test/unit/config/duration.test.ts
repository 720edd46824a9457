import { expect } from 'chai';
import { formatDurationMs, parseDurationMs } from '../../../src/config/duration.ts';

describe('parseDurationMs', () => {
  it('reads Go units and their sums', () => {
    expect(parseDurationMs('60s')).to.equal(60_000);
    expect(parseDurationMs('1h30m')).to.equal(5_400_000);
    expect(parseDurationMs('1.5h')).to.equal(5_400_000);
    expect(parseDurationMs('250ms')).to.equal(250);
    expect(parseDurationMs('0')).to.equal(0);
  });
  it('reads days and weeks for history windows', () => {
    expect(parseDurationMs('15d')).to.equal(15 * 86_400_000);
    expect(parseDurationMs('1w')).to.equal(7 * 86_400_000);
  });
  it('rejects text that is not a duration, naming it', () => {
    for (const bad of ['', '10', 'h', '5 m', '1x', '--1s']) {
      expect(() => parseDurationMs(bad), bad).to.throw(/duration/);
    }
  });
  it('formats like Go Duration.String for whole seconds', () => {
    expect(formatDurationMs(86_400_000)).to.equal('24h');
    expect(formatDurationMs(5_430_000)).to.equal('1h30m30s');
    expect(formatDurationMs(0)).to.equal('0s');
  });
});
