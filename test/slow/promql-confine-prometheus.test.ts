// The confinement rewrites, run through a real Prometheus (Debian's `prometheus` on loopback, empty TSDB,
// scraping only itself): every rewritten query from the table must parse and evaluate there, and a
// confined query must only see its namespace's series. Prometheus 2 refuses the Prometheus 3 syntax
// (quoted UTF-8 label names), so those table rows are skipped here.
// The cost bounds too: every query they accept evaluates here, and one they refuse (`[30d:1s]`) is never
// sent (Prometheus' own request counter does not move).
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, waitFor, type ManagedProcess } from '../e2e/harness/processes.ts';
import { freePort } from '../e2e/harness/ports.ts';
import { which } from '../e2e/harness/binaries.ts';
import { applyUserPromqlPolicy, confineToNamespace } from '../../src/prometheus/promql-confine.ts';
import { PrometheusClient } from '../../src/prometheus/client.ts';
import { metricQuery } from '../../src/prediction/history/queries.ts';
import type { TimeSeriesPrediction } from '../../src/api/prediction.ts';
import { CONFINE_CASES, COST_CASES, NS } from '../helpers/promql-confine-cases.ts';

interface QueryAnswer {
  status: string;
  error?: string;
  data?: { resultType: string; result: { metric: Record<string, string> }[] | unknown };
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

  it('evaluates every query the cost bounds accept (their defaults), confined', async () => {
    const namespaced = { mode: 'namespaced' as const, unrestrictedNamespaces: new Set<string>() };
    const refused: string[] = [];
    let checked = 0;
    for (const c of COST_CASES) {
      if (c.error || c.prometheus3) continue;
      const r = await query(applyUserPromqlPolicy(namespaced, NS, c.query));
      if (r.status !== 'success') refused.push(`${c.name}: ${r.error}`);
      checked++;
    }
    expect(refused).to.deep.equal([]);
    expect(checked).to.be.greaterThan(10);
  });

  it('a TSP expression with a [30d:1s] subquery never reaches Prometheus; the bounded one does and evaluates', async () => {
    // Prometheus' own count of query_range requests, read from its /metrics.
    const rangeRequests = async (): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const m = /prometheus_http_requests_total\{code="200",handler="\/api\/v1\/query_range"\} (\d+)/.exec(text);
      return m ? Number(m[1]) : 0;
    };
    const client = new PrometheusClient({ url: `http://127.0.0.1:${port}` });
    const tsp = { metadata: { namespace: NS, name: 'web' }, spec: { targetRef: { kind: 'Deployment', name: 'web' } } } as TimeSeriesPrediction;
    const expression = (e: string) => ({ resourceIdentifier: 'up', type: 'ExpressionQuery' as const, expressionQuery: { expression: e } });
    const read = async (e: string) => {
      const end = Math.floor(Date.now() / 1000);
      return client.queryRange(metricQuery(tsp, expression(e)), end - 60, end, 15, { namespace: NS });
    };
    const before = await rangeRequests();
    let error: Error | undefined;
    await read('max_over_time(sum(up)[30d:1s])').catch((e: Error) => (error = e));
    expect(error?.message).to.match(/subquery range \[30d\] is longer than the 1h .*--user-promql-max-range/);
    expect(client.requests).to.equal(0);
    expect(await rangeRequests()).to.equal(before);
    // The bounded query evaluates; read again until a 10 s subquery step holds a scrape of this young TSDB.
    let series = await read('max_over_time(sum(up)[1h:10s])');
    await waitFor('a subquery step with data', async () => (series = await read('max_over_time(sum(up)[1h:10s])')).length > 0, { process: prom!, timeoutMs: 30_000 });
    expect(client.requests).to.be.greaterThan(0);
    expect(await rangeRequests()).to.equal(before + client.requests);
    // One namespace's `up` (one self-scrape) summed: 1 at every step.
    expect(series).to.have.length(1);
    expect(series[0]!.values.length).to.be.greaterThan(0);
    expect(new Set(series[0]!.values)).to.deep.equal(new Set([1]));
  });

  it('ends a comment at a carriage return, which is why the confiner refuses one there', async () => {
    // If Prometheus read `# c\r)` as one comment, `up` alone would be a valid query. It reads `)` as code.
    const r = await query('up # c\r)');
    expect(r.status).to.equal('error');
    expect(r.error).to.match(/parenthesis|unexpected/);
    expect(() => confineToNamespace('up # c\r)', NS)).to.throw(/carriage return/);
  });
});
