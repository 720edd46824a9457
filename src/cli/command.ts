// The shape every subcommand shares: its flags (with defaults, for --help) and a run function that gets
// parsed flags and the process' streams, so commands are testable in-process.
import type { FlagSpec, FlagsOf } from '../config/flags.ts';
import type { ArgNotice, TranslatedArgs } from './craned-flags.ts';

export interface CommandIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); long-running commands await it. */
  stopSignal: Promise<string>;
}

export interface Command<Specs extends readonly FlagSpec[] = readonly FlagSpec[]> {
  name: string;
  flags: Specs;
  /** Longer text for `<command> --help` (assumptions, examples); not shown in the command list. */
  details?: string;
  /** Rewrites another program's flags into this command's before parsing (serve: craned's); throws UsageError
   *  on one it refuses. What it did comes back to run() as notices, for the command's log. */
  translateArgs?(argv: readonly string[], flags: readonly FlagSpec[]): TranslatedArgs;
  /** Returns the exit code. Throw UsageError for the user's mistakes (exit 2). */
  run(flags: FlagsOf<Specs>, io: CommandIO, notices: readonly ArgNotice[]): Promise<number>;
}

/** Declares a command with its flag table's types (write the table inline or `as const`). */
export function defineCommand<const Specs extends readonly FlagSpec[]>(c: Command<Specs>): Command {
  // A command only ever runs with the flags parsed from its own table (run-cli.ts).
  return c as unknown as Command;
}

/**
 * A command as the command list knows it before loading it: its name and one-line summary, and how to load
 * the rest. `ehpa-adapter --help` needs only these, so it starts without importing any command's code.
 */
export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  load(): Promise<Command>;
}

/** A loaded command with its entry's summary (the flag docs and the tests use these). */
export type LoadedCommand = Command & { readonly summary: string };
