// Output that survives a pipe: every printing command runs as its own process (the installed bin, as a
// user runs it) with stdout on a pipe whose reader is slow, and what arrives must be the whole document.
// Before the exit path waited for stdout to drain, anything past the kernel's 64 KiB pipe buffer could be
// lost at process.exit(), so these outputs are all well over 64 KiB (recommend and simulate over 1 MB).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertBuildFresh } from '../e2e/harness/build-freshness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/ehpa-adapter.js');
const TRACE_15D = join(ROOT, 'test/fixtures/traces/crane/input13.csv'); // 16 days at 60 s
const TRACE_8D = join(ROOT, 'test/fixtures/traces/crane/input0.csv');
const EHPA = join(ROOT, 'examples/ehpa-simulate.yaml');

/** Runs the bin with stdout on a pipe nobody reads for 300 ms, then drained slowly chunk by chunk. */
async function runSlowlyRead(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  assertBuildFresh(ROOT);
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  child.stdout.pause();
  await sleep(300);
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout) {
    chunks.push(chunk as Buffer);
    await sleep(1);
  }
  return { code: await exited, out: Buffer.concat(chunks).toString('utf8'), err };
}

describe('printing commands: the whole output reaches a slow pipe reader', function () {
  this.timeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'cli-pipes-'));

  it('version, 5 runs: one JSON document each', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await runSlowlyRead(['version']);
      expect(r.code, r.err).to.equal(0);
      expect(JSON.parse(r.out)).to.have.property('version');
    }
  });

  it('forecast of a 15-day trace, 5 runs: the JSON parses and holds the whole 24 h horizon', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await runSlowlyRead(['forecast', '--input', TRACE_15D]);
      expect(r.code, r.err).to.equal(0);
      expect(r.out.length).to.be.greaterThan(64 * 1024);
      const doc = JSON.parse(r.out) as { samples: unknown[] };
      expect(doc.samples).to.have.length(1440);
    }
  });

  it('recommend with 6,000 containers (over 1 MB), 5 runs: the JSON parses and names every container', async () => {
    const lines: string[] = [];
    for (let c = 0; c < 6000; c++) {
      lines.push(JSON.stringify({ time: '2024-03-10T13:37:00Z', container: `c${c}`, pod: `p${c}`, cpuMillicores: 100 + c }));
      lines.push(JSON.stringify({ time: '2024-03-10T13:37:00Z', container: `c${c}`, pod: `p${c}`, memoryBytes: 1e8 + c }));
    }
    const input = join(dir, 'many.jsonl');
    writeFileSync(input, lines.join('\n') + '\n');
    for (let i = 0; i < 5; i++) {
      const r = await runSlowlyRead(['recommend', '--input', input]);
      expect(r.code, r.err).to.equal(0);
      expect(r.out.length).to.be.greaterThan(1 << 20);
      const doc = JSON.parse(r.out) as { containerRecommendations: unknown[] };
      expect(doc.containerRecommendations).to.have.length(6000);
    }
  });

  it('simulate over 4 days (over 1 MB of JSON lines), 2 runs: every line parses and the summary is last', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await runSlowlyRead(['simulate', '--ehpa', EHPA, '--history', TRACE_8D]);
      expect(r.code, r.err).to.equal(0);
      expect(r.out.length).to.be.greaterThan(1 << 20);
      expect(r.out.endsWith('\n')).to.equal(true);
      const docs = r.out.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(docs.length).to.be.greaterThan(1000);
      expect(docs[docs.length - 1]).to.have.property('type', 'summary');
    }
  });
});

describe('printing commands end cleanly when the reader goes away or on Ctrl-C', function () {
  this.timeout(300_000);

  it('simulate | head -c 100, 3 runs: exit 0, no EPIPE stack on stderr (6 of 10 runs died before)', async () => {
    // Without prediction (no fits): eight days of steps start printing at once, well past a pipe's buffer.
    const plain = join(mkdtempSync(join(tmpdir(), 'cli-epipe-')), 'plain.yaml');
    writeFileSync(plain, ['apiVersion: autoscaling.crane.io/v1alpha1', 'kind: EffectiveHorizontalPodAutoscaler', 'metadata: {name: web, namespace: default}',
      'spec:', '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}', '  minReplicas: 1', '  maxReplicas: 50',
      '  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]', ''].join('\n'));
    for (let i = 0; i < 3; i++) {
      assertBuildFresh(ROOT);
      const child = spawn(process.execPath, [BIN, 'simulate', '--ehpa', plain, '--history', TRACE_8D, '--pod-cpu-request', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
      // Read 100 bytes, then close the read end as `head -c 100` does.
      const first = await new Promise<Buffer>((resolve) => child.stdout.once('data', (c: Buffer) => resolve(c)));
      expect(first.length).to.be.greaterThan(0);
      child.stdout.destroy();
      expect(await exited, err).to.equal(0);
      expect(err).to.not.match(/EPIPE|Unhandled|\n\s+at /);
    }
  });

  it('SIGINT stops a running forecast at once (it waited 73 s for the fit before)', async () => {
    assertBuildFresh(ROOT);
    // A 15-day fit at 1 minute now ends in about a second, before the signal could come; 15 days at 5 s
    // (259,200 points of a daily wave) keeps the fit running for about 10 s on a quiet machine.
    const series = join(mkdtempSync(join(tmpdir(), 'ehpa-sigint-')), 'daily-5s.csv');
    const rows = ['time,value'];
    for (let i = 0; i < 15 * 17_280; i++) rows.push(`${1_700_000_000 + i * 5},${(100 + 50 * Math.sin((2 * Math.PI * i * 5) / 86_400) + ((i * 7919) % 13)).toFixed(3)}`);
    writeFileSync(series, rows.join('\n') + '\n');
    const child = spawn(process.execPath, [BIN, 'forecast', '--input', series, '--sample-interval', '5s', '--history', '15d', '--horizon', '24h'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    // Past start-up (a second or two on tsx), into the reading and fitting.
    await sleep(2500);
    expect(child.exitCode, 'the forecast is still running when the signal comes').to.equal(null);
    const t0 = performance.now();
    child.kill('SIGINT');
    const r = await exited;
    expect(performance.now() - t0, 'ms from SIGINT to exit').to.be.below(2000);
    expect(r.signal ?? r.code).to.be.oneOf(['SIGINT', 130]);
  });
});
