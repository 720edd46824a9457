// Builds the Crane DSP oracle (test/oracles/crane-dsp: our main.go + gocrane/crane v0.11.0 from the Go module
// proxy) once per content hash into ~/.cache/ehpa-adapter/crane-dsp-v0.11.0-<hash>/, outside the repo.
// Returns the binary path; throws with one line saying what to install when there is no Go toolchain.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireGo } from './go-toolchain.ts';

export const CRANE_VERSION = 'v0.11.0';
const MODULE_DIR = fileURLToPath(new URL('./crane-dsp/', import.meta.url));

export function buildCraneOracle(): string {
  requireGo();
  const hash = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(MODULE_DIR, f)));
  const dir = join(homedir(), '.cache', 'ehpa-adapter', `crane-dsp-${CRANE_VERSION}-${hash.digest('hex').slice(0, 12)}`);
  const bin = join(dir, 'crane-dsp-oracle');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('go', ['build', '-buildvcs=false', '-o', bin, '.'], {
    cwd: MODULE_DIR,
    encoding: 'utf8',
    env: { ...process.env, CGO_ENABLED: '0' },
  });
  if (r.status !== 0) throw new Error(`building the Crane DSP oracle failed:\n${r.stderr}`);
  return bin;
}
