// Process entry: wires the real streams and signals into the CLI. Everything else lives in src/cli.
import { runCli } from './cli/run-cli.ts';

const stopSignal = new Promise<string>((resolve) => {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve(sig));
});

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
