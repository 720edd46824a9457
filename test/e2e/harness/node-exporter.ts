// Pure conversion of a machine-level usage trace into node-exporter-shaped series for one Node, so a TSP on a
// Node (Crane's node templates, docs/crane-behaviour.md §I.2) reads history and live usage as it would from
// node-exporter: `node_cpu_seconds_total{cpu,mode}` counters (mode "idle" grows by the idle share of each CPU,
// "user" by the busy share) and `node_memory_MemTotal_bytes` / `node_memory_MemAvailable_bytes` gauges, with
// `instance` the Node's name, optionally with node-exporter's `:port`. The trace gives the shape (a cluster's
// CPU and memory over days); the node's size gives the scale: each column is divided by its peak and
// multiplied by a peak utilization.
import type { BackfillCounter, BackfillGauge, TracePoint } from './openmetrics.ts';

/** One Node's node-exporter history, backfilled from a trace, and (by default) continued live. */
export interface NodeExporterBackfill {
  /** CSV with a header line naming the columns, e.g. test/fixtures/traces/azure/vm_cpu_readings_month_aggregated_cpu_mem.csv. */
  file: string;
  /** Column of sample times in seconds (any origin); the trace is shifted to end just before start-up. */
  timeColumn: string;
  cpuColumn: string;
  memColumn: string;
  /** node-exporter's `instance` label: the Node's name, or `<name>:<port>` as a scrape of node-exporter gives it. */
  instance: string;
  cpus: number;
  memTotalBytes: number;
  /** Busy share of all CPUs at the trace's CPU peak (default 0.8). */
  peakCpuUtilization?: number;
  /** Used share of MemTotal at the trace's memory peak (default 0.8). */
  peakMemUtilization?: number;
  /** Keep the trace's last this many seconds (default 8 days: the percentile's 7-day window and DSP's 2-day minimum fit). */
  historySeconds?: number;
  /** Resampling step (default 60 s): node-exporter's counters are read with `irate(...[3m])`, which needs two samples in 3 minutes. */
  stepSeconds?: number;
  /** The last backfilled sample lies this far before start-up (default 120 s; the head block takes over). */
  endsAgoSeconds?: number;
  /** Keep exporting the series live at the trace's last usage (default true). */
  continueLive?: boolean;
}

/** A node's usage as fed: CPU cores busy and memory bytes used at each sample. */
export interface NodeUsage {
  instance: string;
  cpus: number;
  memTotalBytes: number;
  busyCores: TracePoint[];
  usedBytes: TracePoint[];
}

export const NODE_EXPORTER_JOB = 'node-exporter';

/** The named columns of a CSV with a header line. */
export function csvColumns(text: string, names: readonly string[]): number[][] {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
  const header = (lines[0] ?? '').split(',').map((h) => h.trim());
  const idx = names.map((n) => {
    const i = header.indexOf(n);
    if (i < 0) throw new Error(`CSV has no column "${n}" (columns: ${header.join(', ')})`);
    return i;
  });
  const out = names.map(() => [] as number[]);
  for (const [row, line] of lines.slice(1).entries()) {
    const cells = line.split(',');
    idx.forEach((i, k) => {
      const v = Number(cells[i]);
      if (!Number.isFinite(v)) throw new Error(`CSV row ${row + 2}: column "${names[k]}" is "${cells[i]}", not a number`);
      out[k]!.push(v);
    });
  }
  return out;
}

/** Linear interpolation of (ts, value) at every `step` from the first point's time to the last's. */
export function resample(points: readonly TracePoint[], step: number): TracePoint[] {
  const out: TracePoint[] = [];
  if (points.length === 0) return out;
  const end = points[points.length - 1]!.ts;
  let j = 0;
  for (let ts = points[0]!.ts; ts <= end; ts += step) {
    while (j + 1 < points.length && points[j + 1]!.ts < ts) j++;
    const a = points[j]!;
    const b = points[Math.min(j + 1, points.length - 1)]!;
    const f = b.ts === a.ts ? 0 : (ts - a.ts) / (b.ts - a.ts);
    out.push({ ts, value: a.value + (b.value - a.value) * Math.min(1, Math.max(0, f)) });
  }
  return out;
}

/** The node's usage from the trace: scaled to the node, resampled, its last sample at `endTs` (a multiple of the step). */
export function nodeUsageFromTrace(n: NodeExporterBackfill, csv: string, endTs: number): NodeUsage {
  const [time, cpu, mem] = csvColumns(csv, [n.timeColumn, n.cpuColumn, n.memColumn]) as [number[], number[], number[]];
  const step = n.stepSeconds ?? 60;
  const lastTs = time[time.length - 1]!;
  const keepFrom = lastTs - (n.historySeconds ?? 8 * 86_400);
  const kept = time.flatMap((t, i) => (t >= keepFrom ? [i] : []));
  if (kept.length < 2) throw new Error(`${n.file}: fewer than two samples in the last ${n.historySeconds ?? 8 * 86_400} s`);
  const peakCpu = Math.max(...kept.map((i) => cpu[i]!));
  const peakMem = Math.max(...kept.map((i) => mem[i]!));
  if (!(peakCpu > 0) || !(peakMem > 0)) throw new Error(`${n.file}: the CPU or memory column has no positive value`);
  const shift = endTs - endTs % step - lastTs;
  const scaled = (col: number[], peak: number, full: number, util: number) =>
    resample(kept.map((i) => ({ ts: time[i]! + shift, value: (col[i]! / peak) * util * full })), step);
  return {
    instance: n.instance, cpus: n.cpus, memTotalBytes: n.memTotalBytes,
    busyCores: scaled(cpu, peakCpu, n.cpus, n.peakCpuUtilization ?? 0.8),
    usedBytes: scaled(mem, peakMem, n.memTotalBytes, n.peakMemUtilization ?? 0.8),
  };
}

const labelsOf = (u: NodeUsage, extra: Record<string, string> = {}) => ({ job: NODE_EXPORTER_JOB, instance: u.instance, ...extra });

/** Seconds a CPU spent in `mode` per second of wall time, when the node has `busyCores` busy (spread evenly). */
export function modeRate(u: NodeUsage, busyCores: number, mode: 'idle' | 'user'): number {
  const busyShare = Math.min(1, Math.max(0, busyCores / u.cpus));
  return mode === 'idle' ? 1 - busyShare : busyShare;
}

/** `node_cpu_seconds_total` per CPU and mode: the running integral of each mode's rate (trapezoids). */
export function nodeCpuCounters(u: NodeUsage): BackfillCounter[] {
  const out: BackfillCounter[] = [];
  for (let cpu = 0; cpu < u.cpus; cpu++) {
    for (const mode of ['idle', 'user'] as const) {
      let total = 0;
      const points = u.busyCores.map((p, i) => {
        if (i > 0) {
          const a = u.busyCores[i - 1]!;
          total += ((modeRate(u, a.value, mode) + modeRate(u, p.value, mode)) / 2) * (p.ts - a.ts);
        }
        return { ts: p.ts, value: total };
      });
      out.push({ family: 'node_cpu_seconds', labels: labelsOf(u, { cpu: String(cpu), mode }), points });
    }
  }
  return out;
}

/** `node_memory_MemTotal_bytes` (constant) and `node_memory_MemAvailable_bytes` (total minus used). */
export function nodeMemoryGauges(u: NodeUsage): BackfillGauge[] {
  return [
    { name: 'node_memory_MemTotal_bytes', labels: labelsOf(u), points: u.usedBytes.map((p) => ({ ts: p.ts, value: u.memTotalBytes })) },
    { name: 'node_memory_MemAvailable_bytes', labels: labelsOf(u), points: u.usedBytes.map((p) => ({ ts: p.ts, value: Math.round(u.memTotalBytes - p.value) })) },
  ];
}

/** What a live exporter needs to continue the series at `nowSec` from the last sample on, without a jump. */
export function liveNodeSeries(u: NodeUsage, nowSec: number): {
  counters: { labels: Record<string, string>; perSecond: number; start: number }[];
  gauges: { name: string; labels: Record<string, string>; value: number }[];
} {
  const last = u.busyCores[u.busyCores.length - 1]!;
  const totals = nodeCpuCounters(u);
  const counters = totals.map((c) => {
    const perSecond = modeRate(u, last.value, c.labels.mode as 'idle' | 'user');
    // Where the counter would be now had it kept its last rate: a start at the last backfilled total would
    // make irate read (almost) no idle time across the gap, i.e. every CPU busy.
    return { labels: c.labels, perSecond, start: c.points[c.points.length - 1]!.value + perSecond * Math.max(0, nowSec - last.ts) };
  });
  const lastUsed = u.usedBytes[u.usedBytes.length - 1]!.value;
  return {
    counters,
    gauges: [
      { name: 'node_memory_MemTotal_bytes', labels: labelsOf(u), value: u.memTotalBytes },
      { name: 'node_memory_MemAvailable_bytes', labels: labelsOf(u), value: Math.round(u.memTotalBytes - lastUsed) },
    ],
  };
}
