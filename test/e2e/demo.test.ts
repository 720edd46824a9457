// `npm run demo` as a user runs it (a child process, short watch): it must exit 0 after tearing down,
// print lines in which the real HPA's desiredReplicas reaches the cron window's targetReplicas while the
// window is open (and not before it), show a Ready TimeSeriesPrediction, and write a well-formed SVG with
// every series plus timeline.json.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { locateBinaries, REPO_ROOT } from './harness/index.ts';
import { CRON_TARGET_REPLICAS } from '../../scripts/demo/scenario.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runDemo(args: string[], timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'demo.ts'), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // SIGINT is the demo's own clean stop; it should never be needed here.
    const timer = setTimeout(() => child.kill('SIGINT'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `09:41:05  cpu  0.62 c ( 62% of req,  2 pods) | forecast max 30m  1.48 c | cron on 10 | HPA desired 10 current  4 ...` */
interface Line {
  forecastReady: boolean;
  cronOn: boolean;
  cronValue: number | null;
  desired: number | null;
}

function parseLines(stdout: string): Line[] {
  const out: Line[] = [];
  for (const l of stdout.split('\n')) {
    const m = /^\d\d:\d\d:\d\d {2}cpu .*\| forecast max \d+m +(not ready|[\d.]+ c) \| cron (on +(\d+)|off) +\| HPA desired +(\d+|-) current/.exec(l);
    if (!m) continue;
    out.push({ forecastReady: m[1] !== 'not ready', cronOn: m[2]!.startsWith('on'), cronValue: m[3] ? Number(m[3]) : null, desired: m[4] === '-' ? null : Number(m[4]) });
  }
  return out;
}

describe('e2e: npm run demo', function () {
  let out: string;

  before(async function () {
    this.timeout(45 * 60_000); // the first run may build the control plane
    await locateBinaries();
    out = await mkdtemp(join(tmpdir(), 'ehpa-demo-test-'));
  });

  after(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('runs two minutes on the embedded trace: the HPA follows the cron window, the TSP is Ready, the chart is written', async function () {
    this.timeout(6 * 60_000);
    const run = await runDemo(['--minutes', '2', '--interval', '3s', '--out', out], 5 * 60_000);
    const context = `exit ${run.code}\n--- stdout ---\n${run.stdout.slice(-6000)}\n--- stderr ---\n${run.stderr.slice(-3000)}`;
    expect(run.code, context).to.equal(0);
    expect(run.stdout, context).to.match(/\] stopped\n/);

    const lines = parseLines(run.stdout);
    expect(lines.length, context).to.be.at.least(20); // ~40 lines at 3 s over 2 min
    const firstOn = lines.findIndex((l) => l.cronOn);
    expect(firstOn, `the cron window never opened\n${context}`).to.be.greaterThan(0);
    // While the window is open the adapter serves its targetReplicas, and the real HPA's desired replicas
    // reach it; before the window they were below it (so it was the cron, not the forecast).
    const during = lines.filter((l) => l.cronOn);
    expect(during.some((l) => l.cronValue === CRON_TARGET_REPLICAS), context).to.equal(true);
    expect(during.some((l) => l.desired === CRON_TARGET_REPLICAS), context).to.equal(true);
    expect(lines.slice(0, firstOn).every((l) => l.desired === null || l.desired < CRON_TARGET_REPLICAS), context).to.equal(true);
    expect(lines.some((l) => l.forecastReady), `no Ready forecast\n${context}`).to.equal(true);
    expect(run.stdout).to.match(/TimeSeriesPrediction Ready: by \d+s after the EHPA was created/);

    const svgPath = join(out, 'demo.svg');
    const jsonPath = join(out, 'timeline.json');
    expect(run.stdout).to.contain(`chart:    ${svgPath}`);
    expect(existsSync(jsonPath)).to.equal(true);
    const svg = await readFile(svgPath, 'utf8');
    expect(XMLValidator.validate(svg)).to.equal(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(svg) as { svg: { path: { id: string; d: string }[] } };
    const paths = new Map(doc.svg.path.map((p) => [p.id, p.d]));
    for (const id of ['series-history', 'series-forecast', 'series-desired-replicas', 'series-current-replicas', 'series-cron', 'series-forecast-replicas']) {
      // A drawn series has at least two points (a move and a line or step), not the empty 'M0 0'.
      expect(paths.get(id), id).to.match(/^M[\d.]+ [\d.]+[LH]/);
    }
    const timeline = JSON.parse(await readFile(jsonPath, 'utf8')) as { ticks: { tspReady: boolean; desiredReplicas: number | null }[]; history: unknown[]; forecast: unknown[] };
    expect(timeline.ticks.length).to.equal(lines.length);
    expect(timeline.ticks.some((t) => t.tspReady)).to.equal(true);
    expect(timeline.history.length).to.be.greaterThan(100); // two hours at 30 s
    expect(timeline.forecast.length).to.be.greaterThan(10);
  });

  it('refuses a bad flag with one line and exit code 2, starting nothing', async function () {
    this.timeout(60_000);
    const run = await runDemo(['--minutes', 'soon'], 50_000);
    expect(run.code).to.equal(2);
    expect(run.stderr.trim()).to.equal('demo: invalid value "soon" for --minutes: expected a number');
    expect(run.stdout).to.equal('');
  });
});
