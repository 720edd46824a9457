// Regenerates the reference parts of docs/operations.md from the code, so they cannot drift:
//   - the flag table of every command (from the Command specs in src/cli/commands.ts, plus flag sets that
//     exist but are not wired into `serve` yet, listed separately until they are);
//   - every `ehpa_adapter_*` Prometheus metric defined in src/ (prom-client Counter/Gauge/Histogram/Summary).
//     The default process/runtime metrics depend on the Node and prom-client versions, so the doc describes
//     them by family and defaultMetricDefinitions() lists them at run time (the Grafana test uses it).
// Usage: `node --import tsx scripts/gen-flag-docs.ts` rewrites the doc; `--check` exits 1 when it is stale.
// test/unit/docs/operations-doc.test.ts runs the check, so adding a flag or a metric means re-running this.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { COMMANDS } from '../src/cli/commands.ts';
import type { LoadedCommand } from '../src/cli/command.ts';
import type { FlagSpec } from '../src/config/flags.ts';
import { ADAPTER_FLAGS } from '../src/adapter/flags.ts';
import { METRIC_PREFIX, createMetricsRegistry } from '../src/observability/metrics-registry.ts';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const OPERATIONS_DOC = join(ROOT, 'docs', 'operations.md');

/** Flag sets defined in the code but not (yet) part of a command; shown apart until they are wired in. */
const PENDING_FLAG_SETS: { command: string; source: string; flags: readonly FlagSpec[] }[] = [
  { command: 'serve', source: 'src/adapter/flags.ts', flags: ADAPTER_FLAGS },
];

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function flagType(f: FlagSpec): string {
  if (f.type === 'enum') return (f.values ?? []).join(' \\| ');
  return f.type;
}

function flagDefault(f: FlagSpec): string {
  return f.default === undefined ? '' : `\`${String(f.default)}\``;
}

function flagTable(flags: readonly FlagSpec[]): string[] {
  const rows = ['| Flag | Type | Default | Meaning |', '|---|---|---|---|'];
  for (const f of flags) rows.push(`| \`--${f.name}\` | ${flagType(f)} | ${flagDefault(f)} | ${cell(f.help)} |`);
  return rows;
}

export function renderFlagDocs(commands: readonly LoadedCommand[] = COMMANDS): string {
  const out: string[] = [];
  for (const c of commands) {
    out.push(`### \`ehpa-adapter ${c.name}\``, '', `${cell(c.summary)}.`, '');
    if (c.flags.length === 0) out.push('No flags.', '');
    else out.push(...flagTable(c.flags), '');
    for (const p of PENDING_FLAG_SETS.filter((s) => s.command === c.name)) {
      const have = new Set(c.flags.map((f) => f.name));
      const missing = p.flags.filter((f) => !have.has(f.name));
      if (missing.length === 0) continue;
      out.push(
        `Defined in \`${p.source}\` and joined into \`${c.name}\` when that part is wired in (not accepted by this build's \`${c.name}\` yet):`,
        '',
        ...flagTable(missing),
        '',
      );
    }
  }
  return out.join('\n').trimEnd();
}

export interface MetricDefinition {
  name: string;
  type: string;
  help: string;
  labels: string[];
  source: string;
}

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

/** The object literal starting at `open` (a `{`), by brace matching outside strings. */
function objectLiteral(text: string, open: number): string {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

function stringField(obj: string, field: string): string | undefined {
  const m = new RegExp(`\\b${field}:\\s*(['"\`])((?:\\\\.|(?!\\1).)*)\\1`).exec(obj);
  return m ? (m[2] as string).replace(/\\(.)/g, '$1').replace(/\$\{METRIC_PREFIX\}/g, METRIC_PREFIX) : undefined;
}

/** Every prom-client metric constructed in src/ (Counter, Gauge, Histogram, Summary) with a literal name. */
export function scanMetricDefinitions(srcDir = join(ROOT, 'src')): MetricDefinition[] {
  const out: MetricDefinition[] = [];
  for (const file of tsFiles(srcDir)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/new (Counter|Gauge|Histogram|Summary)(?:<[^>]*>)?\(\s*\{/g)) {
      const obj = objectLiteral(text, (m.index as number) + m[0].length - 1);
      const name = stringField(obj, 'name');
      if (!name) continue;
      const labels = /\blabelNames:\s*\[([^\]]*)\]/.exec(obj)?.[1]?.match(/['"`]([^'"`]+)['"`]/g)?.map((s) => s.slice(1, -1)) ?? [];
      out.push({ name, type: (m[1] as string).toLowerCase(), help: stringField(obj, 'help') ?? '', labels, source: relative(ROOT, file) });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** prom-client's default process/runtime metrics as our registry names them. */
export async function defaultMetricDefinitions(): Promise<MetricDefinition[]> {
  const json = await createMetricsRegistry().getMetricsAsJSON();
  return json
    .map((m) => ({ name: m.name, type: String(m.type), help: m.help, labels: [], source: 'prom-client collectDefaultMetrics' }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Series names a metric exposes (histograms and summaries add suffixes). */
export function exposedSeries(d: MetricDefinition): string[] {
  if (d.type === 'histogram') return [d.name, `${d.name}_bucket`, `${d.name}_sum`, `${d.name}_count`];
  if (d.type === 'summary') return [d.name, `${d.name}_sum`, `${d.name}_count`];
  return [d.name];
}

export function renderMetricDocs(): string {
  const rows = ['| Metric | Type | Labels | Meaning | Defined in |', '|---|---|---|---|---|'];
  for (const d of scanMetricDefinitions()) {
    rows.push(`| \`${d.name}\` | ${d.type} | ${d.labels.map((l) => `\`${l}\``).join(', ')} | ${cell(d.help)} | \`${d.source}\` |`);
  }
  return rows.join('\n');
}

export function replaceGenerated(doc: string, section: string, content: string): string {
  const begin = `<!-- BEGIN GENERATED ${section} (scripts/gen-flag-docs.ts) -->`;
  const end = `<!-- END GENERATED ${section} -->`;
  const i = doc.indexOf(begin);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`docs/operations.md has no "${begin}" … "${end}" block`);
  return `${doc.slice(0, i + begin.length)}\n${content}\n${doc.slice(j)}`;
}

export function regenerate(doc: string): string {
  return replaceGenerated(replaceGenerated(doc, 'FLAGS', renderFlagDocs()), 'METRICS', renderMetricDocs());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const current = readFileSync(OPERATIONS_DOC, 'utf8');
  const next = regenerate(current);
  if (process.argv.includes('--check')) {
    if (next !== current) {
      process.stderr.write('docs/operations.md is out of date: run `node --import tsx scripts/gen-flag-docs.ts`\n');
      process.exit(1);
    }
  } else if (next !== current) {
    writeFileSync(OPERATIONS_DOC, next);
    process.stdout.write('docs/operations.md updated\n');
  } else process.stdout.write('docs/operations.md is up to date\n');
}
