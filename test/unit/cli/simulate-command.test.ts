// `ehpa-adapter simulate` end to end in-process: a real Crane trace with the example EHPA, the SVG it
// draws, and one clear line with exit 2 for each kind of bad input.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { runCli } from '../../../src/cli/run-cli.ts';
import { progressPrinter } from '../../../src/cli/simulate-command.ts';
import { PassThrough } from 'node:stream';
import { captureIO } from '../../helpers/capture-io.ts';
import { TRACES_DIR } from '../../helpers/traces.ts';

const EXAMPLE = fileURLToPath(new URL('../../../examples/ehpa-simulate.yaml', import.meta.url));
const TRACE = `${TRACES_DIR}crane/input0.csv`;
const dir = mkdtempSync(join(tmpdir(), 'simulate-cli-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('ehpa-adapter simulate', function () {
  this.timeout(300_000);

  describe('on Crane trace input0 (8 days of per-minute CPU, daily period) with examples/ehpa-simulate.yaml', () => {
    const svgPath = join(dir, 'plot.svg');
    let lines: Record<string, unknown>[] = [];
    let code = -1;
    before(async function () {
      const io = captureIO();
      // One weekday (Monday 2021-08-16, UTC): 1440 steps, about 24 forecasts.
      code = await runCli(['simulate', '--ehpa', EXAMPLE, '--history', TRACE, '--from', '2021-08-16 00:00:00', '--to', '2021-08-16 23:59:00', '--plot', svgPath, '--local-zone', 'UTC'], io);
      if (code !== 0) throw new Error(io.err());
      lines = io.out().trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    });

    it('prints 1440 step lines and then one summary line', () => {
      expect(code).to.equal(0);
      expect(lines).to.have.length(1441);
      expect(lines.slice(0, -1).every((l) => l['type'] === 'step')).to.equal(true);
      expect(lines[1440]!['type']).to.equal('summary');
      expect(lines[0]!['t']).to.equal(1629072000);
      expect(lines[1439]!['t']).to.equal(1629072000 + 1439 * 60);
    });

    it('the summary is sane: counts within min/max, forecasts refreshed hourly and ready, the EHPA short less often', () => {
      const s = lines[1440] as {
        steps: number; perPodTargetCores: number; stepsWithoutForecast: number;
        forecast: { refreshes: number; failedRefreshes: number };
        ehpa: { averageReplicas: number; minReplicas: number; maxReplicas: number; underProvisionedMinutes: number; replicaChanges: number };
        plain: { averageReplicas: number; minReplicas: number; maxReplicas: number; underProvisionedMinutes: number; replicaChanges: number };
        ehpaMetrics: string[];
      };
      expect(s.steps).to.equal(1440);
      expect(s.perPodTargetCores).to.equal(2); // 50% of the annotation's 4 cores
      expect(s.ehpaMetrics).to.deep.equal(['cpu 50%', 'crane_pod_cpu_usage 2/pod', 'crane_autoscaling_cron']);
      expect(s.forecast.refreshes).to.be.within(22, 26);
      expect(s.forecast.failedRefreshes).to.equal(0);
      expect(s.stepsWithoutForecast).to.equal(0);
      for (const a of [s.ehpa, s.plain]) {
        expect(a.minReplicas).to.be.at.least(2);
        expect(a.maxReplicas).to.be.at.most(100);
        expect(a.averageReplicas).to.be.within(a.minReplicas, a.maxReplicas);
        expect(a.replicaChanges).to.be.greaterThan(10); // a daily cycle from ~10 to ~140 cores moves both
        expect(a.underProvisionedMinutes).to.be.within(0, 1440);
      }
      // The plain HPA reacts to usage one sync late and waits out the tolerance; the EHPA scales ahead.
      expect(s.ehpa.underProvisionedMinutes).to.be.lessThan(s.plain.underProvisionedMinutes);
      expect(s.ehpa.averageReplicas).to.be.greaterThan(s.plain.averageReplicas);
    });

    it('the cron window (weekdays 08:00-10:00 UTC, 20 replicas) holds the EHPA at 20 or more', () => {
      const steps = lines.slice(0, -1) as { t: number; cronReplicas: number; cronActive?: boolean; ehpa: { replicas: number } }[];
      const inWindow = steps.filter((s) => s.t >= 1629072000 + 8 * 3600 + 60 && s.t < 1629072000 + 10 * 3600);
      expect(inWindow.every((s) => s.cronReplicas === 20 && s.ehpa.replicas >= 20 && s.cronActive === true)).to.equal(true);
      expect(steps.find((s) => s.t === 1629072000 + 7 * 3600)!.cronReplicas).to.equal(2); // minReplicas outside
      expect(steps.filter((s) => s.cronActive).length).to.equal(120); // two hours of one-minute steps
    });

    it('writes a well-formed SVG with the five series, each a non-trivial path', () => {
      const text = readFileSync(svgPath, 'utf8');
      // The cron window shaded (one run), and the summary's figures under the title.
      expect(text).to.match(/<g id="cron-windows" class="cron"><rect [^>]+\/><\/g>/).and.match(/<text id="summary"[^>]*>EHPA: [\d.]+ short min/);
      expect(XMLValidator.validate(text)).to.equal(true);
      const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(text) as { svg: { width: string; path: { id: string; d: string }[] } };
      expect(doc.svg.width).to.equal('1200');
      const paths = new Map(doc.svg.path.map((p) => [p.id, p.d]));
      for (const id of ['series-usage', 'series-forecast', 'series-forecast-window-max', 'series-ehpa-replicas', 'series-plain-replicas']) {
        const d = paths.get(id);
        expect(d, id).to.be.a('string');
        expect((d as string).match(/[LHV]/g)?.length ?? 0, id).to.be.greaterThan(100);
      }
      // Usage is a line through every step: one M and 1439 L.
      expect(paths.get('series-usage')!.match(/L/g)).to.have.length(1439);
    });
  });

  describe('bad input: one line on stderr, exit 2', () => {
    const history = file('h.csv', 'ts,value\n1700000000,1\n1700000060,2\n1700000120,3\n');
    const ehpa = file('e.yaml', readFileSync(EXAMPLE, 'utf8'));
    const cases: [string, string[], RegExp][] = [
      ['missing --ehpa', ['--history', history], /--ehpa is required/],
      ['missing file', ['--ehpa', join(dir, 'nope.yaml'), '--history', history], /--ehpa: cannot read/],
      ['not an EHPA', ['--ehpa', file('cm.yaml', 'kind: ConfigMap\n'), '--history', history], /no document of kind EffectiveHorizontalPodAutoscaler/],
      ['invalid cron', ['--ehpa', file('bad-cron.yaml', readFileSync(EXAMPLE, 'utf8').replace('0 8 * * 1-5', '0 8 * *')), '--history', history], /InvalidCron/],
      ['bad CSV row', ['--ehpa', ehpa, '--history', file('bad.csv', 'ts,value\n1700000000,1\n1700000060,x\n')], /bad\.csv: line 3: value "x" is not a number/],
      ['negative usage', ['--ehpa', ehpa, '--history', file('neg.csv', 'ts,value\n1700000000,1\n1700000060,-2\n')], /line 3: value -2 is negative/],
      ['bad --from', ['--ehpa', ehpa, '--history', history, '--from', 'yesterday'], /invalid value "yesterday" for --from/],
      ['empty window', ['--ehpa', ehpa, '--history', history, '--from', '1700000120', '--to', '1700000000'], /--to \(1700000000\) is before --from/],
      ['window outside the data', ['--ehpa', ehpa, '--history', history, '--from', '1800000000', '--to', '1800000600'], /does not overlap the history/],
      ['bad request', ['--ehpa', ehpa, '--history', history, '--pod-cpu-request', 'lots'], /--pod-cpu-request/],
      ['bad --pod-startup', ['--ehpa', ehpa, '--history', history, '--pod-startup', 'soon'], /--pod-startup/],
      ['negative --pod-startup', ['--ehpa', ehpa, '--history', history, '--pod-startup=-5s'], /--pod-startup must not be negative/],
      ['neither --history nor --prometheus-url', ['--ehpa', ehpa], /give one of --history \(a CSV file\) and --prometheus-url/],
      ['both --history and --prometheus-url', ['--ehpa', ehpa, '--history', history, '--prometheus-url', 'http://127.0.0.1:9'], /give one of --history/],
      ['--since beyond the bound', ['--ehpa', ehpa, '--prometheus-url', 'http://127.0.0.1:9', '--since', '100d'], /--since must be at most 90d/],
      ['credentials in --prometheus-url', ['--ehpa', ehpa, '--prometheus-url', 'http://u:p@127.0.0.1:9'], /must not carry credentials/],
      ['no CPU metric', ['--ehpa', file('qps.yaml', readFileSync(EXAMPLE, 'utf8').replace(/metrics:\n(.|\n)*?(?= {2}prediction:)/, 'metrics:\n    - type: External\n      external:\n        metric: {name: qps}\n        target: {type: Value, value: "10"}\n')), '--history', history], /replays CPU only/],
    ];
    for (const [name, args, message] of cases) {
      it(name, async () => {
        const io = captureIO();
        expect(await runCli(['simulate', ...args], io)).to.equal(2);
        expect(io.err()).to.match(message);
        expect(io.err().trimEnd().split('\n')).to.have.length(1);
        expect(io.out()).to.equal('');
      });
    }
  });

  it('a Prometheus that does not answer: the query it tried and one line with the cause, exit 2', async () => {
    const io = captureIO();
    const ehpa = file('e2.yaml', readFileSync(EXAMPLE, 'utf8'));
    expect(await runCli(['simulate', '--ehpa', ehpa, '--prometheus-url', 'http://127.0.0.1:9', '--since', '1d', '--until', '1700000000', '--prometheus-timeout', '5s'], io)).to.equal(2);
    const lines = io.err().trimEnd().split('\n');
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^simulate: reading 1 days of .*container_cpu_usage_seconds_total.*namespace="default".* from http:\/\/127\.0\.0\.1:9$/);
    expect(lines[1]).to.match(/Prometheus: /);
    expect(io.out()).to.equal('');
  });

  it('--help documents the assumptions', async () => {
    const io = captureIO();
    expect(await runCli(['simulate', '--help'], io)).to.equal(0);
    expect(io.out()).to.match(/Assumptions:/).and.match(/--pod-cpu-request/).and.match(/Under-provisioned/i);
    expect(io.out()).to.match(/--pod-startup/).and.match(/Pod start-up/);
  });

  it('progress: nothing in the first 5 s, then a line with the share done every 5 s, none at the end', () => {
    const err = new PassThrough();
    let text = '';
    err.on('data', (c: Buffer) => (text += c.toString()));
    let clock = 1_000;
    const progress = progressPrinter(err, () => clock);
    clock = 5_999;
    progress(10, 100);
    expect(text).to.equal('');
    clock = 6_000;
    progress(25, 100);
    clock = 8_000;
    progress(30, 100);
    clock = 11_500;
    progress(50, 200);
    clock = 20_000;
    progress(200, 200);
    expect(text).to.equal('simulate: 25% (25 of 100 steps, 5 s)\nsimulate: 25% (50 of 200 steps, 11 s)\n');
  });

  it('--pod-startup 3m reaches the summary and each step gives readyReplicas', async () => {
    const io = captureIO();
    // 1 core for 10 minutes, then 4 cores: 2 pods of 1 core at 50 %, then 8.
    const history = file('rise.csv', ['ts,value', ...Array.from({ length: 30 }, (_, i) => `${1700000000 + 60 * i},${i < 10 ? 1 : 4}`)].join('\n'));
    const plain = file('rise.yaml', 'apiVersion: autoscaling.crane.io/v1alpha1\nkind: EffectiveHorizontalPodAutoscaler\nmetadata: {name: p}\nspec:\n  scaleTargetRef: {kind: Deployment, name: p}\n  maxReplicas: 10\n  metrics:\n  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}\n');
    expect(await runCli(['simulate', '--ehpa', plain, '--history', history, '--pod-startup', '3m'], io)).to.equal(0);
    const out = io.out().trimEnd().split('\n').map((l) => JSON.parse(l));
    const summary = out[out.length - 1];
    expect(summary).to.include({ type: 'summary', podStartupSeconds: 180 });
    const rise = out.find((l) => l.t === 1700000000 + 600);
    expect(rise.plain).to.include({ replicas: 4, readyReplicas: 2 });
    // The HPA goes 2 → 4 at minute 10 and → 8 at minute 11. Ready: 2 for the samples at minutes 10-13 (the
    // first new pods serve from minute 13), 4 at minute 14, 8 from 15: short for 5 minutes (without start-up: 2).
    expect(summary.plain.underProvisionedMinutes).to.equal(5);
  });

  it('--print-steps=false prints the summary alone, on a history without prediction warm-up', async () => {
    const io = captureIO();
    const history = file('flat.csv', ['ts,value', ...Array.from({ length: 30 }, (_, i) => `${1700000000 + 60 * i},3`)].join('\n'));
    const plain = file('plain.yaml', 'apiVersion: autoscaling.crane.io/v1alpha1\nkind: EffectiveHorizontalPodAutoscaler\nmetadata: {name: p}\nspec:\n  scaleTargetRef: {kind: Deployment, name: p}\n  maxReplicas: 10\n');
    expect(await runCli(['simulate', '--ehpa', plain, '--history', history, '--print-steps=false', '--pod-cpu-request', '500m'], io)).to.equal(0);
    const out = io.out().trimEnd().split('\n');
    expect(out).to.have.length(1);
    const s = JSON.parse(out[0] as string);
    // No metrics: the HPA default of 80% CPU; 3 cores / (0.8 × 0.5 core) = 7.5 → 8 pods, for both.
    expect(s).to.include({ type: 'summary', steps: 30, perPodTargetCores: 0.4, initialReplicas: 8 });
    expect(s.ehpa.averageReplicas).to.equal(8);
    expect(s.plain.averageReplicas).to.equal(8);
  });
});
