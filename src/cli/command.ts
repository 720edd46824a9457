// The shape every subcommand shares: its flags (with defaults, for --help) and a run function that gets
// parsed flags and the process' streams, so commands are testable in-process.
import type { FlagSpec, ParsedFlags } from '../config/flags.ts';

export interface CommandIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); long-running commands await it. */
  stopSignal: Promise<string>;
}

export interface Command {
  name: string;
  summary: string;
  flags: readonly FlagSpec[];
  /** Longer text for `<command> --help` (assumptions, examples); not shown in the command list. */
  details?: string;
  /** Returns the exit code. Throw UsageError for the user's mistakes (exit 2). */
  run(flags: ParsedFlags, io: CommandIO): Promise<number>;
}
