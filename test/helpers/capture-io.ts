// In-memory streams for running CLI commands in-process.
import { PassThrough, Readable } from 'node:stream';
import type { CommandIO } from '../../src/cli/command.ts';

export interface CapturedIO extends CommandIO {
  out(): string;
  err(): string;
  stop(signal?: string): void;
}

export function captureIO(stdinText = ''): CapturedIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  let stop!: (s: string) => void;
  const stopSignal = new Promise<string>((r) => (stop = r));
  return {
    stdout,
    stderr,
    stdin: Readable.from([stdinText]),
    stopSignal,
    out: () => out,
    err: () => err,
    stop: (s = 'SIGTERM') => stop(s),
  };
}
