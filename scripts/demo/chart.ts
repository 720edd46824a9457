// The demo's chart (pure): on top, the workload's CPU over the last hours from Prometheus (backfilled
// history, then the live usage) with the TimeSeriesPrediction's forecast running ahead of now; below, the
// minutes of the demo: what the real HPA wanted and had, the cron value, and the replicas the forecast
// alone asks for. Shares axes, paths and escaping with `simulate`'s chart. Every series is a <path> with an
// id (series-history, series-forecast, series-desired-replicas, series-current-replicas, series-cron,
// series-forecast-replicas) so tests can find them.
import { escapeXml, LEFT, linePath, RIGHT, timeValueAxis, WIDTH, type Scale } from '../../src/simulate/svg-plot.ts';
import type { Tick } from './observe.ts';

const TOP = { y: 80, h: 270 };
const BOTTOM = { y: 450, h: 230 };
const HEIGHT = 740;

export interface Point {
  t: number;
  v: number;
}

export interface DemoChartInput {
  title: string;
  history: Point[];
  forecast: Point[];
  ticks: Tick[];
  cron: { startS: number; endS: number; targetReplicas: number };
  perPodTargetCores: number;
}

const fmt = (x: number) => (Math.round(x * 10) / 10).toString();

function legend(y: number, items: [string, string][]): string {
  let x = LEFT;
  let svg = '';
  for (const [cls, text] of items) {
    svg += `<g transform="translate(${fmt(x)} ${y})"><line class="${cls}" x1="0" x2="24" y1="0" y2="0"/><text x="30" y="4">${escapeXml(text)}</text></g>`;
    x += 30 + text.length * 6.6 + 24;
  }
  return svg;
}

function band(sx: Scale, panel: { y: number; h: number }, from: number, to: number, cls: string, label: string): string {
  const x0 = Math.max(LEFT, sx.x(from));
  const x1 = Math.min(WIDTH - RIGHT, sx.x(to));
  if (!(x1 > x0)) return '';
  return `<rect class="${cls}" x="${fmt(x0)}" y="${panel.y}" width="${fmt(x1 - x0)}" height="${panel.h}"/>` +
    `<text class="band-label" x="${fmt(x0 + 3)}" y="${panel.y + 12}">${escapeXml(label)}</text>`;
}

export function renderDemoSvg(o: DemoChartInput): string {
  const t0 = o.ticks[0]?.t ?? 0;
  const tEnd = o.ticks[o.ticks.length - 1]?.t ?? t0 + 1;
  // Top panel: hours of history, then the forecast; bottom panel: the demo's minutes.
  const topFrom = Math.min(o.history[0]?.t ?? t0, t0);
  const topTo = Math.max(tEnd, o.forecast[o.forecast.length - 1]?.t ?? tEnd);
  const sxTop: Scale = { x: (t) => LEFT + ((t - topFrom) / Math.max(1, topTo - topFrom)) * (WIDTH - LEFT - RIGHT) };
  const sxBottom: Scale = { x: (t) => LEFT + ((t - t0) / Math.max(1, tEnd - t0)) * (WIDTH - LEFT - RIGHT) };
  const cpuMax = Math.max(1e-3, ...o.history.map((p) => p.v), ...o.forecast.map((p) => p.v)) * 1.1;
  const forecastReplicas = (k: Tick) => (k.forecastMaxCores === null ? null : Math.ceil(k.forecastMaxCores / o.perPodTargetCores - 1e-9));
  const repMax = Math.max(1, o.cron.targetReplicas, ...o.ticks.flatMap((k) => [k.desiredReplicas ?? 0, k.currentReplicas ?? 0, forecastReplicas(k) ?? 0])) * 1.15;
  const yCpu = (v: number) => TOP.y + TOP.h - (v / cpuMax) * TOP.h;
  const yRep = (v: number) => BOTTOM.y + BOTTOM.h - (v / repMax) * BOTTOM.h;
  const parts = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<style>.grid{stroke:#e5e5e5;stroke-width:1}.frame{fill:none;stroke:#888}.tick{fill:#444;font-size:11px}.axis-label{fill:#222}` +
      `.history{stroke:#1f77b4;fill:none;stroke-width:1.2}.forecast{stroke:#ff7f0e;fill:none;stroke-width:1.6}` +
      `.desired{stroke:#2ca02c;fill:none;stroke-width:2}.current{stroke:#222;fill:none;stroke-width:1.4;stroke-dasharray:5 3}` +
      `.cron{stroke:#9467bd;fill:none;stroke-width:1.4;stroke-dasharray:2 2}.forecast-replicas{stroke:#ff7f0e;fill:none;stroke-width:1.4;stroke-dasharray:6 3}` +
      `.demo-band{fill:#eeeeee}.cron-band{fill:#9467bd;opacity:0.15}.band-label{fill:#555;font-size:10px}.panel-title{font-weight:bold}</style>`,
    `<rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${LEFT}" y="22" font-size="15" font-weight="bold">${escapeXml(o.title)}</text>`,
    `<text class="panel-title" x="${LEFT}" y="46">CPU of the workload: Prometheus history and live usage, and the TimeSeriesPrediction forecast</text>`,
    legend(64, [['history', 'observed CPU (cores, Prometheus)'], ['forecast', 'forecast (cores, TSP status at the end)']]),
    band(sxTop, TOP, t0, tEnd, 'demo-band', 'demo'),
    band(sxTop, TOP, o.cron.startS, o.cron.endS, 'cron-band', ''),
    ...timeValueAxis(TOP, cpuMax, 'CPU (cores)', sxTop, topFrom, topTo),
    `<path id="series-history" class="history" d="${linePath(o.history, sxTop, yCpu, (p) => p.v, false)}"/>`,
    `<path id="series-forecast" class="forecast" d="${linePath(o.forecast, sxTop, yCpu, (p) => p.v, false)}"/>`,
    `<text class="panel-title" x="${LEFT}" y="${BOTTOM.y - 34}">During the demo: what the real HPA decided</text>`,
    legend(BOTTOM.y - 16, [
      ['desired', 'HPA desiredReplicas'], ['current', 'currentReplicas'], ['cron', 'cron metric (replicas)'],
      ['forecast-replicas', 'forecast max ÷ per-pod target'],
    ]),
    band(sxBottom, BOTTOM, o.cron.startS, o.cron.endS, 'cron-band', `cron window → ${o.cron.targetReplicas} replicas`),
    ...timeValueAxis(BOTTOM, repMax, 'replicas', sxBottom, t0, tEnd),
    `<path id="series-forecast-replicas" class="forecast-replicas" d="${linePath(o.ticks, sxBottom, yRep, forecastReplicas, true)}"/>`,
    `<path id="series-cron" class="cron" d="${linePath(o.ticks, sxBottom, yRep, (k) => (k.cronActive ? k.cronValue : null), true)}"/>`,
    `<path id="series-current-replicas" class="current" d="${linePath(o.ticks, sxBottom, yRep, (k) => k.currentReplicas, true)}"/>`,
    // desiredReplicas is 0 until the HPA's first computation: no decision yet, not a decision for zero.
    `<path id="series-desired-replicas" class="desired" d="${linePath(o.ticks, sxBottom, yRep, (k) => (k.desiredReplicas ? k.desiredReplicas : null), true)}"/>`,
    `<text x="${WIDTH - RIGHT}" y="${HEIGHT - 10}" text-anchor="end" class="tick">per-pod target ${fmt(o.perPodTargetCores * 1000)}m; times UTC</text>`,
    `</svg>`,
  ];
  return parts.join('\n') + '\n';
}
