// bin/ehpa-adapter.js runs dist/ whenever it exists (the container image's build), and the sources only
// without it. In a working copy that once ran `npm run build`, every e2e run and bench would then test that
// old build, not the sources being changed, and pass or fail for reasons that are no longer in the code
// (a checkout on 2026-11-27 ran a build three hours and nine commits old). The harness refuses to start
// the adapter from a dist/ older than any source file, and says what to do. A clean clone (CI) has no
// dist/ and runs the sources. Every test that spawns the bin itself (CLI, operations endpoint, pipes) checks
// the same way before it does.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest file under `dir` (recursively), with its modification time in ms; null for an empty tree. */
export function newestFile(dir: string): { path: string; mtimeMs: number } | null {
  let newest: { path: string; mtimeMs: number } | null = null;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const found = entry.isDirectory() ? newestFile(path) : entry.isFile() ? { path, mtimeMs: statSync(path).mtimeMs } : null;
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

/**
 * Why the build at `builtFile` must not be run in place of the sources under `srcDir`, or null when it may
 * (it does not exist, so the sources run, or it is at least as new as every source file).
 */
export function staleBuildProblem(builtFile: string, srcDir: string): string | null {
  if (!existsSync(builtFile)) return null;
  const built = statSync(builtFile).mtimeMs;
  const src = newestFile(srcDir);
  if (!src || src.mtimeMs <= built) return null;
  return (
    `${builtFile} is older than ${src.path} (by ${((src.mtimeMs - built) / 1000).toFixed(0)} s): bin/ehpa-adapter.js would run that ` +
    'old build instead of the sources. Run `npm run build`, or remove dist/ to run the sources through tsx.'
  );
}

/** Throws staleBuildProblem's message for the repository at `root`: call before spawning its bin/ehpa-adapter.js. */
export function assertBuildFresh(root: string): void {
  const stale = staleBuildProblem(join(root, 'dist', 'main.js'), join(root, 'src'));
  if (stale) throw new Error(stale);
}
