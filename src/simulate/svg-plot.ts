// A hand-written SVG chart of a replay: the observed CPU and the forecast on top, both autoscalers'
// replica counts below, and strips marking when each was under-provisioned. No dependencies; every
// series is one <path> with an id (series-usage, series-forecast, series-forecast-window-max,
// series-ehpa-replicas, series-plain-replicas) so tools and tests can find them. Long replays (months at
// one-minute steps) are drawn from at most a few thousand points: past MAX_LINE_POINTS a path keeps, per
// pixel column, the lowest and the highest point, so spikes stay visible; nothing spreads an array into
// arguments (Math.max(...steps) overflows the stack near 100,000 values).
import type { SimulationSummary } from './summary.ts';
import type { SimulationStep } from './simulate.ts';

// Exported with linePath/timeValueAxis so other charts (scripts/demo) share the look and the arithmetic.
export const WIDTH = 1200;
export const LEFT = 70;
export const RIGHT = 20;
const TOP_PANEL = { y: 60, h: 300 };
const BOTTOM_PANEL = { y: 420, h: 220 };
const STRIPS_Y = 660;
const HEIGHT = 720;

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

/** Round tick step (1, 2, 5 × 10^k) giving about `count` ticks over [0, max]. */
export function niceStep(max: number, count = 5): number {
  if (!(max > 0)) return 1;
  const raw = max / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function utcLabel(t: number): string {
  const d = new Date(t * 1000).toISOString();
  return `${d.slice(5, 10)} ${d.slice(11, 16)}`;
}

const fmt = (x: number) => (Math.round(x * 10) / 10).toString();

export interface Scale {
  x: (t: number) => number;
}

/** Above this many points a path is downsampled per pixel column (min and max kept). */
export const MAX_LINE_POINTS = 4000;

interface Point {
  t: number;
  v: number | null;
}

/**
 * Per pixel column (the integer part of sx.x(t)): the lowest and the highest point, in time order (one
 * point when they coincide), with a gap before them when the column starts with missing values and after
 * them when a value is missing later in the column. Pure and linear in time.
 */
export function downsamplePerColumn<T extends { t: number }>(steps: readonly T[], sx: Scale, value: (s: T) => number | null): Point[] {
  const out: Point[] = [];
  let column: number | undefined;
  let lo: Point | undefined;
  let hi: Point | undefined;
  let gapBefore: Point | undefined;
  let gapAfter: Point | undefined;
  const flush = () => {
    if (gapBefore) out.push(gapBefore);
    if (lo && hi) {
      if (lo === hi) out.push(lo);
      else if (lo.t <= hi.t) out.push(lo, hi);
      else out.push(hi, lo);
    }
    if (gapAfter) out.push(gapAfter);
    lo = hi = gapBefore = gapAfter = undefined;
  };
  for (const s of steps) {
    const c = Math.floor(sx.x(s.t));
    if (c !== column) {
      flush();
      column = c;
    }
    const v = value(s);
    if (v === null || !Number.isFinite(v)) {
      if (!lo) gapBefore ??= { t: s.t, v: null };
      else gapAfter ??= { t: s.t, v: null };
      continue;
    }
    const p = { t: s.t, v };
    if (!lo || v < (lo.v as number)) lo = p;
    if (!hi || v > (hi.v as number)) hi = p;
  }
  flush();
  return out;
}

/**
 * One SVG path through the points' values (gaps where `value` is null); `stepped` draws a step chart. More
 * than `maxPoints` points are downsampled per pixel column first (downsamplePerColumn).
 */
export function linePath<T extends { t: number }>(
  steps: readonly T[],
  sx: Scale,
  y: (v: number) => number,
  value: (s: T) => number | null,
  stepped: boolean,
  maxPoints = MAX_LINE_POINTS,
): string {
  if (steps.length > maxPoints) {
    return linePath(downsamplePerColumn(steps, sx, value), sx, y, (p) => p.v, stepped, Infinity);
  }
  let d = '';
  let pen = false;
  for (const s of steps) {
    const v = value(s);
    if (v === null || !Number.isFinite(v)) {
      pen = false;
      continue;
    }
    const px = fmt(sx.x(s.t));
    const py = fmt(y(v));
    if (!pen) d += `M${px} ${py}`;
    else if (stepped) d += `H${px}V${py}`;
    else d += `L${px} ${py}`;
    pen = true;
  }
  return d || 'M0 0';
}

/** Grid, value ticks, UTC time ticks (minutes to weeks, about ten), frame and label of one panel. */
export function timeValueAxis(panel: { y: number; h: number }, max: number, label: string, sx: Scale, from: number, to: number): string[] {
  const out: string[] = [];
  const step = niceStep(max);
  const y = (v: number) => panel.y + panel.h - (v / max) * panel.h;
  for (let v = 0; v <= max + 1e-9; v += step) {
    out.push(`<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${fmt(y(v))}" y2="${fmt(y(v))}"/>`);
    out.push(`<text class="tick" x="${LEFT - 6}" y="${fmt(y(v) + 4)}" text-anchor="end">${fmt(v)}</text>`);
  }
  const span = Math.max(1, to - from);
  const tickEvery = [60, 300, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400, 2 * 86_400, 7 * 86_400].find((s) => span / s <= 10) ?? 14 * 86_400;
  for (let t = Math.ceil(from / tickEvery) * tickEvery; t <= to; t += tickEvery) {
    const x = fmt(sx.x(t));
    out.push(`<line class="grid" x1="${x}" x2="${x}" y1="${panel.y}" y2="${panel.y + panel.h}"/>`);
    out.push(`<text class="tick" x="${x}" y="${panel.y + panel.h + 16}" text-anchor="middle">${utcLabel(t)}</text>`);
  }
  out.push(`<rect class="frame" x="${LEFT}" y="${panel.y}" width="${WIDTH - LEFT - RIGHT}" height="${panel.h}"/>`);
  out.push(`<text class="axis-label" x="16" y="${panel.y + panel.h / 2}" transform="rotate(-90 16 ${panel.y + panel.h / 2})" text-anchor="middle">${escapeXml(label)}</text>`);
  return out;
}

/** Rectangles over the runs of steps where `on` holds (runs closer than a pixel merge). */
function runRects(steps: readonly SimulationStep[], sx: Scale, on: (s: SimulationStep) => boolean, y: number, height: number, stepSeconds: number): string {
  const rects: string[] = [];
  let start: number | undefined;
  let prev = 0;
  // Runs closer than a pixel merge, so a long replay's strip stays a few hundred rectangles.
  const runs: [number, number][] = [];
  const flush = (end: number) => {
    if (start === undefined) return;
    const x0 = sx.x(start);
    const x1 = Math.max(x0 + 1, sx.x(end));
    const last = runs[runs.length - 1];
    if (last && x0 <= last[1] + 1) last[1] = Math.max(last[1], x1);
    else runs.push([x0, x1]);
    start = undefined;
  };
  for (const s of steps) {
    if (on(s)) {
      if (start === undefined || s.t - prev > stepSeconds) {
        flush(prev + stepSeconds);
        start = s.t;
      }
      prev = s.t;
    } else flush(prev + stepSeconds);
  }
  flush(prev + stepSeconds);
  for (const [x0, x1] of runs) rects.push(`<rect x="${fmt(x0)}" y="${y}" width="${fmt(x1 - x0)}" height="${height}"/>`);
  return rects.join('');
}

function strips(steps: readonly SimulationStep[], sx: Scale, which: 'ehpa' | 'plain', y: number, stepSeconds: number): string {
  return `<g id="under-${which}" class="under">${runRects(steps, sx, (s) => s[which].underProvisioned, y, 10, stepSeconds)}</g>`;
}

export interface PlotOptions {
  title: string;
  stepSeconds: number;
  perPodTargetCores: number;
  /** The replay's summary: its figures are printed under the title, so a chart shared alone says what it shows. */
  summary?: SimulationSummary;
}

const n1 = (x: number) => String(Math.round(x * 10) / 10);

/** One line of the summary's figures: what each policy cost and how long it was short. */
export function summaryLine(s: SimulationSummary): string {
  const side = (name: string, r: SimulationSummary['ehpa']) => `${name}: ${n1(r.underProvisionedMinutes)} short min, ${n1(r.replicaHours)} replica-h (avg ${n1(r.averageReplicas)})`;
  const aside = s.stepsSteppedAside ? `; forecast stepped aside on ${Math.round((100 * s.stepsSteppedAside) / Math.max(1, s.steps))} % of steps` : '';
  const none = s.stepsWithoutForecast ? `; no forecast on ${Math.round((100 * s.stepsWithoutForecast) / Math.max(1, s.steps))} %` : '';
  return `${side('EHPA', s.ehpa)} · ${side('plain HPA', s.plain)}${aside}${none}`;
}

export function renderSvg(steps: readonly SimulationStep[], o: PlotOptions): string {
  const from = steps[0]?.t ?? 0;
  const to = steps[steps.length - 1]?.t ?? from + 1;
  const sx: Scale = { x: (t) => LEFT + ((t - from) / Math.max(1, to - from)) * (WIDTH - LEFT - RIGHT) };
  // Loops, not Math.max(...array): spreading ~100,000 values overflows the call stack.
  let cpuPeak = 1e-9;
  let repPeak = 1;
  for (const s of steps) {
    for (const v of [s.usageCores, s.forecastCores ?? 0, s.forecastWindowMaxCores ?? 0]) if (Number.isFinite(v) && v > cpuPeak) cpuPeak = v;
    repPeak = Math.max(repPeak, s.ehpa.replicas, s.plain.replicas);
  }
  const cpuMax = cpuPeak * 1.08;
  const repMax = repPeak * 1.1;
  const yCpu = (v: number) => TOP_PANEL.y + TOP_PANEL.h - (v / cpuMax) * TOP_PANEL.h;
  const yRep = (v: number) => BOTTOM_PANEL.y + BOTTOM_PANEL.h - (v / repMax) * BOTTOM_PANEL.h;
  const legend = [
    ['usage', 'observed CPU (cores)'],
    ['forecast', 'forecast (cores)'],
    ['window-max', 'forecast max over window (cores)'],
    ['ehpa', 'EHPA replicas'],
    ['plain', 'plain CPU HPA replicas'],
  ]
    .reduce<{ x: number; svg: string }>(
      (acc, [cls, text]) => ({
        // ~6.6 px per character at 12 px sans-serif, plus the swatch and a gap.
        x: acc.x + 30 + (text as string).length * 6.6 + 24,
        svg: acc.svg + `<g transform="translate(${fmt(acc.x)} 40)"><line class="${cls}" x1="0" x2="24" y1="0" y2="0"/><text x="30" y="4">${text}</text></g>`,
      }),
      { x: LEFT, svg: '' },
    ).svg;
  const parts = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<style>.grid{stroke:#e5e5e5;stroke-width:1}.frame{fill:none;stroke:#888}.tick{fill:#444;font-size:11px}.axis-label{fill:#222}` +
      `.usage{stroke:#1f77b4;fill:none;stroke-width:1.2}.forecast{stroke:#ff7f0e;fill:none;stroke-width:1.2}` +
      `.window-max{stroke:#ffbb78;fill:none;stroke-width:1;stroke-dasharray:4 3}.ehpa{stroke:#2ca02c;fill:none;stroke-width:1.6}` +
      `.plain{stroke:#7f7f7f;fill:none;stroke-width:1.6;stroke-dasharray:6 3}.under rect{fill:#d62728;opacity:0.7}.cron rect{fill:#9ecae1;opacity:0.35}</style>`,
    `<rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${LEFT}" y="22" font-size="15" font-weight="bold">${escapeXml(o.title)}</text>`,
    ...(o.summary ? [`<text id="summary" x="${WIDTH - RIGHT}" y="22" text-anchor="end" class="tick">${escapeXml(summaryLine(o.summary))}</text>`] : []),
    legend,
    ...timeValueAxis(TOP_PANEL, cpuMax, 'CPU (cores)', sx, from, to),
    ...timeValueAxis(BOTTOM_PANEL, repMax, 'replicas', sx, from, to),
    // Cron windows shade the replica panel, behind the curves: the replicas they hold are the cron's, not the forecast's.
    `<g id="cron-windows" class="cron">${runRects(steps, sx, (s) => s.cronActive === true, BOTTOM_PANEL.y, BOTTOM_PANEL.h, o.stepSeconds)}</g>`,
    `<path id="series-usage" class="usage" d="${linePath(steps, sx, yCpu, (s) => s.usageCores, false)}"/>`,
    `<path id="series-forecast-window-max" class="window-max" d="${linePath(steps, sx, yCpu, (s) => s.forecastWindowMaxCores, true)}"/>`,
    `<path id="series-forecast" class="forecast" d="${linePath(steps, sx, yCpu, (s) => s.forecastCores, false)}"/>`,
    `<path id="series-plain-replicas" class="plain" d="${linePath(steps, sx, yRep, (s) => s.plain.replicas, true)}"/>`,
    `<path id="series-ehpa-replicas" class="ehpa" d="${linePath(steps, sx, yRep, (s) => s.ehpa.replicas, true)}"/>`,
    `<text x="${LEFT}" y="${STRIPS_Y + 9}" text-anchor="end" class="tick" dx="-6">EHPA short</text>`,
    strips(steps, sx, 'ehpa', STRIPS_Y, o.stepSeconds),
    `<text x="${LEFT}" y="${STRIPS_Y + 27}" text-anchor="end" class="tick" dx="-6">HPA short</text>`,
    strips(steps, sx, 'plain', STRIPS_Y + 18, o.stepSeconds),
    `<text x="${WIDTH - RIGHT}" y="${HEIGHT - 8}" text-anchor="end" class="tick">red: demand above replicas × ${fmt(o.perPodTargetCores * 1000) }m per pod (under-provisioned); blue: cron windows; times UTC</text>`,
    `</svg>`,
  ];
  return parts.join('\n') + '\n';
}
