// The simulate command's two long replays (a 15-target iso-cost frontier over a day, and a 62-day plot at
// 1-minute steps): seconds each, so they live in the slow tier beside the fast unit loop's simulate tests.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLValidator } from 'fast-xml-parser';
import { runCli } from '../../src/cli/run-cli.ts';
import { captureIO } from '../helpers/capture-io.ts';
import { TRACES_DIR } from '../helpers/traces.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/ehpa-simulate.yaml', import.meta.url));
const TRACE = `${TRACES_DIR}crane/input0.csv`;
const dir = mkdtempSync(join(tmpdir(), 'simulate-long-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('ehpa-adapter simulate, long replays', function () {
  this.timeout(300_000);

  it('--frontier prints the EHPA against plain HPAs at lower targets on the same history, and the verdict', async () => {
    const io = captureIO();
    const args = ['simulate', '--ehpa', EXAMPLE, '--history', TRACE, '--from', '2021-08-16 00:00:00', '--to', '2021-08-16 23:59:00', '--local-zone', 'UTC', '--pod-startup', '2m', '--frontier'];
    expect(await runCli(args, io), io.err()).to.equal(0);
    const out = io.out();
    expect(out).to.match(/^Short: usage > ready replicas × 2 core/);
    expect(out).to.match(/^\| EHPA as written \| 50% \| \d+ \| [\d.]+ \| [\d.]+ \|$/m);
    const plain = out.split('\n').filter((l) => l.startsWith('| plain HPA |'));
    expect(plain.map((l) => l.split('|')[2]!.trim())).to.deep.equal(['50%', '49%', '48%', '47%', '46%', '45%', '44%', '43%', '42%', '41%', '40%', '35%', '30%', '25%', '20%']);
    // Replica-hours grow as the target falls (each row's ratio to the 50 % HPA).
    const ratios = plain.map((l) => Number(l.split('|')[5]));
    expect(ratios[0]).to.equal(1);
    expect(ratios[ratios.length - 1]).to.be.greaterThan(1.5);
    expect(out).to.match(/^Verdict: prediction (pays|does not pay) \(.+\)\.$/m);
    expect(out).not.to.match(/"type":"step"/);
  });


  it('--plot draws a 62-day replay at 1-minute steps (about 90,000 steps) without overflowing the stack', async () => {
    const io = captureIO();
    const n = 62 * 1440;
    const rows = ['ts,value'];
    for (let i = 0; i < n; i++) rows.push(`${1700000000 + 60 * i},${(3 + 2 * Math.sin((2 * Math.PI * i) / 1440)).toFixed(3)}`);
    const history = file('long.csv', rows.join('\n'));
    const plain = file('long.yaml', 'apiVersion: autoscaling.crane.io/v1alpha1\nkind: EffectiveHorizontalPodAutoscaler\nmetadata: {name: p}\nspec:\n  scaleTargetRef: {kind: Deployment, name: p}\n  maxReplicas: 50\n');
    const svgPath = join(dir, 'long.svg');
    expect(await runCli(['simulate', '--ehpa', plain, '--history', history, '--print-steps=false', '--plot', svgPath], io), io.err()).to.equal(0);
    expect(JSON.parse(io.out())).to.include({ steps: n });
    const text = readFileSync(svgPath, 'utf8');
    expect(XMLValidator.validate(text)).to.equal(true);
    expect(text.length).to.be.lessThan(1_000_000);
  });
});
