// HTTPS DoS bounds (L1): request bodies refused before authorization and never drained, the connection
// cap, and the handshake and headers deadlines (shortened here through `limits`; production values in
// SERVER_LIMITS).
import { expect } from 'chai';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { connect as netConnect } from 'node:net';
import { SERVER_LIMITS } from '../../../src/adapter/server.ts';
import { startTestAdapter, testPki, type Running } from '../../helpers/adapter-fixture.ts';

function openTls(port: number): Promise<TLSSocket> {
  const p = testPki();
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, servername: 'localhost', ca: p.servingCa.certPem, cert: p.frontProxyClient.certPem, key: p.frontProxyClient.keyPem }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves with everything the server sent once it closes the connection (or rejects after `ms`). */
function readUntilClosed(s: TLSSocket | import('node:net').Socket, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`connection still open after ${ms}ms; got ${JSON.stringify(text.slice(0, 200))}`)), ms);
    s.on('data', (c: Buffer) => (text += c.toString('utf8')));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

describe('metrics API server bounds (L1)', function () {
  this.timeout(30_000);

  it('production limits: 10 s handshake, 30 s headers, 60 s request, 120 s keep-alive, 1024 trusted and 128 untrusted connections, 250 HTTP/2 streams each', () => {
    expect(SERVER_LIMITS).to.deep.equal({ handshakeTimeoutMs: 10_000, headersTimeoutMs: 30_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 120_000, maxConnections: 1024, maxUntrustedConnections: 128, maxStreamsPerConnection: 250 });
  });

  describe('request bodies', () => {
    let a: Running;
    before(async () => {
      a = await startTestAdapter();
      a.authorizer.allowedUsers.add('*');
    });
    after(() => a.close());
    const path = '/apis/external.metrics.k8s.io/v1beta1';

    it('a Content-Length body gets 413 before authentication or authorization, and the connection is closed', async () => {
      a.authorizer.calls = [];
      const s = await openTls(a.handle.port);
      const closed = readUntilClosed(s, 5_000);
      s.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nX-Remote-User: hpa\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"a":`);
      const text = await closed;
      expect(text).to.match(/^HTTP\/1\.1 413 /);
      expect(text).to.match(/connection: close/i);
      expect(text).to.contain('"reason":"RequestEntityTooLarge"');
      expect(a.authorizer.calls).to.deep.equal([]);
    });

    it('a chunked body that keeps coming is refused at its first chunk, not drained', async () => {
      a.authorizer.calls = [];
      const s = await openTls(a.handle.port);
      const closed = readUntilClosed(s, 5_000);
      s.write(`PUT ${path} HTTP/1.1\r\nHost: localhost\r\nX-Remote-User: hpa\r\nTransfer-Encoding: chunked\r\n\r\n`);
      // Keep streaming chunks; the server must answer and hang up regardless.
      let sent = 0;
      const pump = setInterval(() => {
        if (!s.destroyed && sent < 500) {
          s.write('400\r\n' + 'z'.repeat(1024) + '\r\n');
          sent++;
        }
      }, 5);
      try {
        const text = await closed;
        expect(text).to.match(/^HTTP\/1\.1 413 /);
        expect(sent, 'closed while the client was still sending').to.be.lessThan(500);
      } finally {
        clearInterval(pump);
      }
      expect(a.authorizer.calls).to.deep.equal([]);
    });

    it('POST without a body is still authorized first (verb create) and then 405, as the apiserver library does', async () => {
      a.authorizer.calls = [];
      const r = await a.get(path, { method: 'POST', headers: [['X-Remote-User', 'hpa']] });
      expect(r.status).to.equal(405);
      expect(a.authorizer.calls.map((c) => c.attrs)).to.deep.equal([{ nonResource: { path, verb: 'post' } }]);
    });
  });

  it('--max-connections: a trusted connection over the cap is closed right after its handshake and counted', async () => {
    const a = await startTestAdapter({ limits: { maxConnections: 2 } });
    const open: TLSSocket[] = [];
    try {
      open.push(await openTls(a.handle.port), await openTls(a.handle.port));
      const third = await openTls(a.handle.port);
      await readUntilClosed(third, 2_000);
      expect(await a.registry.getSingleMetricAsString('ehpa_adapter_metrics_api_dropped_connections_total')).to.match(/ehpa_adapter_metrics_api_dropped_connections_total 1$/m);
      // Room again once one closes.
      open.shift()?.destroy();
      const deadline = Date.now() + 5_000;
      for (;;) {
        const again = await openTls(a.handle.port);
        const closed = readUntilClosed(again, 300).then(() => true, () => false);
        if (!(await closed)) {
          open.push(again);
          break;
        }
        if (Date.now() > deadline) throw new Error('no room after a trusted connection closed');
      }
    } finally {
      for (const s of open) s.destroy();
      await a.close();
    }
  });

  it('--max-untrusted-connections: a flood of idle sockets without a trusted certificate leaves the aggregator its room', async () => {
    const a = await startTestAdapter({ limits: { maxConnections: 4, maxUntrustedConnections: 20 } });
    a.authorizer.allowedUsers.add('hpa');
    const flood: import('node:net').Socket[] = [];
    const p = testPki();
    try {
      // 60 raw TCP sockets that never handshake, and 20 TLS connections with a self-signed client certificate.
      for (let i = 0; i < 60; i++) {
        const s = netConnect(a.handle.port, '127.0.0.1');
        s.on('error', () => undefined);
        flood.push(s);
      }
      for (let i = 0; i < 20; i++) {
        const s = await new Promise<TLSSocket>((resolve, reject) => {
          const t = tlsConnect({ host: '127.0.0.1', port: a.handle.port, servername: 'localhost', ca: p.servingCa.certPem, cert: p.untrustedClient.certPem, key: p.untrustedClient.keyPem }, () => resolve(t));
          t.once('error', reject);
        });
        s.on('error', () => undefined);
        flood.push(s);
      }
      await new Promise((r) => setTimeout(r, 100));
      const evicted = Number(/ehpa_adapter_metrics_api_evicted_connections_total (\d+)$/m.exec(await a.registry.getSingleMetricAsString('ehpa_adapter_metrics_api_evicted_connections_total'))?.[1]);
      // 80 untrusted sockets into a pool of 20: the 60 oldest went.
      expect(evicted).to.equal(60);
      // The aggregator's connection (front-proxy certificate) is made and answered, twice the trusted cap over.
      for (let i = 0; i < 8; i++) {
        const r = await a.get('/apis/external.metrics.k8s.io/v1beta1', { headers: [['X-Remote-User', 'hpa']] });
        expect(r.status).to.equal(200);
      }
      const fresh = await openTls(a.handle.port);
      const stillOpen = await readUntilClosed(fresh, 300).then(() => false, () => true);
      expect(stillOpen, 'a fresh trusted connection during the flood stays open').to.equal(true);
      fresh.destroy();
    } finally {
      for (const s of flood) s.destroy();
      await a.close();
    }
  });

  it('a client that never finishes the TLS handshake is cut at the handshake timeout', async () => {
    const a = await startTestAdapter({ limits: { handshakeTimeoutMs: 300 } });
    try {
      const s = netConnect(a.handle.port, '127.0.0.1');
      await new Promise((r) => s.once('connect', r));
      const started = Date.now();
      await readUntilClosed(s, 5_000);
      expect(Date.now() - started).to.be.within(200, 3_000);
    } finally {
      await a.close();
    }
  });

  it('a client that trickles its headers is cut at the headers timeout (408)', async () => {
    const a = await startTestAdapter({ limits: { headersTimeoutMs: 400, requestTimeoutMs: 800 } });
    try {
      const s = await openTls(a.handle.port);
      const closed = readUntilClosed(s, 5_000);
      const started = Date.now();
      s.write('GET /apis HTTP/1.1\r\nHost: localhost\r\n');
      const drip = setInterval(() => !s.destroyed && s.write('X-Slow: 1\r\n'), 50);
      try {
        const text = await closed;
        expect(text).to.match(/^HTTP\/1\.1 408 /);
        expect(Date.now() - started).to.be.within(300, 3_000);
      } finally {
        clearInterval(drip);
      }
    } finally {
      await a.close();
    }
  });
});
