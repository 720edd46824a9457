// Process entry: wires the real streams and signals into the CLI. Everything else lives in src/cli.
import { runCli } from './cli/run-cli.ts';

// Only `serve` stops gracefully on a signal (it closes its servers and hands over its Lease). The offline
// commands keep the default action: a fit runs synchronously, so a handler would never get to run and
// Ctrl-C would wait for the fit to end (73 s seen on a long `forecast`).
const long = process.argv[2] === 'serve';
const stopSignal = long
  ? new Promise<string>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve(sig));
    })
  : new Promise<string>(() => undefined);

// A reader that goes away (`simulate … | head`) is the end of the output, not an error: exit quietly rather
// than die on an unhandled EPIPE with a stack trace.
if (!long) {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}

try {
  const code = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stopSignal,
  });
  process.exitCode = code;
} catch (e) {
  process.stderr.write(`ehpa-adapter: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
}
// Long-running commands have closed their servers by now; stray handles (e.g. a stdin reader) must not
// keep the process alive after the command is done, so the process exits explicitly. But not before
// stdout and stderr have drained: on a pipe, Node queues what the kernel's 64 KiB buffer cannot take,
// and process.exit() would drop it (a reader such as jq would get a cut JSON document).
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(process.exitCode);

/** Resolves once everything written to the stream so far has been handed to the OS (or it failed, e.g.
 *  EPIPE when the reader went away: nothing more can be delivered then). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.once('error', () => resolve());
    stream.write('', () => resolve());
  });
}
