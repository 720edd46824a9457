// Every subcommand, in the order --help lists them. A new command is a new file plus one line here.
import type { Command } from './command.ts';
import { forecastCommand } from './forecast-command.ts';
import { recommendCommand } from './recommend-command.ts';
import { serveCommand } from './serve-command.ts';
import { simulateCommand } from './simulate-command.ts';
import { versionCommand } from './version-command.ts';

export const COMMANDS: readonly Command[] = [serveCommand, recommendCommand, forecastCommand, simulateCommand, versionCommand];
