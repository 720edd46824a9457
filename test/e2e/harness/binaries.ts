// Where the binaries come from: etcd, kube-apiserver and kube-controller-manager from
// scripts/build-control-plane.sh (KUBEBUILDER_ASSETS, else the version-keyed cache, else a Go build; its
// last stdout line is the directory), prometheus-adapter from scripts/build-prometheus-adapter.sh (same
// cache; its last line is the binary), Prometheus, promtool and openssl from PATH (Debian packages).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface Binaries {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  prometheus: string;
  promtool: string;
}

let cached: Promise<Binaries> | undefined;

/** The path of `name` on PATH (Debian's prometheus and promtool); throws saying how to install it. */
export function which(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = join(dir, name);
    if (dir && existsSync(p)) return p;
  }
  throw new Error(`${name} not found on PATH; run scripts/install-system-deps.sh`);
}

const scriptOutputs = new Map<string, Promise<string>>();

/**
 * The last line a build script under scripts/ prints (the directory or binary it built or found in the
 * version-keyed cache). Run once per process; a failure is not kept, so the next caller tries again.
 */
export function buildScriptOutput(script: string, timeoutMs = 30 * 60_000): Promise<string> {
  let out = scriptOutputs.get(script);
  if (!out) {
    out = new Promise<string>((resolve, reject) => {
      execFile('bash', [join(REPO_ROOT, script)], { cwd: REPO_ROOT, maxBuffer: 64 << 20, timeout: timeoutMs }, (err, stdout, stderr) => {
        const last = stdout.trim().split('\n').pop()?.trim() ?? '';
        if (err || !last) reject(new Error(`${script} failed: ${err?.message ?? 'nothing printed'}\n${stderr.slice(-4000)}`));
        else resolve(last);
      });
    });
    scriptOutputs.set(script, out);
    out.catch(() => scriptOutputs.delete(script));
  }
  return out;
}

export function controlPlaneDir(): Promise<string> {
  return buildScriptOutput('scripts/build-control-plane.sh', 60 * 60_000);
}

export function locateBinaries(): Promise<Binaries> {
  cached ??= controlPlaneDir().then((dir) => ({
    etcd: join(dir, 'etcd'),
    kubeApiserver: join(dir, 'kube-apiserver'),
    kubeControllerManager: join(dir, 'kube-controller-manager'),
    prometheus: which('prometheus'),
    promtool: which('promtool'),
  }));
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}

/** prometheus-adapter from scripts/build-prometheus-adapter.sh (cache keyed by version, else a Go build). */
export function prometheusAdapterBinary(): Promise<string> {
  return buildScriptOutput('scripts/build-prometheus-adapter.sh');
}
