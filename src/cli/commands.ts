// Every subcommand loaded, with its summary: what the generated flag docs and the tests read. The CLI itself
// loads only the command it runs (command-registry.ts).
import type { LoadedCommand } from './command.ts';
import { COMMAND_ENTRIES } from './command-registry.ts';

export const COMMANDS: readonly LoadedCommand[] = await Promise.all(COMMAND_ENTRIES.map(async (e) => ({ ...(await e.load()), summary: e.summary })));
