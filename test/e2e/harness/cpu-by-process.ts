// CPU time by process from /proc, for the suites and benches that must say who spent the machine's cores
// while something was slow (the hostile-tenant suite's attack, the scale bench's HPA-rate load).
import { readdirSync, readFileSync } from 'node:fs';

const USER_HZ = 100;

/** The name a process's CPU is summed under. A kernel worker's name carries the work queue it last ran
 *  ("kworker/0:0-events", then "kworker/0:0-mm_percpu_wq"), so keyed by its full name its whole lifetime's CPU
 *  showed up as spent in any window in which the suffix changed (2.2–2.5 s in every step of the scale bench,
 *  5 s steps included). */
export function processKey(comm: string): string {
  return comm.startsWith('kworker/') ? comm.replace(/-.*$/, '') : comm;
}

/**
 * User + system CPU seconds of every process, summed by command name; the pids in `named` are reported
 * under the given names instead (serve and the test itself are both `node`).
 */
export function cpuByCommand(named: ReadonlyMap<number, string> = new Map()): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const f = stat.slice(close + 2).split(' ');
      const key = named.get(Number(pid)) ?? processKey(comm);
      out.set(key, (out.get(key) ?? 0) + (Number(f[11]) + Number(f[12])) / USER_HZ);
    } catch {
      // the process ended between readdir and read
    }
  }
  return out;
}

/** The CPU seconds spent since `before` (a cpuByCommand result), largest first: "kube-apiserver 12.3 s, serve 8.1 s, …". */
export function cpuSpentSince(before: ReadonlyMap<string, number>, named: ReadonlyMap<number, string> = new Map(), top = 8): string {
  return [...cpuByCommand(named)]
    .map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const)
    .filter(([, v]) => v >= 0.1)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
    .join(', ');
}
