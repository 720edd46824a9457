// A request line or headers over 16 KiB are answered at once, 414 or 431, over HTTP/2 as over HTTP/1.1.
// Past 64 KiB in one HTTP/2 header field, nghttp2 inside Node refuses the stream before any handler runs
// (asserted here, so a Node upgrade that lifts it shows up).
import { expect } from 'chai';
import { connect } from 'node:http2';
import { Agent, request } from 'node:https';
import { MAX_REQUEST_HEAD_BYTES } from '../../../src/adapter/metrics-api-handler.ts';
import { startTestAdapter, testPki, type Running } from '../../helpers/adapter-fixture.ts';

const PATH = '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue?labelSelector=';

function h2Get(a: Running, path: string, headers: Record<string, string> = {}): Promise<{ status: number; ms: number; session: 'open' | 'closed' }> {
  const p = testPki();
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const s = connect(`https://localhost:${a.handle.port}`, { ca: p.servingCa.certPem, cert: p.frontProxyClient.certPem, key: p.frontProxyClient.keyPem });
    s.on('error', reject);
    const r = s.request({ ':path': path, 'x-remote-user': 'hpa', ...headers });
    let status = 0;
    r.on('response', (h) => (status = Number(h[':status'])));
    r.on('error', reject);
    r.resume();
    r.on('close', () => {
      const session = s.closed || s.destroyed ? 'closed' : 'open';
      s.close();
      resolve({ status, ms: performance.now() - t0, session });
    });
    r.end();
  });
}

function h1Get(path: string, port: number): Promise<number> {
  const p = testPki();
  return new Promise((resolve, reject) => {
    const agent = new Agent({ ca: p.servingCa.certPem, cert: p.frontProxyClient.certPem, key: p.frontProxyClient.keyPem });
    const req = request({ host: 'localhost', port, path, agent, headers: { 'x-remote-user': 'hpa' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('oversized request lines and headers', function () {
  this.timeout(30_000);
  let a: Running;
  before(async () => {
    a = await startTestAdapter();
    a.authorizer.allowedUsers.add('hpa');
  });
  after(() => a.close());

  it('HTTP/2: a 60 KB query string gets 414 at once; a just-small-enough one reaches the handler', async () => {
    const big = await h2Get(a, PATH + 'a'.repeat(60_000));
    expect(big.status).to.equal(414);
    expect(big.ms).to.be.below(2_000);
    const fits = await h2Get(a, PATH + 'a'.repeat(MAX_REQUEST_HEAD_BYTES - PATH.length - 100));
    expect(fits.status).to.not.be.oneOf([414, 431]);
  });

  it('HTTP/2: 20 KB of other headers get 431; a 100 KB URI is refused by nghttp2 with REFUSED_STREAM', async () => {
    expect((await h2Get(a, PATH + 'x', { 'x-padding': 'p'.repeat(20_000) })).status).to.equal(431);
    const refused = await h2Get(a, PATH + 'a'.repeat(100_000)).then(() => 'answered', (e: Error) => e.message);
    expect(refused).to.match(/REFUSED_STREAM/);
  });

  it('HTTP/1.1: Node answers 431 past the same 16 KiB', async () => {
    expect(await h1Get(PATH + 'a'.repeat(100_000), a.handle.port)).to.equal(431);
    expect(await h1Get(PATH + 'a'.repeat(MAX_REQUEST_HEAD_BYTES - PATH.length - 400), a.handle.port)).to.not.be.oneOf([414, 431]);
  });
});
