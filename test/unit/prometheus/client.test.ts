import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrometheusError, PrometheusClient, joinSeries, parseMatrix, redactUrl, splitRange } from '../../../src/prometheus/client.ts';
import { podNameRegex, workloadCpuQuery } from '../../../src/prediction/history/queries.ts';

describe('splitRange', () => {
  it('keeps each chunk at or under maxPoints points and covers the range without overlap', () => {
    // 15 days at 60 s is 21,601 points: more than Prometheus' 11,000 limit (docs/testing.md).
    const start = 1_700_000_000;
    const end = start + 15 * 86_400;
    const chunks = splitRange(start, end, 60, 11_000);
    expect(chunks).to.have.length(2);
    let expected = start;
    for (const [s, e] of chunks) {
      expect(s).to.equal(expected);
      expect((e - s) / 60 + 1).to.be.at.most(11_000);
      expected = e + 60;
    }
    expect(chunks[chunks.length - 1]![1]).to.equal(end);
  });
  it('returns one chunk for short ranges and refuses a zero step', () => {
    expect(splitRange(0, 600, 60, 11_000)).to.deep.equal([[0, 600]]);
    expect(() => splitRange(0, 600, 0, 10)).to.throw(PrometheusError);
  });
});

describe('parseMatrix / joinSeries', () => {
  it('drops NaN and Inf samples and keeps labels', () => {
    const s = parseMatrix({ status: 'success', data: { resultType: 'matrix', result: [{ metric: { pod: 'a' }, values: [[60, '1.5'], [120, 'NaN'], [180, '+Inf'], [240, '2']] }] } });
    expect(s).to.deep.equal([{ labels: { pod: 'a' }, timestamps: [60, 240], values: [1.5, 2] }]);
  });
  it('turns a Prometheus error body into a PrometheusError', () => {
    expect(() => parseMatrix({ status: 'error', errorType: 'bad_data', error: 'exceeded maximum resolution' })).to.throw(PrometheusError, /exceeded maximum resolution/);
  });
  it('joins chunks per label set in time order', () => {
    const j = joinSeries([
      [{ labels: { a: '1' }, timestamps: [0, 60], values: [1, 2] }],
      [{ labels: { a: '1' }, timestamps: [120], values: [3] }, { labels: { a: '2' }, timestamps: [120], values: [9] }],
    ]);
    expect(j).to.deep.equal([
      { labels: { a: '1' }, timestamps: [0, 60, 120], values: [1, 2, 3] },
      { labels: { a: '2' }, timestamps: [120], values: [9] },
    ]);
  });
});

describe('PrometheusClient against a local HTTP server', () => {
  let server: Server;
  let url = '';
  const seen: URLSearchParams[] = [];
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const p = new URLSearchParams(body);
        seen.push(p);
        if (p.get('query') === 'boom') {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error' }));
          return;
        }
        if (req.url === '/api/v1/query') {
          // Instant query: one finite sample and one NaN (dropped by the client).
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ metric: { pod: 'a' }, value: [1700000000.5, '0.25'] }, { metric: { pod: 'b' }, value: [1700000000.5, 'NaN'] }] } }));
          return;
        }
        const start = Number(p.get('start'));
        const end = Number(p.get('end'));
        const step = Number(p.get('step'));
        const values: [number, string][] = [];
        for (let t = start; t <= end; t += step) values.push([t, String(t / 60)]);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [{ metric: {}, values }] } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('splits a long range into requests under the point limit and joins them seamlessly', async () => {
    seen.length = 0;
    const h = new PrometheusClient({ url, maxPoints: 100 });
    const [s] = await h.queryRange('up', 0, 250 * 60, 60);
    expect(seen).to.have.length(3);
    expect(s!.timestamps).to.have.length(251);
    expect(s!.timestamps.every((t, i) => t === i * 60)).to.equal(true);
  });
  it('answers instant queries on /api/v1/query with one sample per series, non-finite values dropped', async () => {
    seen.length = 0;
    const c = new PrometheusClient({ url });
    expect(await c.queryInstant('rate(x[1m])')).to.deep.equal([{ labels: { pod: 'a' }, time: 1700000000.5, value: 0.25 }]);
    expect(seen.map((p) => p.get('query'))).to.deep.equal(['rate(x[1m])']);
    expect(c.requests).to.equal(1);
  });
  it('reports query errors and an unreachable server as PrometheusError', async () => {
    await new PrometheusClient({ url }).queryRange('boom', 0, 60, 60).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e).to.be.instanceOf(PrometheusError).and.have.property('message').that.contains('parse error'),
    );
    await new PrometheusClient({ url: 'http://127.0.0.1:1', timeoutMs: 2000 }).queryRange('up', 0, 60, 60).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e).to.be.instanceOf(PrometheusError).and.have.property('message').that.contains('unreachable'),
    );
  });
});

describe('workload queries (crane-behaviour.md §B.4 templates)', () => {
  it('builds the cAdvisor CPU query with the Deployment pod regex', () => {
    expect(workloadCpuQuery('ns', 'Deployment', 'web')).to.equal('sum(irate(container_cpu_usage_seconds_total{namespace="ns",pod=~"^web-[a-z0-9]+-[a-z0-9]{5}$",container!=""}[3m]))');
    expect(podNameRegex('StatefulSet', 'db')).to.equal('^db-[0-9]+$');
    expect(podNameRegex('Rollout', 'x')).to.equal('^x-.*');
  });
});

describe('credentials in the Prometheus URL', () => {
  it('never appear in errors (they reach TSP statuses, events and 503 bodies)', async () => {
    const c = new PrometheusClient({ url: 'http://alice:s3cret@127.0.0.1:1', timeoutMs: 2000 });
    const e = await c.queryRange('up', 0, 60, 60).then(
      () => expect.fail('should reject'),
      (err: Error) => err,
    );
    expect(e).to.be.instanceOf(PrometheusError);
    expect(e.message).to.contain('unreachable at http://127.0.0.1:1');
    expect(e.message).to.not.contain('s3cret');
    expect(e.message).to.not.contain('alice');
  });
  it('redactUrl drops userinfo and leaves everything else as written', () => {
    expect(redactUrl('https://alice:s3cret@prom.example:9090/prefix')).to.equal('https://prom.example:9090/prefix');
    expect(redactUrl('http://prom:9090')).to.equal('http://prom:9090');
    expect(redactUrl('failed: https://a:b@x/y')).to.equal('failed: https://x/y');
  });
});
