// Differential test: our robfig-grammar parser and occurrence search (src/cron) against robfig/cron v3.0.1,
// the library Crane parses EHPA crons with (docs/crane-behaviour.md §C.5.4), on 3,000 seeded random expressions in
// zones without DST (where both define the same instants; DST handling deliberately differs, see
// src/cron/cron-window.ts). Validity must agree, and every next occurrence must be the same millisecond.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cronWindowActive, nextCronOccurrence, CronWindowError } from '../../src/cron/cron-window.ts';
import { mulberry32 } from '../helpers/seeded-random.ts';
import { requireGo } from './go-toolchain.ts';

const moduleDir = fileURLToPath(new URL('./robfig-cron/', import.meta.url));
const binary = join(homedir(), '.cache', 'ehpa-adapter', 'robfig-cron-oracle-v3.0.1', 'oracle');

function buildOracle(): void {
  requireGo();
  const source = join(moduleDir, 'main.go');
  if (existsSync(binary) && statSync(binary).mtimeMs >= statSync(source).mtimeMs) return;
  mkdirSync(join(binary, '..'), { recursive: true });
  const r = spawnSync('go', ['build', '-o', binary, '.'], { cwd: moduleDir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building the robfig oracle failed:\n${r.stderr}`);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function expressions(rand: () => number, n: number): string[] {
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const value = (lo: number, hi: number, names?: string[], nameBase = 0) => {
    // Mostly in range; sometimes one past either end, to compare rejections.
    const v = rand() < 0.04 ? pick([lo - 1, hi + 1]) : int(lo, hi);
    if (names && v >= nameBase && v - nameBase < names.length && rand() < 0.3) {
      const name = names[v - nameBase] as string;
      return rand() < 0.5 ? name.toUpperCase() : name;
    }
    return String(v);
  };
  const part = (lo: number, hi: number, names?: string[], nameBase = 0) => {
    switch (int(0, 7)) {
      case 0: return pick(['*', '?']);
      case 1: return `*/${int(1, 20)}`;
      case 2: {
        const a = int(lo, hi);
        const b = rand() < 0.85 ? int(a, hi) : int(lo, a);
        return `${value(a, a, names, nameBase)}-${value(b, b, names, nameBase)}`;
      }
      case 3: return `${value(lo, hi, names, nameBase)}-${value(lo, hi, names, nameBase)}/${int(1, 6)}`;
      case 4: return `${value(lo, hi, names, nameBase)}/${int(1, 15)}`;
      default: return value(lo, hi, names, nameBase);
    }
  };
  const field = (lo: number, hi: number, names?: string[], nameBase = 0) =>
    Array.from({ length: rand() < 0.75 ? 1 : int(2, 3) }, () => part(lo, hi, names, nameBase)).join(',');
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (rand() < 0.02) {
      out.push(pick(['@daily', '@hourly', '@weekly', '@monthly', '@yearly', '@midnight', '0 9 * * 7', '0 0 0 * * *', '* * *']));
      continue;
    }
    // Keep day-of-month mostly small, so Feb and 30-day months still match often.
    out.push([field(0, 59), field(0, 23), rand() < 0.5 ? pick(['*', '?']) : field(1, 31), rand() < 0.6 ? '*' : field(1, 12, MONTHS, 1), rand() < 0.5 ? pick(['*', '?']) : field(0, 6, DAYS, 0)].join(' '));
  }
  return out;
}

describe('cron occurrences vs robfig/cron v3.0.1 (Go oracle)', function () {
  this.timeout(600_000);
  it('agrees on validity and on every next occurrence (3,000 expressions, zones without DST)', function () {
    buildOracle();
    const rand = mulberry32(74);
    const zones = ['UTC', 'Asia/Kolkata', 'Asia/Kathmandu', 'Asia/Tokyo', 'Asia/Shanghai'];
    const queries = expressions(rand, 3000).map((expr) => ({
      expr,
      zone: zones[Math.floor(rand() * zones.length)] as string,
      afterMs: Date.UTC(2020, 0, 1) + Math.floor(rand() * 10 * 365 * 86_400_000) + (rand() < 0.2 ? 0 : Math.floor(rand() * 1000)),
    }));
    const r = spawnSync(binary, { input: queries.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(r.status, r.stderr).to.equal(0);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { nextMs?: number; error?: string });
    expect(answers).to.have.length(queries.length);
    const mismatches: string[] = [];
    let valid = 0;
    let invalid = 0;
    for (const [i, q] of queries.entries()) {
      const want = answers[i]!;
      let got: number | undefined;
      let err: string | undefined;
      try {
        got = nextCronOccurrence(q.expr, q.afterMs, q.zone);
      } catch (e) {
        if (!(e instanceof CronWindowError)) throw e;
        err = e.message;
      }
      if (want.error !== undefined) {
        invalid++;
        if (err === undefined) mismatches.push(`${q.expr}: robfig rejects (${want.error}), we accept`);
      } else if (want.nextMs === 0) {
        // robfig gives up after five years; we reject such an expression up front as never matching.
        if (!(err ?? '').includes('never matches') && got !== undefined) mismatches.push(`${q.expr}: robfig never matches, we say ${got}`);
      } else {
        valid++;
        if (err !== undefined) mismatches.push(`${q.expr}: robfig accepts, we reject (${err})`);
        else if (got !== want.nextMs) mismatches.push(`${q.expr} in ${q.zone} after ${new Date(q.afterMs).toISOString()}: robfig ${new Date(want.nextMs!).toISOString()}, ours ${got === undefined ? 'none' : new Date(got).toISOString()}`);
      }
    }
    expect(mismatches.slice(0, 20), `${mismatches.length} mismatches`).to.deep.equal([]);
    // The generator must exercise both sides.
    expect(valid).to.be.greaterThan(1500);
    expect(invalid).to.be.greaterThan(50);
  });

  // Descriptors (robfig parser.go parseDescriptor): exact names, `@every <Go duration>` (constantdelay.go:
  // at least 1 s, truncated to seconds, counted from the asked time's whole second), TZ= prefixes, and the
  // spellings robfig refuses (other case, stray spaces, Go-invalid durations).
  const DESCRIPTOR_EXPRS = [
    '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly',
    '@every 1h', '@every 90s', '@every 1h30m', '@every 1.5s', '@every 2.999s', '@every 100ms', '@every 0', '@every -5m',
    '@every 1µs', '@every 1us', '@every .5h', '@every 1h0m0.5s', '@every 3000000000ns', '@every 2562047h',
    '@every 1d', '@every 5', '@every ', '@every', '@every 1h ', '@every  1h', '@every 1H', '@every 9999999999h',
    '@Daily', '@HOURLY', '@daily ', ' @daily', '@fortnightly', '@', 'TZ=Asia/Tokyo @daily', 'CRON_TZ=UTC @every 5m',
    'TZ= 0 9 * * *', 'TZ=Asia/Kolkata 30 9 * * *',
  ];
  it('agrees on descriptors, @every and TZ= prefixes (validity and next occurrence)', function () {
    buildOracle();
    const rand = mulberry32(75);
    const queries = DESCRIPTOR_EXPRS.flatMap((expr) =>
      Array.from({ length: 4 }, () => ({ expr, zone: 'UTC', afterMs: Date.UTC(2020, 0, 1) + Math.floor(rand() * 10 * 365 * 86_400_000) + Math.floor(rand() * 1000) })));
    const r = spawnSync(binary, { input: queries.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { nextMs?: number; error?: string });
    const mismatches: string[] = [];
    let valid = 0;
    for (const [i, q] of queries.entries()) {
      const want = answers[i]!;
      let got: number | undefined;
      let err: string | undefined;
      try {
        got = nextCronOccurrence(q.expr, q.afterMs, q.zone);
      } catch (e) {
        if (!(e instanceof CronWindowError)) throw e;
        err = e.message;
      }
      if (want.error !== undefined) {
        if (err === undefined) mismatches.push(`${JSON.stringify(q.expr)}: robfig rejects (${want.error}), we accept`);
      } else {
        valid++;
        if (err !== undefined) mismatches.push(`${JSON.stringify(q.expr)}: robfig accepts, we reject (${err})`);
        else if (got !== want.nextMs) mismatches.push(`${JSON.stringify(q.expr)} after ${q.afterMs}: robfig ${want.nextMs}, ours ${got}`);
      }
    }
    expect(mismatches, `${mismatches.length} mismatches`).to.deep.equal([]);
    expect(valid).to.be.greaterThan(80);
  });

  // Where the window follows Crane's rule itself (an @every side, or start and end naming the same
  // instants), the answer must be Crane's cron_trigger.go IsActive: nextEnd <= nextStart, both from robfig.
  it('the cron window equals Crane\'s IsActive rule where it follows it (@every, start == end)', function () {
    buildOracle();
    const pairs: [string, string][] = [
      ['@every 1h', '0 17 * * *'], ['0 9 * * *', '@every 30m'], ['@every 1m', '@every 2m'], ['@every 2m', '@every 1m'],
      ['@every 90s', '@every 1m30s'], ['0 9 * * *', '0 9 ? * *'], ['@daily', '0 0 * * *'], ['*/15 * * * *', '0,15,30,45 * * * *'],
      ['@every 6h', '@hourly'], ['@hourly', '@every 45m'],
    ];
    const rand = mulberry32(76);
    const cases = pairs.flatMap(([start, end]) =>
      Array.from({ length: 25 }, () => ({ start, end, nowMs: Date.UTC(2026, 0, 1) + Math.floor(rand() * 30 * 86_400_000) + (rand() < 0.3 ? 0 : Math.floor(rand() * 1000)) })));
    const queries = cases.flatMap((c) => [{ expr: c.start, zone: 'UTC', afterMs: c.nowMs }, { expr: c.end, zone: 'UTC', afterMs: c.nowMs }]);
    const r = spawnSync(binary, { input: queries.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { nextMs?: number });
    const mismatches: string[] = [];
    let active = 0;
    for (const [i, c] of cases.entries()) {
      const nextStart = answers[2 * i]!.nextMs!;
      const nextEnd = answers[2 * i + 1]!.nextMs!;
      const crane = nextEnd <= nextStart;
      if (crane) active++;
      const ours = cronWindowActive({ start: c.start, end: c.end }, c.nowMs, 'UTC');
      if (ours !== crane) mismatches.push(`${c.start} → ${c.end} at ${new Date(c.nowMs).toISOString()}: Crane ${crane}, ours ${ours}`);
    }
    expect(mismatches, `${mismatches.length} mismatches`).to.deep.equal([]);
    // Both answers occur.
    expect(active).to.be.greaterThan(20);
    expect(active).to.be.lessThan(cases.length - 20);
  });
});
