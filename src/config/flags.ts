// One flag parser for every subcommand: typed specs with defaults, validated up front, so a bad flag is
// one clear line and exit code 2 before anything starts.
import { parseDurationMs } from './duration.ts';

export type FlagType = 'string' | 'int' | 'float' | 'bool' | 'duration' | 'enum';
export type FlagValue = string | number | boolean | undefined;

export interface FlagSpec {
  name: string;
  type: FlagType;
  /** Shown in --help; `undefined` means "not set". Durations default as text, e.g. "24h". */
  default: string | number | boolean | undefined;
  help: string;
  /** Allowed values for `enum`. */
  values?: readonly string[];
  min?: number;
  max?: number;
}

/** A user's mistake on the command line or in an input file: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * A UsageError, also one thrown by a command loaded through a second copy of this module (a test runner's
 * loader may give a dynamic import its own module instance, so `instanceof` alone can miss it).
 */
export function isUsageError(e: unknown): e is UsageError {
  return e instanceof UsageError || (e instanceof Error && e.name === 'UsageError');
}

/** Flags of an unknown table: what generic code (help, docs) sees. Commands see FlagsOf<their table>. */
export type ParsedFlags = Record<string, FlagValue>;

/** The value a flag parses to: durations in milliseconds; a flag without a default may be undefined. */
type ValueOfSpec<S extends FlagSpec> = string extends S['name']
  ? FlagValue // a table not declared `as const`: names and types unknown
  : S extends { type: 'bool' }
  ? boolean
  : S extends { type: 'int' | 'float' | 'duration' }
    ? S extends { default: undefined }
      ? number | undefined
      : number
    : S extends { type: 'enum'; values: readonly (infer V)[] }
      ? V
      : S extends { default: undefined }
        ? string | undefined
        : string;

/**
 * The parsed flags of a spec table declared `as const`: one property per flag name with its value type,
 * so reading a misspelt or undeclared flag does not compile.
 */
export type FlagsOf<Specs extends readonly FlagSpec[]> = { readonly [S in Specs[number] as S['name']]: ValueOfSpec<S> };

function convert(spec: FlagSpec, raw: string): FlagValue {
  const bad = (why: string) => new UsageError(`invalid value "${raw}" for --${spec.name}: ${why}`);
  switch (spec.type) {
    case 'string':
      return raw;
    case 'bool':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw bad('expected true or false');
    case 'enum':
      if (!spec.values?.includes(raw)) throw bad(`expected one of ${spec.values?.join(', ')}`);
      return raw;
    case 'int':
    case 'float': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw bad('expected a number');
      if (spec.type === 'int' && !Number.isInteger(n)) throw bad('expected an integer');
      if (spec.min !== undefined && n < spec.min) throw bad(`must be >= ${spec.min}`);
      if (spec.max !== undefined && n > spec.max) throw bad(`must be <= ${spec.max}`);
      return n;
    }
    case 'duration': {
      let ms: number;
      try {
        ms = parseDurationMs(raw);
      } catch (e) {
        throw bad((e as Error).message);
      }
      if (spec.min !== undefined && ms < spec.min) throw bad(`must be at least ${spec.min}ms`);
      return ms;
    }
  }
}

/**
 * Parses `--name value`, `--name=value` and bare boolean `--name` against the specs. Durations come back in
 * milliseconds. Positional arguments are refused: every input is named.
 */
export function parseFlags<const Specs extends readonly FlagSpec[]>(specs: Specs, argv: readonly string[]): FlagsOf<Specs> {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const out: ParsedFlags = {};
  for (const spec of specs) {
    out[spec.name] = spec.default === undefined ? undefined : convert(spec, String(spec.default));
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}" (flags start with --)`);
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const spec = byName.get(name);
    if (!spec) throw new UsageError(`unknown flag --${name}`);
    let raw: string;
    if (eq >= 0) raw = arg.slice(eq + 1);
    else if (spec.type === 'bool') raw = 'true';
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`flag --${name} needs a value`);
      raw = next;
      i++;
    }
    out[name] = convert(spec, raw);
  }
  // The table's types describe exactly what convert() returns for each spec.
  return out as FlagsOf<Specs>;
}

/** Renders the flag table for --help, every default shown. */
export function formatFlagHelp(specs: readonly FlagSpec[]): string {
  const rows = specs.map((s) => {
    const kind = s.type === 'enum' ? (s.values ?? []).join('|') : s.type;
    const def = s.default === undefined ? '' : ` (default ${JSON.stringify(s.default)})`;
    return { left: `  --${s.name} ${s.type === 'bool' ? '' : kind}`.trimEnd(), right: `${s.help}${def}` };
  });
  const width = Math.max(0, ...rows.map((r) => r.left.length)) + 2;
  return rows.map((r) => r.left.padEnd(width) + r.right).join('\n');
}
