// Pure conversion of a usage trace into cAdvisor-shaped OpenMetrics text for `promtool tsdb
// create-blocks-from openmetrics`: `container_cpu_usage_seconds_total` (a counter: the running integral of
// CPU cores over time) and `container_memory_working_set_bytes` (a gauge).

export interface TracePoint {
  /** Unix seconds. */
  ts: number;
  value: number;
}

export interface SeriesLabels {
  namespace: string;
  pod: string;
  container: string;
  [name: string]: string;
}

export interface BackfillSeries {
  labels: SeriesLabels;
  /** CPU usage in cores at each point (already scaled and shifted). */
  cpu: TracePoint[];
  /** Working-set memory in bytes at each point; omitted = no memory series. */
  memory?: TracePoint[];
}

/** Any other gauge backfilled from a trace (an application metric such as `http_requests`), own labels. */
export interface BackfillGauge {
  name: string;
  labels: Record<string, string>;
  points: TracePoint[];
}

/** Any other counter backfilled as its running total (node-exporter's `node_cpu_seconds_total`), own labels. */
export interface BackfillCounter {
  /** The OpenMetrics family: the sample name without `_total`. */
  family: string;
  labels: Record<string, string>;
  /** The counter's value (not the rate) at each point. */
  points: TracePoint[];
}

/** Parse a `ts,value` CSV (unix seconds) with an optional header line. */
export function parseTraceCsv(text: string): TracePoint[] {
  const out: TracePoint[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const [a, b] = line.split(',');
    const ts = Number(a);
    const value = Number(b);
    if (!Number.isFinite(ts) || !Number.isFinite(value)) {
      if (i === 0) continue; // header
      throw new Error(`trace line ${i + 1}: expected "ts,value", got "${line}"`);
    }
    out.push({ ts, value });
  }
  if (out.length < 2) throw new Error('trace has fewer than two points');
  return out;
}

/**
 * Shift a trace so its last point falls at `endTs` (rounded down to the trace's own step) and scale its
 * values. Keeps the time of day of the original only if the caller passes an endTs with the same phase.
 */
export function shiftTrace(points: TracePoint[], endTs: number, scale = 1): TracePoint[] {
  const last = points[points.length - 1]!.ts;
  const delta = endTs - last;
  return points.map((p) => ({ ts: p.ts + delta, value: p.value * scale }));
}

function labelText(labels: Record<string, string>): string {
  const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
  return Object.keys(labels).sort().map((k) => `${k}="${esc(labels[k]!)}"`).join(',');
}

/** Running integral of cores over time (trapezoids), starting at `start` core-seconds. */
export function cumulativeCpuSeconds(points: TracePoint[], start = 0): number[] {
  const out: number[] = [];
  let acc = start;
  for (let i = 0; i < points.length; i++) {
    if (i > 0) {
      const a = points[i - 1]!;
      const b = points[i]!;
      acc += ((a.value + b.value) / 2) * (b.ts - a.ts);
    }
    out.push(acc);
  }
  return out;
}

export function toOpenMetrics(series: BackfillSeries[], gauges: readonly BackfillGauge[] = [], counters: readonly BackfillCounter[] = []): string {
  const lines: string[] = [];
  lines.push('# HELP container_cpu_usage_seconds Cumulative cpu time consumed in seconds.');
  lines.push('# TYPE container_cpu_usage_seconds counter');
  for (const s of series) {
    const l = labelText(s.labels);
    const cum = cumulativeCpuSeconds(s.cpu);
    s.cpu.forEach((p, i) => lines.push(`container_cpu_usage_seconds_total{${l}} ${cum[i]!.toFixed(6)} ${p.ts}`));
  }
  lines.push('# HELP container_memory_working_set_bytes Current working set in bytes.');
  lines.push('# TYPE container_memory_working_set_bytes gauge');
  for (const s of series) {
    if (!s.memory) continue;
    const l = labelText(s.labels);
    for (const p of s.memory) lines.push(`container_memory_working_set_bytes{${l}} ${Math.round(p.value)} ${p.ts}`);
  }
  // One family per gauge name, its series together (OpenMetrics wants a family's samples contiguous).
  for (const name of [...new Set(gauges.map((g) => g.name))]) {
    lines.push(`# TYPE ${name} gauge`);
    for (const g of gauges.filter((x) => x.name === name)) {
      const l = labelText(g.labels);
      for (const p of g.points) lines.push(`${name}{${l}} ${p.value} ${p.ts}`);
    }
  }
  for (const family of [...new Set(counters.map((c) => c.family))]) {
    lines.push(`# TYPE ${family} counter`);
    for (const c of counters.filter((x) => x.family === family)) {
      const l = labelText(c.labels);
      for (const p of c.points) lines.push(`${family}_total{${l}} ${p.value.toFixed(6)} ${p.ts}`);
    }
  }
  lines.push('# EOF');
  return `${lines.join('\n')}\n`;
}

/** The final counter value of a series, so a live exporter can continue it without a counter reset. */
export function finalCpuSeconds(s: BackfillSeries): number {
  const cum = cumulativeCpuSeconds(s.cpu);
  return cum[cum.length - 1] ?? 0;
}
