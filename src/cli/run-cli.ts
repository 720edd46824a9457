// Dispatches argv to a subcommand; turns UsageError into one line on stderr and exit code 2.
import type { CommandEntry, CommandIO } from './command.ts';
import { COMMAND_ENTRIES } from './command-registry.ts';
import { formatFlagHelp, isUsageError, parseFlags } from '../config/flags.ts';

/** The command list (names and summaries only: nothing is loaded for it). */
export function formatHelp(commands: readonly CommandEntry[] = COMMAND_ENTRIES): string {
  const lines = ['Usage: ehpa-adapter <command> [flags]', '', 'Commands:'];
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  for (const c of commands) lines.push(`  ${c.name.padEnd(width)}${c.summary}`);
  lines.push('', 'Run `ehpa-adapter <command> --help` for its flags.');
  return lines.join('\n') + '\n';
}

export async function runCli(argv: readonly string[], io: CommandIO, commands: readonly CommandEntry[] = COMMAND_ENTRIES): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(formatHelp(commands));
    return name === undefined ? 2 : 0;
  }
  if (name === '--version') return runCli(['version'], io, commands);
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.stderr.write(`ehpa-adapter: unknown command "${name}" (see ehpa-adapter --help)\n`);
    return 2;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`ehpa-adapter ${command.name}: ${entry.summary}\n${command.flags.length ? formatFlagHelp(command.flags) : '  (no flags)'}\n`);
    if (command.details) io.stdout.write(`\n${command.details.trimEnd()}\n`);
    return 0;
  }
  try {
    const translated = command.translateArgs ? command.translateArgs(rest, command.flags) : { argv: rest, notices: [] };
    const flags = parseFlags(command.flags, translated.argv);
    return await command.run(flags, io, translated.notices);
  } catch (e) {
    if (isUsageError(e)) {
      io.stderr.write(`ehpa-adapter ${command.name}: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
