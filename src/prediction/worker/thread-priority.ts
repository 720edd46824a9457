// Lowers the CPU priority of the calling thread only. On Linux a thread is a task with its own id, and
// setpriority(PRIO_PROCESS, tid) changes just that task (man 2 setpriority, "NOTES": the nice value is a
// per-thread attribute), which os.setPriority reaches with the thread id. Node does not expose gettid, but
// /proc/thread-self names the calling thread ("<pid>/task/<tid>"). Raising one's own nice value needs no
// privilege. Elsewhere (no /proc) the worker simply keeps the default priority.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Nice value of forecast worker threads: below every default-priority thread, above idle-only ones. */
export const FIT_THREAD_NICE = 10;

/** The calling thread's Linux task id, or undefined where /proc/thread-self does not exist. */
export function currentThreadId(readLink: (path: string) => string = readlinkSync): number | undefined {
  try {
    const tid = Number(readLink('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Sets the calling thread's nice value to `nice` (never lowers it); returns the value now in force. */
export function lowerThreadPriority(nice = FIT_THREAD_NICE): number | undefined {
  const tid = currentThreadId();
  if (tid === undefined) return undefined;
  try {
    if (getPriority(tid) < nice) setPriority(tid, nice);
    return getPriority(tid);
  } catch {
    return undefined;
  }
}
