// The value evaluation's chart for one trace: x replica-hours, y short minutes; per pod start-up, the plain-HPA
// frontier as a line through its targets (labelled) and the EHPA in auto and crane mode as marked points.
// Hand-written SVG like src/simulate/svg-plot.ts, whose helpers it shares.
import { escapeXml, niceStep } from '../src/simulate/svg-plot.ts';
import type { FrontierPoint, ValuePoint } from '../src/simulate/frontier.ts';

export interface ChartSeries {
  /** e.g. "start-up 0 s". */
  label: string;
  frontier: readonly FrontierPoint[];
  auto: ValuePoint | null;
  crane: ValuePoint | null;
}

const W = 960;
const H = 600;
const L = 80;
const R = 200;
const T = 50;
const B = 60;
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b'];
const fmt = (x: number) => (Math.round(x * 10) / 10).toString();

export function frontierChart(title: string, series: readonly ChartSeries[], note = ''): string {
  const points: ValuePoint[] = series.flatMap((s) => [...s.frontier, ...(s.auto ? [s.auto] : []), ...(s.crane ? [s.crane] : [])]);
  let xLo = Infinity;
  let xHi = -Infinity;
  let yHi = 0;
  for (const p of points) {
    xLo = Math.min(xLo, p.replicaHours);
    xHi = Math.max(xHi, p.replicaHours);
    yHi = Math.max(yHi, p.shortMinutes);
  }
  if (!Number.isFinite(xLo)) {
    xLo = 0;
    xHi = 1;
  }
  const pad = Math.max(1e-6, (xHi - xLo) * 0.05);
  xLo = Math.max(0, xLo - pad);
  xHi = xHi + pad;
  yHi = Math.max(1, yHi * 1.08);
  const x = (v: number) => L + ((v - xLo) / (xHi - xLo)) * (W - L - R);
  const y = (v: number) => T + (H - T - B) - (v / yHi) * (H - T - B);
  const out: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<style>.grid{stroke:#e5e5e5}.frame{fill:none;stroke:#888}.tick{fill:#444;font-size:11px}.lbl{font-size:10px}</style>`,
    `<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${L}" y="22" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  if (note) out.push(`<text x="${L}" y="40" class="tick">${escapeXml(note)}</text>`);
  const yStep = niceStep(yHi);
  for (let v = 0; v <= yHi + 1e-9; v += yStep) {
    out.push(`<line class="grid" x1="${L}" x2="${W - R}" y1="${fmt(y(v))}" y2="${fmt(y(v))}"/>`);
    out.push(`<text class="tick" x="${L - 6}" y="${fmt(y(v) + 4)}" text-anchor="end">${fmt(v)}</text>`);
  }
  const xStep = niceStep(xHi - xLo, 8);
  for (let v = Math.ceil(xLo / xStep) * xStep; v <= xHi + 1e-9; v += xStep) {
    out.push(`<line class="grid" x1="${fmt(x(v))}" x2="${fmt(x(v))}" y1="${T}" y2="${H - B}"/>`);
    out.push(`<text class="tick" x="${fmt(x(v))}" y="${H - B + 16}" text-anchor="middle">${fmt(v)}</text>`);
  }
  out.push(`<rect class="frame" x="${L}" y="${T}" width="${W - L - R}" height="${H - T - B}"/>`);
  out.push(`<text x="${(L + W - R) / 2}" y="${H - 16}" text-anchor="middle">replica-hours (every pod, ready or starting)</text>`);
  out.push(`<text x="18" y="${(T + H - B) / 2}" transform="rotate(-90 18 ${(T + H - B) / 2})" text-anchor="middle">short minutes (usage &gt; ready replicas × the EHPA's per-pod target)</text>`);
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length] as string;
    const sorted = [...s.frontier].sort((a, b) => b.target - a.target);
    const d = sorted.map((p, k) => `${k ? 'L' : 'M'}${fmt(x(p.replicaHours))} ${fmt(y(p.shortMinutes))}`).join('');
    out.push(`<g id="series-${i}" class="startup">`);
    out.push(`<path class="frontier" d="${d || 'M0 0'}" fill="none" stroke="${color}" stroke-width="1.6"/>`);
    for (const p of sorted) {
      out.push(`<circle cx="${fmt(x(p.replicaHours))}" cy="${fmt(y(p.shortMinutes))}" r="2.5" fill="${color}"/>`);
      out.push(`<text class="lbl" x="${fmt(x(p.replicaHours) + 4)}" y="${fmt(y(p.shortMinutes) - 4)}" fill="${color}">${p.target}%</text>`);
    }
    if (s.auto) {
      out.push(`<circle class="ehpa-auto" cx="${fmt(x(s.auto.replicaHours))}" cy="${fmt(y(s.auto.shortMinutes))}" r="6" fill="none" stroke="${color}" stroke-width="2.5"/>`);
      out.push(`<text class="lbl" x="${fmt(x(s.auto.replicaHours) + 8)}" y="${fmt(y(s.auto.shortMinutes) + 4)}" fill="${color}" font-weight="bold">auto</text>`);
    }
    if (s.crane) {
      out.push(`<rect class="ehpa-crane" x="${fmt(x(s.crane.replicaHours) - 5)}" y="${fmt(y(s.crane.shortMinutes) - 5)}" width="10" height="10" fill="none" stroke="${color}" stroke-width="2.5"/>`);
      out.push(`<text class="lbl" x="${fmt(x(s.crane.replicaHours) + 8)}" y="${fmt(y(s.crane.shortMinutes) + 14)}" fill="${color}" font-weight="bold">crane</text>`);
    }
    out.push(`</g>`);
    const ly = T + 10 + i * 20;
    out.push(`<line x1="${W - R + 14}" x2="${W - R + 38}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/><text x="${W - R + 44}" y="${ly + 4}">${escapeXml(s.label)}</text>`);
  });
  const ly = T + 10 + series.length * 20 + 10;
  out.push(`<text x="${W - R + 14}" y="${ly}" class="tick">line: plain HPAs, target %</text>`);
  out.push(`<text x="${W - R + 14}" y="${ly + 16}" class="tick">○ EHPA auto estimators</text>`);
  out.push(`<text x="${W - R + 14}" y="${ly + 32}" class="tick">□ EHPA crane estimators</text>`);
  out.push(`</svg>`);
  return out.join('\n') + '\n';
}
