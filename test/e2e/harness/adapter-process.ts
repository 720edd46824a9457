// The built `ehpa-adapter serve` as its own OS process, as it runs in a pod: talking to kube-apiserver
// with a kubeconfig (KUBECONFIG) for its service-account identity, operations port on loopback.
import { join } from 'node:path';
import { REPO_ROOT } from './binaries.ts';
import { assertBuildFresh } from './build-freshness.ts';
import { freePort } from './ports.ts';
import { startProcess, waitFor, type ManagedProcess } from './processes.ts';

export interface AdapterProcess extends ManagedProcess {
  /** Plain-HTTP operations port (/metrics, /healthz, /readyz). */
  readonly metricsPort: number;
  readonly metricsUrl: string;
}

export interface AdapterProcessOptions {
  /** Extra `serve` arguments, e.g. [`--secure-port=${cluster.adapterPort}`, `--prometheus-url=${cluster.promUrl}`]. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  kubeconfigPath: string;
  logDir: string;
  /** Log file name (several adapters may run one after another). */
  name?: string;
  /** Wait for this path on the operations port to answer 200 (default /healthz; null = don't wait). */
  waitPath?: string | null;
  timeoutMs?: number;
}

function nodeArgsFromEnv(): string[] {
  return (process.env['E2E_ADAPTER_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
}

export async function startAdapterProcess(opts: AdapterProcessOptions): Promise<AdapterProcess> {
  assertBuildFresh(REPO_ROOT);
  const metricsPort = await freePort();
  const proc = startProcess({
    name: opts.name ?? 'ehpa-adapter',
    command: process.execPath,
    // E2E_ADAPTER_NODE_ARGS: extra node options for profiling a run, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
    // (node refuses --cpu-prof in NODE_OPTIONS).
    args: [...nodeArgsFromEnv(), join(REPO_ROOT, 'bin', 'ehpa-adapter.js'), 'serve', `--metrics-port=${metricsPort}`, '--metrics-bind-address=127.0.0.1', ...(opts.args ?? [])],
    env: { ...process.env, KUBECONFIG: opts.kubeconfigPath, ...opts.env },
    cwd: REPO_ROOT,
    logDir: opts.logDir,
  });
  const metricsUrl = `http://127.0.0.1:${metricsPort}`;
  const waitPath = opts.waitPath === undefined ? '/healthz' : opts.waitPath;
  if (waitPath !== null) {
    await waitFor(`ehpa-adapter ${waitPath}`, async () => (await fetch(`${metricsUrl}${waitPath}`)).ok, { process: proc, timeoutMs: opts.timeoutMs ?? 60_000 });
  }
  return {
    name: proc.name, pid: proc.pid, logPath: proc.logPath, exited: proc.exited,
    get running() {
      return proc.running;
    },
    stop: (graceMs?: number) => proc.stop(graceMs),
    kill: () => proc.kill(),
    metricsPort, metricsUrl,
  };
}
