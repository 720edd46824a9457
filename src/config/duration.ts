// Durations as Kubernetes users write them: Go's time.ParseDuration units plus `d` (days) and `w`
// (weeks), which Crane and Prometheus accept for history windows ("15d").

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d|w)/y;

/** Parses "90s", "1h30m", "15d" into milliseconds; throws with the offending text on anything else. */
export function parseDurationMs(text: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  if (s.length === 0) throw new Error('empty duration');
  let sign = 1;
  let i = 0;
  if (s[0] === '-' || s[0] === '+') {
    sign = s[0] === '-' ? -1 : 1;
    i = 1;
  }
  let total = 0;
  let parts = 0;
  while (i < s.length) {
    PART.lastIndex = i;
    const m = PART.exec(s);
    if (!m) throw new Error(`invalid duration "${text}" (expected e.g. 30s, 5m, 1h30m, 15d)`);
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    i = PART.lastIndex;
    parts++;
  }
  if (parts === 0) throw new Error(`invalid duration "${text}"`);
  return sign * total;
}

/** Formats milliseconds the way Go's Duration.String does for whole seconds ("24h0m0s" → "24h"). */
export function formatDurationMs(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = rest / 1000;
  let out = '';
  if (h) out += `${h}h`;
  if (m) out += `${m}m`;
  if (s) out += `${s}s`;
  return (neg ? '-' : '') + out;
}
