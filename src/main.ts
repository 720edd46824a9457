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
// keep the process alive after the command is done.
process.exit(process.exitCode);
