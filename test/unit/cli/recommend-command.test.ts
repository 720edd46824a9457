// `ehpa-adapter recommend` end to end in-process. Expected recommendations were computed by the upstream
// model (test/oracles/vpa oracle, k8s.io/autoscaler/vertical-pod-autoscaler v1.8.1) for the same events.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/run-cli.ts';
import { captureIO } from '../../helpers/capture-io.ts';

function cliEvents(): object[] {
  const t0 = Date.UTC(2024, 2, 10, 13, 37, 0);
  const ev: object[] = [];
  for (let i = 0; i < 180; i++) {
    const time = new Date(t0 + i * 60_000).toISOString().replace('.000Z', 'Z');
    ev.push({ time, container: 'app', pod: 'p-0', cpuMillicores: 50 + ((i * 7919) % 400) });
    ev.push({ time, container: 'app', pod: 'p-0', memoryBytes: 300 * 1024 * 1024 + ((i * 104729) % 97) * 4 * 1024 * 1024 });
    ev.push({ time, container: 'sidecar', pod: 'p-0', cpuCores: 0.005 + (i % 7) / 1000 });
    ev.push({ time, container: 'sidecar', pod: 'p-0', memoryBytes: 20e6 + (i % 5) * 1e6 });
  }
  ev.push({ time: new Date(t0 + 100 * 60_000).toISOString().replace('.000Z', 'Z'), container: 'app', pod: 'p-0', oomMemoryRequestBytes: 536870912 });
  return ev;
}

const SIDECAR = {
  containerName: 'sidecar',
  target: { cpu: '23m', memory: '125Mi' },
  lowerBound: { cpu: '12m', memory: '125Mi' },
  upperBound: { cpu: '208m', memory: '327904011' },
  uncappedTarget: { cpu: '23m', memory: '125Mi' },
};
const APP = {
  containerName: 'app',
  target: { cpu: '476m', memory: '1038683533' },
  lowerBound: { cpu: '291m', memory: '1022171273' },
  upperBound: { cpu: '4621m', memory: '9394573407' },
  uncappedTarget: { cpu: '476m', memory: '1038683533' },
};

describe('ehpa-adapter recommend', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ehpa-recommend-'));
  const events = cliEvents();
  const jsonl = (xs: object[]) => xs.map((e) => JSON.stringify(e)).join('\n') + '\n';
  const input = join(dir, 'events.jsonl');
  writeFileSync(input, jsonl(events));

  async function run(args: string[], stdin = '') {
    const io = captureIO(stdin);
    const code = await runCli(['recommend', ...args], io);
    return { code, out: io.out(), err: io.err() };
  }

  it('prints the upstream recommendation for a file of events (default flags, --now)', async () => {
    const r = await run(['--input', input, '--now', '2024-03-10T16:36:00Z']);
    expect(r.code, r.err).to.equal(0);
    expect(JSON.parse(r.out)).to.deep.equal({ containerRecommendations: [APP, SIDECAR] });
  });

  it('reads stdin and defaults --now to the last event time', async () => {
    const r = await run([], jsonl(events));
    expect(r.code, r.err).to.equal(0);
    expect(JSON.parse(r.out)).to.deep.equal({ containerRecommendations: [APP, SIDECAR] });
  });

  it('applies a VerticalPodAutoscaler resourcePolicy from YAML (--vpa); uncappedTarget stays uncapped', async () => {
    const vpa = join(dir, 'vpa.yaml');
    writeFileSync(
      vpa,
      ['apiVersion: autoscaling.k8s.io/v1', 'kind: VerticalPodAutoscaler', 'metadata: {name: web}', 'spec:', '  resourcePolicy:', '    containerPolicies:',
        '    - {containerName: app, maxAllowed: {cpu: 400m}}', '    - {containerName: "*", minAllowed: {memory: 64Mi}}', ''].join('\n'),
    );
    const r = await run(['--input', input, '--vpa', vpa]);
    expect(r.code, r.err).to.equal(0);
    const app = { ...APP, target: { ...APP.target, cpu: '400m' }, upperBound: { ...APP.upperBound, cpu: '400m' } };
    expect(JSON.parse(r.out)).to.deep.equal({ containerRecommendations: [app, SIDECAR] });
  });

  it('round-trips checkpoints like a restarted recommender (--checkpoint-out, then --checkpoint-in)', async () => {
    const cp = join(dir, 'cp.json');
    // Split by time (the OOM at minute 100 belongs to the first run): input order does not matter.
    const before = (e: object) => (e as { time: string }).time < '2024-03-10T15:37:00Z';
    const first = join(dir, 'first.jsonl');
    const second = join(dir, 'second.jsonl');
    writeFileSync(first, jsonl(events.filter(before)));
    writeFileSync(second, jsonl(events.filter((e) => !before(e))));
    const a = await run(['--input', first, '--now', '2024-03-10T15:37:00Z', '--checkpoint-out', cp]);
    expect(a.code, a.err).to.equal(0);
    const checkpoints = JSON.parse(readFileSync(cp, 'utf8'));
    expect(checkpoints.map((c: { spec: { containerName: string } }) => c.spec.containerName)).to.deep.equal(['app', 'sidecar']);
    expect(checkpoints[0].status.version).to.equal('v3');
    expect(checkpoints[0].status.lastUpdateTime).to.equal('2024-03-10T15:37:00Z');
    // The OOM's bumped peak already dominates the memory window at 15:37, so memory equals the final target.
    expect(JSON.parse(a.out).containerRecommendations[0].target).to.deep.equal({ cpu: '511m', memory: APP.target.memory });
    const b = await run(['--input', second, '--now', '2024-03-10T16:36:00Z', '--checkpoint-in', cp]);
    expect(b.code, b.err).to.equal(0);
    // CPU histograms survive the restart: the CPU recommendation is the single run's.
    const restarted = JSON.parse(b.out).containerRecommendations;
    expect(restarted.map((c: { target: { cpu: string } }) => c.target.cpu)).to.deep.equal([APP.target.cpu, SIDECAR.target.cpu]);
    // Memory does not: all samples lie in one 24 h peak window, and upstream's checkpoint writer subtracts the
    // current window's peak before saving (checkpoint_writer.go subtractCurrentContainerMemoryPeak) because a
    // restarted recommender re-observes it. So the checkpointed memory histogram is empty, and the restarted
    // memory recommendation is what the second file's samples alone give.
    expect(checkpoints[0].status.memoryHistogram.totalWeight ?? 0).to.equal(0);
    const alone = await run(['--input', second, '--now', '2024-03-10T16:36:00Z']);
    const aloneMemory = JSON.parse(alone.out).containerRecommendations.map((c: { target: { memory: string } }) => c.target.memory);
    expect(restarted.map((c: { target: { memory: string } }) => c.target.memory)).to.deep.equal(aloneMemory);
    expect(aloneMemory[0]).to.not.equal(APP.target.memory);
  });

  it('loads only the checkpoints of its own VPA (by --vpa name), like upstream InitFromCheckpoints', async () => {
    const cp = join(dir, 'cp-other.json');
    const split = 120 * 4;
    const first = join(dir, 'first-other.jsonl');
    const second = join(dir, 'second-other.jsonl');
    writeFileSync(first, jsonl(events.slice(0, split)));
    writeFileSync(second, jsonl(events.slice(split)));
    expect((await run(['--input', first, '--now', '2024-03-10T15:37:00Z', '--checkpoint-out', cp])).code).to.equal(0);
    const vpa = join(dir, 'other.json');
    writeFileSync(vpa, JSON.stringify({ metadata: { name: 'other' } }));
    const withOther = await run(['--input', second, '--now', '2024-03-10T16:36:00Z', '--checkpoint-in', cp, '--vpa', vpa]);
    const without = await run(['--input', second, '--now', '2024-03-10T16:36:00Z']);
    expect(withOther.code).to.equal(0);
    expect(withOther.err).to.match(/2 checkpoint\(s\) belong to another VPA/);
    expect(withOther.out).to.equal(without.out);
    expect(JSON.parse(withOther.out)).to.not.deep.equal({ containerRecommendations: [APP, SIDECAR] });
  });

  it('flags carry upstream names: a larger margin raises the target', async () => {
    const r = await run(['--input', input, '--recommendation-margin-fraction', '0.5', '--pod-recommendation-min-memory-mb', '0']);
    expect(r.code, r.err).to.equal(0);
    const target = JSON.parse(r.out).containerRecommendations[0].target;
    // target = percentile x (1 + margin) in the truncating form, so 0.5 instead of 0.15 raises CPU by
    // about 1.5 / 1.15 (the percentile itself is unchanged); memory rises too (pod minimum switched off).
    const milli = (q: string) => Number(q.replace(/m$/, ''));
    expect(milli(target.cpu)).to.be.greaterThan(milli(APP.target.cpu));
    expect(milli(target.cpu) / milli(APP.target.cpu)).to.be.closeTo(1.5 / 1.15, 0.01);
    expect(Number(target.memory)).to.be.greaterThan(Number(APP.target.memory));
  });

  it('a bad line is one error naming the line, exit 2', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, jsonl(events.slice(0, 3)) + '{"time":"2024-03-10T13:40:00Z","container":"app","cpuCores":"lots"}\n');
    const r = await run(['--input', bad]);
    expect(r.code).to.equal(2);
    expect(r.err).to.match(/bad\.jsonl:4: cpuCores must be a finite number/);
    expect(r.err.trim().split('\n')).to.have.length(1);
    const notJson = await run([], '{"time":\n');
    expect(notJson.code).to.equal(2);
    expect(notJson.err).to.match(/stdin:1: invalid JSON/);
    const noValue = await run([], '{"time":"2024-03-10T13:40:00Z","container":"app"}\n');
    expect(noValue.err).to.match(/stdin:1: exactly one of cpuCores, cpuMillicores, memoryBytes, oomMemoryRequestBytes/);
  });

  it('refuses a negative usage value with the file and line, exit 2, and prints nothing', async () => {
    const neg = join(dir, 'neg.jsonl');
    writeFileSync(neg, jsonl(events.slice(0, 5)) + '{"time":"2024-03-10T13:40:00Z","container":"app","memoryBytes":-1}\n');
    const r = await run(['--input', neg]);
    expect(r.code).to.equal(2);
    expect(r.err).to.match(/neg\.jsonl:6: memoryBytes must not be negative/);
    expect(r.out).to.equal('');
  });

  it('answers the same for the events in any order (they are replayed sorted by time)', async () => {
    // A fixed shuffle (reverse, then interleave the halves): nothing in the file is in time order.
    const reversed = [...events].reverse();
    const half = Math.ceil(reversed.length / 2);
    const shuffled = reversed.flatMap((_, i) => (i < half ? [reversed[i], reversed[i + half]] : [])).filter((e) => e !== undefined);
    expect(shuffled).to.have.length(events.length);
    const path = join(dir, 'shuffled.jsonl');
    writeFileSync(path, jsonl(shuffled as object[]));
    const r = await run(['--input', path, '--now', '2024-03-10T16:36:00Z']);
    expect(r.code, r.err).to.equal(0);
    expect(JSON.parse(r.out)).to.deep.equal({ containerRecommendations: [APP, SIDECAR] });
  });

  it('refuses a missing input file and a bad --now', async () => {
    expect((await run(['--input', join(dir, 'nope.jsonl')])).code).to.equal(2);
    const r = await run(['--input', input, '--now', 'yesterday']);
    expect(r.code).to.equal(2);
    expect(r.err).to.match(/--now/);
  });
});
