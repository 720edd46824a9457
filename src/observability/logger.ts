// Structured JSON logs on stderr (stdout is reserved for command output).
import { pino, type Logger, type LevelWithSilent } from 'pino';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

export function createLogger(level: LevelWithSilent, destination: NodeJS.WritableStream = process.stderr): Logger {
  return pino({ level, base: { app: 'ehpa-adapter' } }, destination as pino.DestinationStream);
}

export type { Logger };
