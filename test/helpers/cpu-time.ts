// Timing for bounds that must hold on a loaded machine, so a test passes on its merits, not by timing luck.
// Wall-clock time grows whenever the process waits for a CPU (other suites, other jobs on a 2-core
// machine): a 0.3 ms run that is preempted once reads as 10 ms. The CPU time this process spends (user + system, from getrusage, which
// Linux accounts in nanoseconds) does not: it is what a bound on an algorithm's cost should compare.

/** CPU milliseconds (all threads of this process) that `f` takes. */
export function cpuMs(f: () => void): number {
  const t0 = process.cpuUsage();
  f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

/** CPU milliseconds an async `f` takes (the process should have nothing else to do meanwhile, as in a unit test). */
export async function cpuMsAsync(f: () => Promise<unknown>): Promise<number> {
  const t0 = process.cpuUsage();
  await f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

/** The least CPU time of `runs` runs of `f`: a garbage collection that lands in one run does not count. */
export function bestCpuMs(f: () => void, runs = 5): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) best = Math.min(best, cpuMs(f));
  return best;
}
