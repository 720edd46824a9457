// The harness's node-exporter conversion without any process: a machine trace scaled to a node, resampled for
// irate, written as the counters and gauges Crane's node queries read, and continued live without a jump.
import { expect } from 'chai';
import { csvColumns, liveNodeSeries, modeRate, nodeCpuCounters, nodeMemoryGauges, nodeUsageFromTrace, resample, NODE_EXPORTER_JOB } from './harness/node-exporter.ts';
import { toOpenMetrics } from './harness/openmetrics.ts';

const CSV = 'timestamp,cpu_usage,assigned_mem\n0,50,10\n300,100,20\n600,75,15\n';
const node = { file: 'm.csv', timeColumn: 'timestamp', cpuColumn: 'cpu_usage', memColumn: 'assigned_mem', instance: 'n1:9100', cpus: 4, memTotalBytes: 1000 };

describe('e2e harness: node-exporter series from a machine trace', () => {
  it('reads named CSV columns and names a missing column or a bad cell', () => {
    expect(csvColumns(CSV, ['assigned_mem', 'timestamp'])).to.deep.equal([[10, 20, 15], [0, 300, 600]]);
    expect(() => csvColumns(CSV, ['cpu'])).to.throw(/no column "cpu"/);
    expect(() => csvColumns('a,b\n1,x\n', ['b'])).to.throw(/row 2: column "b" is "x"/);
  });

  it('resamples linearly onto a finer step, ending on the last point', () => {
    expect(resample([{ ts: 0, value: 0 }, { ts: 300, value: 10 }], 60).map((p) => p.value)).to.deep.equal([0, 2, 4, 6, 8, 10]);
  });

  it("scales each column to the node by its peak, shifted to end on the last whole step at or before endTs", () => {
    const u = nodeUsageFromTrace({ ...node, peakCpuUtilization: 0.5, peakMemUtilization: 0.8 }, CSV, 10_030);
    expect(u.busyCores[u.busyCores.length - 1]).to.deep.equal({ ts: 10_020, value: 0.75 * 0.5 * 4 });
    expect(Math.max(...u.busyCores.map((p) => p.value))).to.equal(2); // 50 % of 4 CPUs at the trace's peak
    expect(Math.max(...u.usedBytes.map((p) => p.value))).to.equal(800);
    expect(u.busyCores).to.have.length(11); // 600 s at 60 s
  });

  it("counts idle and user seconds per CPU so that CPUs minus the idle rate is the busy cores (Crane's node cpu query)", () => {
    const u = nodeUsageFromTrace(node, CSV, 10_000);
    const counters = nodeCpuCounters(u);
    expect(counters).to.have.length(8); // 4 CPUs x idle, user
    const idle = counters.filter((c) => c.labels.mode === 'idle');
    for (let i = 1; i < u.busyCores.length; i++) {
      const dt = u.busyCores[i]!.ts - u.busyCores[i - 1]!.ts;
      const idleRate = idle.reduce((s, c) => s + (c.points[i]!.value - c.points[i - 1]!.value) / dt, 0);
      const avgBusy = (u.busyCores[i]!.value + u.busyCores[i - 1]!.value) / 2;
      expect(u.cpus - idleRate).to.be.closeTo(avgBusy, 1e-9);
    }
    expect(idle[0]!.labels).to.deep.equal({ job: NODE_EXPORTER_JOB, instance: 'n1:9100', cpu: '0', mode: 'idle' });
    expect(modeRate(u, 8, 'idle')).to.equal(0); // more busy cores than CPUs is a full node, not a negative rate
  });

  it('writes MemAvailable as MemTotal minus the used bytes, and the counters as a counter family', () => {
    const u = nodeUsageFromTrace(node, CSV, 10_000);
    const [total, avail] = nodeMemoryGauges(u);
    expect(total!.points.every((p) => p.value === 1000)).to.equal(true);
    expect(avail!.points.map((p, i) => 1000 - p.value - u.usedBytes[i]!.value).every((d) => Math.abs(d) <= 0.5)).to.equal(true);
    const text = toOpenMetrics([], [], nodeCpuCounters(u));
    expect(text).to.contain('# TYPE node_cpu_seconds counter\n');
    expect(text).to.match(/^node_cpu_seconds_total\{cpu="0",instance="n1:9100",job="node-exporter",mode="idle"\} 0\.000000 \d+$/m);
  });

  it('continues each counter live from where its last rate would have taken it by now, not from the last backfilled total', () => {
    const u = nodeUsageFromTrace(node, CSV, 10_000);
    const last = nodeCpuCounters(u)[0]!.points.at(-1)!;
    const live = liveNodeSeries(u, last.ts + 100);
    const c = live.counters[0]!;
    expect(c.start).to.be.closeTo(last.value + 100 * c.perSecond, 1e-9);
    expect(live.gauges.map((g) => g.name)).to.deep.equal(['node_memory_MemTotal_bytes', 'node_memory_MemAvailable_bytes']);
  });
});
