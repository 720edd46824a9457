import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/run-cli.ts';
import { captureIO } from '../../helpers/capture-io.ts';
import { parseSeriesCsv } from '../../../src/prediction/series-csv.ts';

const dir = mkdtempSync(join(tmpdir(), 'forecast-cli-'));
function csv(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('ehpa-adapter forecast', function () {
  this.timeout(60_000);
  const t0 = 1_700_006_400;
  const rows = ['time,value'];
  for (let i = 0; i < 3 * 1440; i++) rows.push(`${t0 + 60 * i},${(100 + 50 * Math.sin((2 * Math.PI * i) / 1440) + ((i * 7919) % 13) / 3).toFixed(4)}`);
  const good = csv('good.csv', rows.join('\n') + '\n');

  it('prints JSON with period, estimator, backtest and samples starting one interval after the input', async () => {
    const io = captureIO();
    expect(await runCli(['forecast', '--input', good, '--horizon', '10m', '--estimators', 'crane'], io)).to.equal(0);
    const out = JSON.parse(io.out());
    expect(out.period).to.equal('24h');
    expect(out.estimator).to.be.a('string');
    expect(out.backtest).to.be.an('object');
    expect(out.samples).to.have.length(10);
    expect(out.samples[0].timestamp).to.equal(t0 + 60 * (3 * 1440 - 1) + 60);
  });
  it('reads YYYY-MM-DD HH:MM:SS times as UTC', () => {
    const s = parseSeriesCsv('timestamp,value\n2014-02-14 14:30:00,0.132\n2014-02-14 14:35:00,0.134\n');
    expect(s.timestamps).to.deep.equal([Date.UTC(2014, 1, 14, 14, 30) / 1000, Date.UTC(2014, 1, 14, 14, 35) / 1000]);
  });
  it('an out-of-range horizon or history is one line and exit 2, before any forecast (1e8 days was a RangeError stack)', async () => {
    for (const [args, message] of [
      [['--horizon', '100000000d'], 'ehpa-adapter forecast: --horizon must be at most 90d'],
      [['--history', '91d'], 'ehpa-adapter forecast: --history must be at most 90d'],
      [['--horizon', '90d', '--sample-interval', '1s'], 'ehpa-adapter forecast: --horizon / --sample-interval is 7776000 samples, more than 777600; lengthen the interval or shorten the horizon'],
    ] as const) {
      const io = captureIO();
      expect(await runCli(['forecast', '--input', good, ...args], io), args.join(' ')).to.equal(2);
      expect(io.err().trim()).to.equal(message);
      expect(io.out()).to.equal('');
    }
  });
  it('a bad CSV row is one line with its line number and exit 2', async () => {
    const io = captureIO();
    const bad = csv('bad.csv', 'ts,value\n1700000000,1\n1700000060,oops\n');
    expect(await runCli(['forecast', '--input', bad], io)).to.equal(2);
    expect(io.err().trim().split('\n')).to.have.length(1);
    expect(io.err()).to.match(/line 3: value "oops" is not a number/);
  });
  it('refuses negative and non-finite values with the file and line, exit 2', async () => {
    for (const [name, value, message] of [
      ['neg.csv', '-0.5', /neg\.csv: line 3: value -0\.5 is negative/],
      ['inf.csv', '1e999', /inf\.csv: line 3: value "1e999" is not finite/],
    ] as const) {
      const io = captureIO();
      expect(await runCli(['forecast', '--input', csv(name, `ts,value\n1700000000,1\n1700000060,${value}\n1700000120,1\n`)], io)).to.equal(2);
      expect(io.err()).to.match(message);
      expect(io.out()).to.equal('');
    }
  });
  it('rejects out-of-order and unreadable times with the line number', async () => {
    const io = captureIO();
    expect(await runCli(['forecast', '--input', csv('order.csv', 'ts,value\n120,1\n60,2\n')], io)).to.equal(2);
    expect(io.err()).to.match(/line 3: time 60 is not after/);
    const io2 = captureIO();
    expect(await runCli(['forecast', '--input', csv('date.csv', 'ts,value\n2014-13-01 00:00:00,1\n')], io2)).to.equal(2);
    expect(io2.err()).to.match(/line 2: invalid date/);
  });
  it('a series off the sample interval grid, a missing file and a missing --input exit 2', async () => {
    const io = captureIO();
    expect(await runCli(['forecast', '--input', csv('grid.csv', 'ts,value\n0,1\n90,2\n')], io)).to.equal(2);
    expect(io.err()).to.match(/not a positive multiple of 60s/);
    const io2 = captureIO();
    expect(await runCli(['forecast', '--input', join(dir, 'nope.csv')], io2)).to.equal(2);
    expect(io2.err()).to.match(/cannot read/);
    const io3 = captureIO();
    expect(await runCli(['forecast'], io3)).to.equal(2);
    expect(io3.err()).to.match(/--input is required/);
  });
});
