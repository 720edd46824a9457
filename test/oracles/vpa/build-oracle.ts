// Builds the Go oracle (upstream VPA model at the version pinned in go.mod) once per source hash,
// cached outside the repository under ~/.cache/ehpa-adapter/.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { requireGo } from '../go-toolchain.ts';

export const ORACLE_DIR = fileURLToPath(new URL('.', import.meta.url));

export function buildVpaOracle(): string {
  requireGo();
  const files = ['go.mod', 'go.sum', 'main.go', 'bench.go'];
  const hash = createHash('sha256');
  for (const f of files) hash.update(readFileSync(join(ORACLE_DIR, f)));
  const version = /k8s\.io\/autoscaler\/vertical-pod-autoscaler (v[\d.]+)/.exec(readFileSync(join(ORACLE_DIR, 'go.mod'), 'utf8'))?.[1] ?? 'unknown';
  const dir = join(homedir(), '.cache', 'ehpa-adapter', `vpa-oracle-${version}-${hash.digest('hex').slice(0, 12)}`);
  const bin = join(dir, 'vpa-oracle');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const tmp = `${bin}.tmp-${process.pid}`;
  execFileSync('go', ['build', '-o', tmp, '.'], { cwd: ORACLE_DIR, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, GOFLAGS: '-mod=mod -buildvcs=false' } });
  renameSync(tmp, bin);
  return bin;
}
