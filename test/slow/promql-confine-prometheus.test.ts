// The confinement rewrites, run through a real Prometheus (Debian's `prometheus` on loopback, empty TSDB,
// scraping only itself): every rewritten query from the table must parse and evaluate there, and a
// confined query must only see its namespace's series. Prometheus 2 refuses the Prometheus 3 syntax
// (quoted UTF-8 label names), so those table rows are skipped here.
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, waitFor, type ManagedProcess } from '../e2e/harness/processes.ts';
import { freePort } from '../e2e/harness/ports.ts';
import { confineToNamespace } from '../../src/prometheus/promql-confine.ts';
import { CONFINE_CASES, NS } from '../helpers/promql-confine-cases.ts';

interface QueryAnswer {
  status: string;
  error?: string;
  data?: { resultType: string; result: { metric: Record<string, string> }[] | unknown };
}

function which(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error(`${name} not found on PATH; run scripts/install-system-deps.sh`);
}

describe('confined PromQL in a real Prometheus', function () {
  this.timeout(120_000);
  let dir: string;
  let port: number;
  let prom: ManagedProcess | undefined;

  const query = async (q: string): Promise<QueryAnswer> => {
    const u = new URL(`http://127.0.0.1:${port}/api/v1/query`);
    u.search = new URLSearchParams({ query: q, time: String(Date.now() / 1000) }).toString();
    return (await (await fetch(u)).json()) as QueryAnswer;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'promql-confine-'));
    port = await freePort();
    // Prometheus scrapes itself twice, as two "namespaces": `up` then has one series in each.
    writeFileSync(join(dir, 'prometheus.yml'), [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: self',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${port}']`,
      `        labels: { namespace: ${NS} }`,
      `      - targets: ['localhost:${port}']`,
      '        labels: { namespace: other }',
      '',
    ].join('\n'));
    prom = startProcess({
      name: 'prometheus',
      command: which('prometheus'),
      logDir: dir,
      args: [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    });
    await waitFor('prometheus /-/ready', async () => (await fetch(`http://127.0.0.1:${port}/-/ready`)).ok, { process: prom, timeoutMs: 60_000 });
    await waitFor('both self-scrapes in `up`', async () => {
      const r = await query('count(up)');
      return r.status === 'success' && JSON.stringify(r.data?.result).includes('"2"');
    }, { process: prom, timeoutMs: 60_000 });
  });

  after(async () => {
    await prom?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('accepts and evaluates every rewritten query of the table', async () => {
    const refused: string[] = [];
    let checked = 0;
    for (const c of CONFINE_CASES) {
      if (c.prometheus3) continue;
      const r = await query(confineToNamespace(c.query, NS));
      if (r.status !== 'success') refused.push(`${c.name}: ${JSON.stringify(c.want)} -> ${r.error}`);
      checked++;
    }
    expect(refused).to.deep.equal([]);
    expect(checked).to.be.greaterThan(30);
  });

  it('a confined query sees only its namespace', async () => {
    const all = await query('up');
    expect((all.data?.result as { metric: Record<string, string> }[]).map((s) => s.metric['namespace']).sort()).to.deep.equal(['other', NS].sort());
    const mine = await query(confineToNamespace('sum by (namespace) (up) or up', NS));
    const seen = (mine.data?.result as { metric: Record<string, string> }[]).map((s) => s.metric['namespace']);
    expect(seen.length).to.be.greaterThan(0);
    expect([...new Set(seen)]).to.deep.equal([NS]);
  });

  it('ends a comment at a carriage return, which is why the confiner refuses one there', async () => {
    // If Prometheus read `# c\r)` as one comment, `up` alone would be a valid query. It reads `)` as code.
    const r = await query('up # c\r)');
    expect(r.status).to.equal('error');
    expect(r.error).to.match(/parenthesis|unexpected/);
    expect(() => confineToNamespace('up # c\r)', NS)).to.throw(/carriage return/);
  });
});
