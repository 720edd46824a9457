// Free loopback ports for the harness's processes (etcd, kube-apiserver, Prometheus, kwok, the adapter).
//
// A port is picked here, released, and bound later by another binary, sometimes seconds later (Prometheus
// starts after its backfill). Two things could take it in between, and both did in CI ("bind: address
// already in use" from Prometheus under `mocha --parallel`):
//  - any outgoing TCP connection on the machine: the kernel takes its source port from the ephemeral range
//    (/proc/sys/net/ipv4/ip_local_port_range), which is where `listen(0)` ports come from too;
//  - another mocha worker's harness, picking the same port in the same window.
// So ports come from below the ephemeral range, where the kernel never assigns source ports, and each one is
// reserved across processes by an exclusive lock file (removed when the process exits, taken over when its
// owner is dead). A bind check skips ports something else already listens on.
import { createServer } from 'node:net';
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOWEST = 10_000;
const LOCK_DIR = join(tmpdir(), 'ehpa-adapter-ports');
const held: string[] = [];

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST + 1_000) return low;
  } catch { /* not Linux: fall through */ }
  return 32_768;
}

const highest = ephemeralLow() - 1;
let cursor = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Take the cross-process reservation of `port`; false when a live process holds it. */
function reserve(port: number): boolean {
  mkdirSync(LOCK_DIR, { recursive: true });
  const path = join(LOCK_DIR, `${port}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      if (held.length === 0) process.once('exit', releaseAll);
      held.push(path);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(readFileSync(path, 'utf8'));
      if (owner === process.pid || (Number.isInteger(owner) && owner > 0 && alive(owner))) return false;
      try { unlinkSync(path); } catch { /* another process took it over first */ }
    }
  }
  return false;
}

function releaseAll(): void {
  for (const p of held.splice(0)) {
    try { unlinkSync(p); } catch { /* already gone */ }
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const span = highest - LOWEST + 1;
  for (let tried = 0; tried < span; tried++) {
    const port = cursor;
    cursor = cursor >= highest ? LOWEST : cursor + 1;
    if (!reserve(port)) continue;
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port in ${LOWEST}-${highest}`);
}

export async function freePorts(n: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) out.push(await freePort());
  return out;
}
