// Polls a condition until it holds or a deadline passes: the tests' one way to wait for something that
// happens on its own time (a file reload, a watch, a worker), instead of sleeping a fixed time and hoping.

/** Resolves once `check` is true; throws "timed out waiting for <what>" after `timeoutMs`. */
export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000, pollMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
