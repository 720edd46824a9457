// Shared bits of the e2e suites: a cluster per suite with logs printed when a test fails.
import type { Context } from 'mocha';
import { startCluster, type Cluster, type ClusterOptions } from './harness/index.ts';

export const CRANE_TRACES = new URL('../fixtures/traces/crane/', import.meta.url);

/** Start a cluster in `before`, print component logs after a failed test, stop it in `after`. */
export function useCluster(opts: ClusterOptions = {}): { readonly cluster: Cluster } {
  const holder: { cluster?: Cluster; failed: boolean } = { failed: false };
  before(async function (this: Context) {
    this.timeout(45 * 60_000); // the first run may build the control plane
    holder.cluster = await startCluster(opts);
  });
  afterEach(async function (this: Context) {
    if (this.currentTest?.state === 'failed' && holder.cluster) {
      holder.failed = true;
      console.error(await holder.cluster.logs(60));
    }
  });
  after(async function (this: Context) {
    this.timeout(120_000);
    // Keep the temp dir (certs, data, full logs) when something failed or EHPA_E2E_KEEP=1 asks for it (a
    // passing suite used to lose it: `keep: false` overrode the variable), and say where it is.
    const keep = holder.failed || process.env.EHPA_E2E_KEEP === '1';
    if (keep && holder.cluster) console.error(`e2e: harness files kept in ${holder.cluster.dir}`);
    await holder.cluster?.stop(keep ? { keep: true } : {});
  });
  return {
    get cluster() {
      if (!holder.cluster) throw new Error('cluster not started');
      return holder.cluster;
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
