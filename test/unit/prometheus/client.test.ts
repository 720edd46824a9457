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

describe('joinSeries against a reference join (random chunks, ordered or not)', () => {
  // Written here, independently of the code under test: every (timestamp, value) of every chunk into one
  // object per label set, later chunks overwriting, then sorted by time.
  function reference(chunks: { labels: Record<string, string>; timestamps: number[]; values: number[] }[][]) {
    const out = new Map<string, { labels: Record<string, string>; at: Record<number, number> }>();
    for (const chunk of chunks) {
      for (const s of chunk) {
        const key = JSON.stringify(Object.entries(s.labels).sort());
        const e = out.get(key) ?? { labels: s.labels, at: {} };
        out.set(key, e);
        s.timestamps.forEach((t, i) => (e.at[t] = s.values[i]!));
      }
    }
    return [...out.values()].map(({ labels, at }) => {
      const timestamps = Object.keys(at).map(Number).sort((a, b) => a - b);
      return { labels, timestamps, values: timestamps.map((t) => at[t]!) };
    });
  }
  // A small deterministic generator (mulberry32), so a failure is reproducible from its case number.
  function rng(seed: number) {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  it('equals the reference on 2,000 random cases: disjoint ascending chunks, overlaps, reversed chunks, gaps, several series', () => {
    for (let c = 0; c < 2000; c++) {
      const r = rng(c + 1);
      const kind = c % 4; // 0, 1: ascending and disjoint (the usual case); 2: overlapping; 3: chunk order reversed
      const chunks: { labels: Record<string, string>; timestamps: number[]; values: number[] }[][] = [];
      let t = Math.floor(r() * 100) * 60;
      for (let k = 0; k < 1 + Math.floor(r() * 4); k++) {
        if (kind === 2 && k > 0) t -= 60 * Math.floor(1 + r() * 3);
        const chunk = [];
        for (let s = 0; s < 1 + Math.floor(r() * 3); s++) {
          const timestamps: number[] = [];
          let u = t;
          for (let i = 0; i < Math.floor(r() * 6); i++) {
            u += 60 * (1 + Math.floor(r() * 2)); // gaps of one step now and then
            timestamps.push(u);
          }
          chunk.push({ labels: { pod: `p${s}` }, timestamps, values: timestamps.map(() => Math.round(r() * 1000) / 10) });
        }
        t += 60 * 20;
        chunks.push(chunk);
      }
      if (kind === 3) chunks.reverse();
      const got = joinSeries(chunks);
      expect(got, `case ${c}`).to.deep.equal(reference(chunks));
    }
  });
  it('a later chunk wins on a shared timestamp, whatever the order of the chunks', () => {
    expect(joinSeries([
      [{ labels: {}, timestamps: [0, 60, 120], values: [1, 2, 3] }],
      [{ labels: {}, timestamps: [120, 180], values: [30, 4] }],
    ])).to.deep.equal([{ labels: {}, timestamps: [0, 60, 120, 180], values: [1, 2, 30, 4] }]);
    expect(joinSeries([
      [{ labels: {}, timestamps: [120, 180], values: [30, 4] }],
      [{ labels: {}, timestamps: [0, 60], values: [1, 2] }],
    ])).to.deep.equal([{ labels: {}, timestamps: [0, 60, 120, 180], values: [1, 2, 30, 4] }]);
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
