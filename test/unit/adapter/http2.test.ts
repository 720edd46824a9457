// The metrics API over HTTP/2, as kube-apiserver's proxy speaks it: client-go's transport offers h2 by ALPN
// (k8s.io/apimachinery v0.34 pkg/util/net/http.go SetTransportDefaults) and then multiplexes every request
// over one connection. Over HTTP/1.1 it needed a connection, hence a TLS handshake on both sides, for each
// request in flight at once: a moment of slowness turned into dozens of handshakes (seen on the real
// control plane, test/serial/hostile-tenant.test.ts: 49 new connections from kube-apiserver to serve within
// one second of the attack). HTTP/1.1 clients are still served (server-limits.test.ts speaks it).
import { expect } from 'chai';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { SERVER_LIMITS } from '../../../src/adapter/server.ts';
import { startTestAdapter, testPki, type Running } from '../../helpers/adapter-fixture.ts';

const DISCOVERY = '/apis/external.metrics.k8s.io/v1beta1';

function h2Session(port: number, cert: 'front-proxy' | 'none' = 'front-proxy'): Promise<ClientHttp2Session> {
  const p = testPki();
  return new Promise((resolve, reject) => {
    const s = connect(`https://localhost:${port}`, {
      ca: p.servingCa.certPem,
      ...(cert === 'front-proxy' ? { cert: p.frontProxyClient.certPem, key: p.frontProxyClient.keyPem } : {}),
    });
    s.once('remoteSettings', () => resolve(s));
    s.once('error', reject);
  });
}

interface H2Reply {
  status: number;
  text: string;
  headers: Record<string, unknown>;
}

function h2Get(s: ClientHttp2Session, path: string, headers: Record<string, string> = {}, body?: string): Promise<H2Reply> {
  return new Promise((resolve, reject) => {
    const req = s.request({ ':method': body === undefined ? 'GET' : 'POST', ':path': path, ...headers }, { endStream: body === undefined });
    let status = 0;
    let hdrs: Record<string, unknown> = {};
    let text = '';
    req.on('response', (h) => {
      status = Number(h[':status']);
      hdrs = h;
    });
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => resolve({ status, text, headers: hdrs }));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
  });
}

async function connectionsByProtocol(a: Running): Promise<Record<string, number>> {
  const m = await a.registry.getSingleMetric('ehpa_adapter_metrics_api_connections_total')?.get();
  return Object.fromEntries((m?.values ?? []).map((v) => [String(v.labels.protocol), v.value]));
}

describe('metrics API over HTTP/2 (what kube-apiserver negotiates)', function () {
  this.timeout(30_000);
  let a: Running;
  before(async () => {
    a = await startTestAdapter();
    a.authorizer.allowedUsers.add('hpa');
  });
  after(() => a.close());

  it('advertises h2 with a bounded number of streams per connection (Go\'s server default, 250)', async () => {
    expect(SERVER_LIMITS.maxStreamsPerConnection).to.equal(250);
    const s = await h2Session(a.handle.port);
    try {
      expect(s.alpnProtocol).to.equal('h2');
      expect(s.remoteSettings.maxConcurrentStreams).to.equal(250);
    } finally {
      s.close();
    }
  });

  it('200 requests in flight at once travel over one connection, each authenticated and answered', async () => {
    const before = await connectionsByProtocol(a);
    const s = await h2Session(a.handle.port);
    try {
      a.authorizer.calls = [];
      const replies = await Promise.all(Array.from({ length: 200 }, () => h2Get(s, DISCOVERY, { 'x-remote-user': 'hpa' })));
      expect(replies.map((r) => r.status)).to.deep.equal(Array(200).fill(200));
      expect(JSON.parse(replies[0]!.text).groupVersion).to.equal('external.metrics.k8s.io/v1beta1');
      // Every request was authorized as the user its headers name (the front-proxy certificate verified once
      // for the connection, the identity read per request).
      expect(a.authorizer.calls.length).to.equal(200);
      expect(new Set(a.authorizer.calls.map((c) => c.user.name))).to.deep.equal(new Set(['hpa']));
      const after = await connectionsByProtocol(a);
      expect((after.h2 ?? 0) - (before.h2 ?? 0), 'new h2 connections').to.equal(1);
      expect(after['http/1.1'] ?? 0, 'no HTTP/1.1 connection').to.equal(before['http/1.1'] ?? 0);
    } finally {
      s.close();
    }
  });

  it('the identity of each request comes from its own headers, not from the connection\'s first request', async () => {
    a.authorizer.allowedUsers.delete('mallory');
    const s = await h2Session(a.handle.port);
    try {
      const [ok, denied] = await Promise.all([h2Get(s, DISCOVERY, { 'x-remote-user': 'hpa' }), h2Get(s, DISCOVERY, { 'x-remote-user': 'mallory' })]);
      expect(ok.status).to.equal(200);
      expect(denied.status).to.equal(403);
    } finally {
      s.close();
    }
  });

  it('without the front-proxy certificate the X-Remote-User header is not believed: anonymous, 403', async () => {
    const s = await h2Session(a.handle.port, 'none');
    try {
      a.authorizer.calls = [];
      const r = await h2Get(s, DISCOVERY, { 'x-remote-user': 'hpa' });
      expect(r.status).to.equal(403);
      expect(a.authorizer.calls.map((c) => c.user.name)).to.deep.equal(['system:anonymous']);
    } finally {
      s.close();
    }
  });

  it('a request body gets 413 and only its stream is reset: the connection keeps serving', async () => {
    const s = await h2Session(a.handle.port);
    try {
      a.authorizer.calls = [];
      const refused = await h2Get(s, DISCOVERY, { 'x-remote-user': 'hpa', 'content-length': '1000000' }, '{"a":');
      expect(refused.status).to.equal(413);
      expect(refused.headers.connection, 'no connection header in HTTP/2').to.equal(undefined);
      expect(a.authorizer.calls).to.deep.equal([]);
      const next = await h2Get(s, DISCOVERY, { 'x-remote-user': 'hpa' });
      expect(next.status).to.equal(200);
      expect(s.closed || s.destroyed).to.equal(false);
    } finally {
      s.close();
    }
  });

  it('a stream the client never ends is closed once answered', async () => {
    const s = await h2Session(a.handle.port);
    try {
      const req = s.request({ ':method': 'GET', ':path': '/healthz' }, { endStream: false });
      let status = 0;
      req.on('response', (h) => (status = Number(h[':status'])));
      await new Promise((resolve) => {
        req.on('close', resolve);
        req.resume();
      });
      expect(status).to.equal(200);
      expect(req.rstCode).to.equal(constants.NGHTTP2_NO_ERROR);
    } finally {
      s.close();
    }
  });

  it('a request still unanswered after the request timeout is cancelled, and the connection goes on', async () => {
    // An authorizer that never answers stands for any stuck dependency of an answer.
    const b = await startTestAdapter({ limits: { requestTimeoutMs: 300 }, authorizer: { authorize: () => new Promise(() => undefined) } });
    const s = await h2Session(b.handle.port);
    try {
      const req = s.request({ ':method': 'GET', ':path': DISCOVERY, 'x-remote-user': 'hpa' });
      const started = Date.now();
      await new Promise((resolve) => {
        req.on('close', resolve);
        req.on('error', () => undefined);
        req.resume();
      });
      expect(req.rstCode).to.equal(constants.NGHTTP2_CANCEL);
      expect(Date.now() - started).to.be.within(200, 5_000);
      expect((await h2Get(s, '/healthz')).status).to.equal(200);
    } finally {
      s.close();
      await b.close();
    }
  });

  it('an idle connection is closed after the keep-alive time', async () => {
    const b = await startTestAdapter({ limits: { keepAliveTimeoutMs: 300 } });
    try {
      const s = await h2Session(b.handle.port);
      expect((await h2Get(s, '/healthz')).status).to.equal(200);
      const started = Date.now();
      await new Promise((r) => s.once('close', r));
      expect(Date.now() - started).to.be.within(200, 5_000);
    } finally {
      await b.close();
    }
  });
});
