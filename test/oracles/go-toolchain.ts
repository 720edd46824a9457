// The differential oracles build upstream Go code (Crane, robfig/cron, the VPA recommender) from the Go
// module proxy. They are the tier that catches what unit tests miss, so a machine without Go fails them
// with one line saying what to install instead of skipping them (a skip would let `npm test` pass).
import { spawnSync } from 'node:child_process';

export const GO_MISSING =
  'go not found on PATH: the differential oracles build upstream Go modules; install Go >= 1.24 (https://go.dev/dl) and put it on PATH';

/** Throws GO_MISSING when no Go toolchain answers `go version`. */
export function requireGo(): void {
  if (spawnSync('go', ['version'], { stdio: 'ignore' }).status !== 0) throw new Error(GO_MISSING);
}
