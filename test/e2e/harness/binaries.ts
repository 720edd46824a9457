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

function which(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = join(dir, name);
    if (dir && existsSync(p)) return p;
  }
  throw new Error(`${name} not found on PATH; run scripts/install-system-deps.sh`);
}

export function controlPlaneDir(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', [join(REPO_ROOT, 'scripts/build-control-plane.sh')], { cwd: REPO_ROOT, maxBuffer: 64 << 20, timeout: 60 * 60_000 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`scripts/build-control-plane.sh failed: ${err.message}\n${stderr.slice(-4000)}`));
        return;
      }
      const last = stdout.trim().split('\n').pop() ?? '';
      if (!last) reject(new Error('scripts/build-control-plane.sh printed no directory'));
      else resolve(last.trim());
    });
  });
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

let adapterBinary: Promise<string> | undefined;

/** prometheus-adapter from scripts/build-prometheus-adapter.sh (cache keyed by version, else a Go build). */
export function prometheusAdapterBinary(): Promise<string> {
  adapterBinary ??= new Promise<string>((resolve, reject) => {
    execFile('bash', [join(REPO_ROOT, 'scripts/build-prometheus-adapter.sh')], { cwd: REPO_ROOT, maxBuffer: 64 << 20, timeout: 30 * 60_000 }, (err, stdout, stderr) => {
      const last = stdout.trim().split('\n').pop()?.trim() ?? '';
      if (err || !last) reject(new Error(`scripts/build-prometheus-adapter.sh failed: ${err?.message ?? 'no path printed'}\n${stderr.slice(-4000)}`));
      else resolve(last);
    });
  });
  adapterBinary.catch(() => {
    adapterBinary = undefined;
  });
  return adapterBinary;
}
