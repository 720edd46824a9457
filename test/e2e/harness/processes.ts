// Child processes of the harness: each runs in its own process group (so a binary's own children die with
// it), logs to a file in the harness's log directory, and is killed on stop and on our own exit, so a
// crashed or aborted test run never leaves a kube-apiserver bound to a port.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  readonly running: boolean;
  /** SIGTERM the process group, SIGKILL after `graceMs`. Resolves once the leader exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL the process group now (a crash, not a shutdown). */
  kill(): Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous; process.kill is.
  process.on('exit', () => {
    for (const child of live) killGroup(child, 'SIGKILL');
  });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      for (const child of live) killGroup(child, 'SIGKILL');
      process.exit(130);
    });
  }
}

export function startProcess(opts: {
  name: string;
  command: string;
  args: string[];
  logDir: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}): ManagedProcess {
  installExitHook();
  const logPath = join(opts.logDir, `${opts.name}.log`);
  const fd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(opts.command, opts.args, {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: opts.env ?? process.env,
      cwd: opts.cwd,
    });
  } finally {
    closeSync(fd);
  }
  if (child.pid === undefined) throw new Error(`${opts.name}: failed to start ${opts.command}`);
  live.add(child);
  let running = true;
  const exited = new Promise<number | string>((resolve) => {
    child.once('error', (err) => {
      running = false;
      live.delete(child);
      resolve(`error: ${err.message}`);
    });
    child.once('exit', (code, signal) => {
      running = false;
      // Leftover members of the group (a binary's helpers) go with the leader.
      killGroup(child, 'SIGKILL');
      live.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const pid = child.pid;
  return {
    name: opts.name,
    pid,
    logPath,
    exited,
    get running() {
      return running;
    },
    async stop(graceMs = 10_000) {
      if (!running) return;
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (!running) return;
      killGroup(child, 'SIGKILL');
      await exited;
    },
  };
}

/** The last `lines` lines of a log file, for failure reports. */
export function tailLog(path: string, lines = 40): string {
  if (!existsSync(path)) return '';
  const all = readFileSync(path, 'utf8').split('\n');
  return all.slice(-lines).join('\n');
}

/** Poll `check` until it returns true, or fail with `what` and the last error after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  opts: { timeoutMs?: number; intervalMs?: number; process?: ManagedProcess } = {},
): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  let last: unknown;
  while (Date.now() < deadline) {
    if (opts.process && !opts.process.running) {
      throw new Error(`${what}: ${opts.process.name} exited (${await opts.process.exited}); log ${opts.process.logPath}:\n${tailLog(opts.process.logPath)}`);
    }
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
  }
  const tail = opts.process ? `\nlog ${opts.process.logPath}:\n${tailLog(opts.process.logPath)}` : '';
  throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}${tail}`);
}
