// What one query may cost the process (docs/security.md §2): chunk count checked before anything is
// sent, response bytes counted on the stream, series capped per caller, reads cancelled by a signal.
import { expect } from 'chai';
import { cpuMs } from '../../helpers/cpu-time.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_RANGE_CHUNKS, PrometheusClient, PrometheusError, splitRange } from '../../../src/prometheus/client.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<{ url: string; server: Server; requests: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests: () => n };
}

const close = (s: Server) =>
  new Promise<void>((r) => {
    s.closeAllConnections();
    s.close(() => r());
  });

function matrix(series: number, points: number, t0 = 0): string {
  const result = Array.from({ length: series }, (_, i) => ({
    metric: { pod: `p${i}` },
    values: Array.from({ length: points }, (_, j) => [t0 + j * 60, '1']),
  }));
  return JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } });
}

describe('Prometheus client bounds', () => {
  it('refuses a range that needs more chunks than MAX_RANGE_CHUNKS before sending anything, in constant time', () => {
    // The review's repro: sampleInterval "1ns" over 15 days was 1.18e11 chunks built before the first request.
    // CPU time (test/helpers/cpu-time.ts): building 1e11 chunks would take minutes of it; refusing takes microseconds.
    expect(cpuMs(() => expect(() => splitRange(0, 15 * 86_400, 1e-9, 11_000)).to.throw(PrometheusError, /needs 1\d{11} queries/))).to.be.below(50);
    expect(splitRange(0, 60 * (11_000 * MAX_RANGE_CHUNKS - 1), 60, 11_000)).to.have.length(MAX_RANGE_CHUNKS);
    expect(() => splitRange(0, 60 * 11_000 * MAX_RANGE_CHUNKS, 60, 11_000)).to.throw(PrometheusError, /more than 1000/);
  });

  it('sends no request for an over-long range', async () => {
    const p = await serve((_q, res) => res.end(matrix(1, 1)));
    try {
      const err = await new PrometheusClient({ url: p.url }).queryRange('up', 0, 100_000_000 * 86_400, 60).catch((e: Error) => e);
      expect(err).to.be.instanceOf(PrometheusError);
      expect(p.requests()).to.equal(0);
    } finally {
      await close(p.server);
    }
  });

  it('abandons a body past maxResponseBytes, whether declared or streamed (chunked)', async () => {
    const body = matrix(50, 200); // ~160 KB
    const declared = await serve((_q, res) => {
      res.setHeader('content-length', Buffer.byteLength(body));
      res.end(body);
    });
    const chunked = await serve((_q, res) => {
      // No content-length: the client must count as it reads.
      res.write(body.slice(0, 1000));
      setTimeout(() => res.end(body.slice(1000)), 5);
    });
    try {
      for (const p of [declared, chunked]) {
        const small = new PrometheusClient({ url: p.url, maxResponseBytes: 100_000 });
        const e = await small.queryRange('x', 0, 60, 60).catch((err: Error) => err);
        expect(e).to.be.instanceOf(PrometheusError);
        expect((e as Error).message).to.match(/more than the 100000 bytes/);
        // The same answer under a larger cap parses.
        const big = new PrometheusClient({ url: p.url, maxResponseBytes: 1_000_000 });
        expect(await big.queryRange('x', 0, 60, 60)).to.have.length(50);
      }
    } finally {
      await close(declared.server);
      await close(chunked.server);
    }
  });

  it('fails a query returning more series than maxSeries after the first chunk', async () => {
    const p = await serve((_q, res) => res.end(matrix(101, 3)));
    try {
      const c = new PrometheusClient({ url: p.url, maxPoints: 100 });
      // 3 chunks' worth of range; the cap trips on the first.
      const e = await c.queryRange('x', 0, 60 * 250, 60, { maxSeries: 100 }).catch((err: Error) => err);
      expect(e).to.be.instanceOf(PrometheusError);
      expect((e as Error).message).to.match(/101 series or more, more than the 100/);
      expect(p.requests()).to.equal(1);
      // Exactly at the cap is fine; without a cap (the VPA's cluster-wide queries) anything goes.
      expect(await c.queryRange('x', 0, 60, 60, {})).to.have.length(101);
    } finally {
      await close(p.server);
    }
  });

  it('an abort stops a pending request at once and sends no further chunk', async () => {
    const p = await serve(() => {
      // never answers
    });
    try {
      const c = new PrometheusClient({ url: p.url, maxPoints: 10, timeoutMs: 60_000 });
      const ac = new AbortController();
      const t0 = performance.now();
      const pending = c.queryRange('x', 0, 60 * 1000, 60, { signal: ac.signal }).catch((e: unknown) => e);
      setTimeout(() => ac.abort(new Error('tsp deleted')), 50);
      const e = await pending;
      expect((e as Error).message).to.equal('tsp deleted');
      expect(performance.now() - t0).to.be.below(5_000);
      expect(p.requests()).to.equal(1);
      // Already aborted: nothing is sent.
      const e2 = await c.queryRange('x', 0, 60, 60, { signal: ac.signal }).catch((err: unknown) => err);
      expect((e2 as Error).message).to.equal('tsp deleted');
      expect(p.requests()).to.equal(1);
    } finally {
      await close(p.server);
    }
  });
});
