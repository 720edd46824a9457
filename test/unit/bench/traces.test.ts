// The value evaluation's traces (test/helpers/traces.ts, read by bench/eval-value.ts): they load, the Alibaba
// file (no time column) is numbered 300 s apart, and the Alibaba trace stays out of what npm publishes.
import { expect } from 'chai';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadTrace, valueTraces, withRowTimes, TRACES_DIR } from '../../helpers/traces.ts';

describe('test/helpers/traces: the value evaluation traces', () => {
  it('withRowTimes numbers the rows after the header, skipping blank lines', () => {
    expect(withRowTimes('a,b\n1,2\n3,4\n', 300)).to.equal('t,a,b\n0,1,2\n300,3,4\n');
  });

  it('ten traces, each with a NOTICE beside it, all loadable at 300 s steps', () => {
    const traces = valueTraces();
    expect(traces).to.have.length(10);
    for (const t of traces) {
      const s = loadTrace(t);
      expect(s.timestamps.length, t.name).to.be.greaterThan(2000);
      expect(s.values.every((v) => Number.isFinite(v) && v >= 0), t.name).to.equal(true);
      expect(existsSync(new URL('NOTICE.md', `file://${t.file}`)), t.name).to.equal(true);
    }
  });

  it('the Alibaba trace: CPU is column 0, row i at 300·i s, under 8 days', () => {
    const alibaba = valueTraces().find((t) => t.name.startsWith('alibaba/'))!;
    const s = loadTrace(alibaba);
    expect(s.timestamps.slice(0, 3)).to.deep.equal([0, 300, 600]);
    expect(s.values[0]).to.be.closeTo(16.127, 1e-3);
    expect(s.timestamps[s.timestamps.length - 1]).to.equal(300 * (s.timestamps.length - 1));
    expect(s.timestamps[s.timestamps.length - 1]! / 86_400).to.be.within(7.5, 8);
  });

  it('npm publishes no test/ (the Alibaba trace is for evaluation only), and its NOTICE says so', () => {
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { files: string[] };
    expect(pkg.files.some((f) => f === 'test' || f.startsWith('test/') || f.includes('fixtures'))).to.equal(false);
    const notice = readFileSync(`${TRACES_DIR}alibaba/NOTICE.md`, 'utf8');
    expect(notice).to.match(/research or study/).and.match(/out of release artifacts/);
  });
});
