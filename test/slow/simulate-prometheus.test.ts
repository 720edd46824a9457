// `simulate --prometheus-url --frontier` against a real Prometheus (Debian's, on loopback): two days of a
// Crane trace backfilled as cAdvisor's container_cpu_usage_seconds_total for a Deployment's pod, read back
// with the TSP controller's own workload CPU query, replayed, and compared with plain HPAs.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/run-cli.ts';
import { startProcess, waitFor, type ManagedProcess } from '../e2e/harness/processes.ts';
import { freePort } from '../e2e/harness/ports.ts';
import { which } from '../e2e/harness/binaries.ts';
import { backfill } from '../e2e/harness/prometheus.ts';
import { parseTraceCsv } from '../e2e/harness/openmetrics.ts';
import { captureIO } from '../helpers/capture-io.ts';
import { TRACES_DIR } from '../helpers/traces.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/ehpa-simulate.yaml', import.meta.url));


describe('simulate --prometheus-url: the workload history from a real Prometheus', function () {
  this.timeout(300_000);
  let dir: string;
  let port: number;
  let prom: ManagedProcess | undefined;
  // The last sample an hour ago (inside the default retention), a minute apart, on whole minutes.
  const end = Math.floor(Date.now() / 60_000) * 60 - 3600;

  before(async function () {
    this.timeout(300_000);
    dir = mkdtempSync(join(tmpdir(), 'simulate-prom-'));
    port = await freePort();
    const trace = parseTraceCsv(readFileSync(`${TRACES_DIR}crane/input0.csv`, 'utf8')).slice(-2 * 1440);
    const shift = end - (trace[trace.length - 1] as { ts: number }).ts;
    const cpu = trace.map((p) => ({ ts: p.ts + shift, value: p.value }));
    // Two series: the workload's, and another namespace's with the same pod name, which must not be read.
    await backfill({
      promtool: which('promtool'),
      dataDir: join(dir, 'data'),
      workDir: dir,
      series: [
        { labels: { namespace: 'default', pod: 'web-7d9c8b6f5d-abcde', container: 'app' }, cpu },
        { labels: { namespace: 'other', pod: 'web-7d9c8b6f5d-abcde', container: 'app' }, cpu: cpu.map((p) => ({ ...p, value: 1000 })) },
      ],
    });
    writeFileSync(join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 15s\nscrape_configs: []\n');
    prom = startProcess({
      name: 'prometheus',
      command: which('prometheus'),
      logDir: dir,
      args: [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    });
    await waitFor('prometheus /-/ready', async () => (await fetch(`http://127.0.0.1:${port}/-/ready`)).ok, { process: prom, timeoutMs: 60_000 });
  });

  after(async () => {
    await prom?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads the namespace-confined CPU query, replays it, and prints the frontier table', async () => {
    const io = captureIO();
    const args = ['simulate', '--ehpa', EXAMPLE, '--prometheus-url', `http://127.0.0.1:${port}`, '--since', '2d', '--until', String(end), '--local-zone', 'UTC', '--frontier'];
    expect(await runCli(args, io), io.err()).to.equal(0);
    expect(io.err()).to.match(/^simulate: reading 2 days of sum\(irate\(container_cpu_usage_seconds_total\{namespace="default",pod=~"\^web-.*",container!=""\}\[3m\]\)\) from http:\/\/127\.0\.0\.1:\d+$/m);
    const out = io.out();
    const ehpa = /^\| EHPA as written \| 50% \| (\d+) \| ([\d.]+) \|/m.exec(out);
    expect(ehpa, out).to.not.equal(null);
    // input0 peaks near 100 cores on 4-core pods at 50 %: tens of replicas; the other namespace's 1,000 cores
    // (250 pods at most 100) would pin the EHPA at maxReplicas = 100 for the whole day.
    const hours = Number(ehpa![2]);
    expect(hours).to.be.greaterThan(24);
    expect(hours).to.be.lessThan(100 * 24 * 0.9);
    expect(out.split('\n').filter((l) => l.startsWith('| plain HPA |'))).to.have.length(15);
    expect(out).to.match(/^Verdict: prediction (pays|does not pay) /m);
  });

  it('a window with no samples: one line saying which query found nothing, exit 2', async () => {
    const io = captureIO();
    const args = ['simulate', '--ehpa', EXAMPLE, '--prometheus-url', `http://127.0.0.1:${port}`, '--since', '1d', '--until', String(end - 10 * 86_400)];
    expect(await runCli(args, io)).to.equal(2);
    expect(io.err()).to.match(/Prometheus has no history for sum\(irate\(container_cpu_usage_seconds_total\{namespace="default"/);
    expect(io.out()).to.equal('');
  });
});
