// Differential test against upstream: 1000 seeded scenarios replayed through the upstream VPA model
// (k8s.io/autoscaler/vertical-pod-autoscaler, version pinned in test/oracles/vpa/go.mod, run by our own
// test/oracles/vpa/main.go) and through our core the way `ehpa-adapter recommend` runs it. Recommendations
// (exact quantity strings), checkpoints and the count of discarded events must all be identical.
// Upstream merges a VPA's aggregates in Go map order (random); scenarios are generated so that this order
// cannot matter (see scenarios.ts), and our core merges in sorted key order.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildVpaOracle } from './vpa/build-oracle.ts';
import { generateScenarios, type OracleScenario } from './vpa/scenarios.ts';
import { runScenarioTs, type PhaseOutput } from './vpa/run-ts.ts';

const SCENARIOS = 1000;
const SEED = 20240310;

interface GoPhase {
  recommendation: unknown;
  checkpoints: { spec: unknown; status: unknown }[];
  rejected: number;
}

function normaliseCheckpoint(cp: { spec: unknown; status: unknown }): unknown {
  return JSON.parse(JSON.stringify({ spec: cp.spec, status: cp.status }));
}

describe('VPA core vs upstream Go model (differential, 1000 scenarios)', function () {
  this.timeout(30 * 60_000);
  let scenarios: OracleScenario[];
  let goResults: { name: string; phases: GoPhase[]; error?: string }[];
  let tsResults: PhaseOutput[][];

  before(async function () {
    const bin = buildVpaOracle();
    scenarios = generateScenarios(SCENARIOS, SEED);
    // The Go replay runs in its own process while our core replays the same scenarios here.
    // Input goes through a file so Go reads it while this (synchronous) loop runs.
    const dir = mkdtempSync(join(tmpdir(), 'vpa-oracle-'));
    const inputPath = join(dir, 'scenarios.json');
    writeFileSync(inputPath, JSON.stringify({ scenarios }));
    const fd = openSync(inputPath, 'r');
    const child = spawn(bin, ['replay'], { stdio: [fd, 'pipe', 'inherit'] });
    closeSync(fd);
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => chunks.push(c));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    tsResults = scenarios.map((s) => runScenarioTs(s));
    const code = await exited;
    rmSync(dir, { recursive: true, force: true });
    if (code !== 0) throw new Error(`Go oracle exited with ${code}`);
    goResults = (JSON.parse(Buffer.concat(chunks).toString()) as { results: typeof goResults }).results;
  });

  it('generates realistic scenarios deterministically', function () {
    const again = generateScenarios(3, SEED);
    expect(JSON.stringify(again)).to.equal(JSON.stringify(scenarios.slice(0, 3)));
    const events = scenarios.reduce((n, s) => n + s.phases.reduce((m, p) => m + p.events.length, 0), 0);
    expect(events).to.be.greaterThan(500_000);
    expect(scenarios.some((s) => s.phases.length > 1)).to.equal(true);
    expect(scenarios.some((s) => s.phases.some((p) => p.events.some((e) => e.oomMemoryRequestBytes !== undefined)))).to.equal(true);
  });

  it('finds zero differences in recommendations, checkpoints and discarded events', function () {
    expect(goResults).to.have.length(SCENARIOS);
    const diffs: string[] = [];
    let compared = 0;
    for (let i = 0; i < scenarios.length; i++) {
      const s = scenarios[i] as OracleScenario;
      const go = goResults[i]!;
      if (go.error) {
        diffs.push(`${s.name}: Go oracle failed: ${go.error}`);
        continue;
      }
      const ts = tsResults[i]!;
      for (let p = 0; p < s.phases.length; p++) {
        const g = go.phases[p]!;
        const t = ts[p]!;
        compared++;
        const gr = JSON.stringify(g.recommendation);
        const tr = JSON.stringify(t.recommendation);
        if (gr !== tr) diffs.push(`${s.name} phase ${p}: recommendation\n  go: ${gr}\n  ts: ${tr}`);
        const gc = JSON.stringify(g.checkpoints.map(normaliseCheckpoint));
        const tc = JSON.stringify(t.checkpoints.map(normaliseCheckpoint));
        if (gc !== tc) diffs.push(`${s.name} phase ${p}: checkpoints\n  go: ${gc.slice(0, 800)}\n  ts: ${tc.slice(0, 800)}`);
        if (g.rejected !== t.rejected) diffs.push(`${s.name} phase ${p}: rejected go=${g.rejected} ts=${t.rejected}`);
      }
    }
    expect(compared).to.be.greaterThan(SCENARIOS);
    expect(diffs.slice(0, 5).join('\n'), `${diffs.length} differences`).to.equal('');
  });
});
