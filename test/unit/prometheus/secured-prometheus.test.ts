// The one Prometheus client against a secured endpoint (docs/operations.md, "Secured Prometheus"):
// real TLS on loopback with a test CA, basic auth and bearer tokens from files (re-read when stale), mutual
// TLS, extra headers, the concurrency limit. A wrong credential is a clear error, never a hang, and no
// secret appears in any error text.
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCertificate, type KeyedCert } from '../../../src/adapter/cert-factory.ts';
import { PrometheusClient, PrometheusError } from '../../../src/prometheus/client.ts';
import { prometheusOptionsFromFlags, type PrometheusFlags } from '../../../src/prometheus/flags.ts';
import { UsageError } from '../../../src/config/flags.ts';

const day = 86_400_000;
const now = Date.now();
const ca = issueCertificate({ commonName: 'test-prometheus-ca', usage: 'ca', notBefore: new Date(now - day), notAfter: new Date(now + day) });
const serverCert = issueCertificate({ commonName: 'prometheus', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], usage: 'server', notBefore: new Date(now - day), notAfter: new Date(now + day) }, ca);
const clientCert = issueCertificate({ commonName: 'ehpa-adapter', usage: 'client', notBefore: new Date(now - day), notAfter: new Date(now + day) }, ca);
const dir = mkdtempSync(join(tmpdir(), 'secured-prom-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const caFile = file('ca.pem', ca.certPem);
const VECTOR = JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ metric: { pod: 'a' }, value: [1, '2'] }] } });

async function https(handler: (req: IncomingMessage, res: ServerResponse) => void, tls: { requestCert?: boolean; cert?: KeyedCert } = {}): Promise<{ url: string; server: Server }> {
  const cert = tls.cert ?? serverCert;
  const server = createServer({ cert: cert.certPem, key: cert.keyPem, ca: ca.certPem, requestCert: tls.requestCert ?? false, rejectUnauthorized: false }, handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
const close = (s: Server) =>
  new Promise<void>((r) => {
    s.closeAllConnections();
    s.close(() => r());
  });
const failure = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err as Error,
  );
  expect(e, 'should fail').to.be.instanceOf(Error);
  return e as Error;
};

describe('Prometheus client: secured endpoints', () => {
  it('basic auth over TLS verified with --prometheus-ca-file; a wrong password is a 401 naming the cause, without the secret', async () => {
    const s = await https((req, res) => {
      const ok = req.headers.authorization === `Basic ${Buffer.from('ehpa:s3cret-pw').toString('base64')}`;
      res.writeHead(ok ? 200 : 401, { 'content-type': ok ? 'application/json' : 'text/plain' });
      res.end(ok ? VECTOR : 'Unauthorized');
    });
    try {
      const good = new PrometheusClient({ url: s.url, credentials: { caFile, username: 'ehpa', passwordFile: file('pw', 's3cret-pw\n') } });
      expect(await good.queryInstant('up')).to.deep.equal([{ labels: { pod: 'a' }, time: 1, value: 2 }]);
      const bad = new PrometheusClient({ url: s.url, credentials: { caFile, username: 'ehpa', passwordFile: file('pw-bad', 'wrong-pw') } });
      const e = await failure(bad.queryInstant('up'));
      expect(e).to.be.instanceOf(PrometheusError);
      expect(e.message).to.equal(`prometheus at ${s.url} refused the credentials: HTTP 401`);
      expect(e.message).to.not.contain('wrong-pw');
    } finally {
      await close(s.server);
    }
  });

  it('refuses an unverified certificate by default, names the TLS cause; insecure-skip-verify is only on when asked', async () => {
    const s = await https((_req, res) => res.end(VECTOR));
    try {
      const e = await failure(new PrometheusClient({ url: s.url, timeoutMs: 10_000 }).queryInstant('up'));
      expect(e).to.be.instanceOf(PrometheusError);
      expect(e.message).to.match(/unreachable at https:\/\/127\.0\.0\.1:\d+: .*(certificate|SELF_SIGNED|UNABLE_TO_VERIFY)/i);
      expect(await new PrometheusClient({ url: s.url, credentials: { insecureSkipVerify: true } }).queryInstant('up')).to.have.length(1);
    } finally {
      await close(s.server);
    }
  });

  it('mutual TLS with --prometheus-client-cert/-key', async () => {
    const s = await https(
      (req, res) => {
        const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
        const authorized = (req.socket as import('node:tls').TLSSocket).authorized && peer.subject?.CN === 'ehpa-adapter';
        res.writeHead(authorized ? 200 : 403);
        res.end(authorized ? VECTOR : 'no client certificate');
      },
      { requestCert: true },
    );
    try {
      const withCert = new PrometheusClient({ url: s.url, credentials: { caFile, certFile: file('c.pem', clientCert.certPem), keyFile: file('c.key', clientCert.keyPem) } });
      expect(await withCert.queryInstant('up')).to.have.length(1);
      const e = await failure(new PrometheusClient({ url: s.url, credentials: { caFile } }).queryInstant('up'));
      expect(e.message).to.match(/refused the credentials: HTTP 403/);
    } finally {
      await close(s.server);
    }
  });

  it('re-reads a rotated bearer token file once the cached one is a minute old, and sends extra headers', async () => {
    let expected = 'token-1';
    const seen: (string | undefined)[] = [];
    const s = await https((req, res) => {
      seen.push(req.headers['x-scope-orgid'] as string | undefined);
      const ok = req.headers.authorization === `Bearer ${expected}`;
      res.writeHead(ok ? 200 : 401);
      res.end(ok ? VECTOR : '');
    });
    let t = 0;
    try {
      const tokenFile = file('token', 'token-1\n');
      const c = new PrometheusClient({ url: s.url, now: () => t, credentials: { caFile, bearerTokenFile: tokenFile, headers: { 'X-Scope-OrgID': 'team-a' } } });
      expect(await c.queryInstant('up')).to.have.length(1);
      // Rotation: the server moves on; the cached token is refused until it is a minute old.
      writeFileSync(tokenFile, 'token-2');
      expected = 'token-2';
      t = 30_000;
      expect((await failure(c.queryInstant('up'))).message).to.contain('HTTP 401');
      t = 60_000;
      expect(await c.queryInstant('up')).to.have.length(1);
      expect(seen).to.deep.equal(['team-a', 'team-a', 'team-a']);
    } finally {
      await close(s.server);
    }
  });

  it('re-reads the token file at the --prometheus-credentials-reread-interval it is given', async () => {
    let expected = 'short-1';
    const s = await https((req, res) => {
      const ok = req.headers.authorization === `Bearer ${expected}`;
      res.writeHead(ok ? 200 : 401);
      res.end(ok ? VECTOR : '');
    });
    let t = 0;
    try {
      const tokenFile = file('short-token', 'short-1');
      const c = new PrometheusClient({ url: s.url, now: () => t, credentialsRereadMs: 2_000, credentials: { caFile, bearerTokenFile: tokenFile } });
      expect(await c.queryInstant('up')).to.have.length(1);
      writeFileSync(tokenFile, 'short-2');
      expected = 'short-2';
      t = 1_999;
      expect((await failure(c.queryInstant('up'))).message).to.contain('HTTP 401');
      t = 2_000;
      expect(await c.queryInstant('up')).to.have.length(1);
    } finally {
      await close(s.server);
    }
  });

  it('an unreadable credential file fails the query with the path, not a crash', async () => {
    const c = new PrometheusClient({ url: 'https://127.0.0.1:1', credentials: { bearerTokenFile: join(dir, 'missing') } });
    const e = await failure(c.queryInstant('up'));
    expect(e).to.be.instanceOf(PrometheusError);
    expect(e.message).to.equal(`cannot read the Prometheus bearer token file ${join(dir, 'missing')}: ENOENT`);
    const tls = new PrometheusClient({ url: 'https://127.0.0.1:1', credentials: { caFile: join(dir, 'missing-ca') } });
    expect((await failure(tls.ready())).message).to.contain('cannot read the Prometheus CA file');
  });

  it('keeps at most maxConcurrency requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const s = await https((_req, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        res.end(VECTOR);
      }, 30);
    });
    try {
      const c = new PrometheusClient({ url: s.url, maxConcurrency: 2, credentials: { caFile } });
      const all = await Promise.all(Array.from({ length: 8 }, () => c.queryInstant('up')));
      expect(all.every((r) => r.length === 1)).to.equal(true);
      expect(peak).to.equal(2);
    } finally {
      await close(s.server);
    }
  });
});

describe('prometheusOptionsFromFlags', () => {
  const base: PrometheusFlags = {
    'prometheus-url': 'https://prom:9090',
    'prometheus-timeout': 180_000,
    'prometheus-max-points': 11_000,
    'prometheus-max-concurrency': 8,
    'prometheus-token-file': undefined,
    'prometheus-username': undefined,
    'prometheus-password-file': undefined,
    'prometheus-credentials-reread-interval': 60_000,
    'prometheus-ca-file': undefined,
    'prometheus-client-cert': undefined,
    'prometheus-client-key': undefined,
    'prometheus-insecure-skip-verify': false,
    'prometheus-header': undefined,
  };
  it('maps the flags to client options', () => {
    const o = prometheusOptionsFromFlags({ ...base, 'prometheus-ca-file': '/ca', 'prometheus-token-file': '/t', 'prometheus-header': 'X-Scope-OrgID=team-a' });
    expect(o).to.deep.equal({
      url: 'https://prom:9090',
      timeoutMs: 180_000,
      maxPoints: 11_000,
      maxConcurrency: 8,
      credentials: { bearerTokenFile: '/t', caFile: '/ca', headers: { 'X-Scope-OrgID': 'team-a' } },
      credentialsRereadMs: 60_000,
    });
    expect(prometheusOptionsFromFlags({ ...base, 'prometheus-url': undefined })).to.equal(undefined);
  });
  it('refuses credentials in the URL and half-given pairs, as usage errors', () => {
    for (const [f, re] of [
      [{ 'prometheus-url': 'https://admin:pw@prom:9090' }, /must not carry credentials/],
      [{ 'prometheus-client-cert': '/c' }, /go together/],
      [{ 'prometheus-username': 'u' }, /go together/],
      [{ 'prometheus-username': 'u', 'prometheus-password-file': '/p', 'prometheus-token-file': '/t' }, /choose one/],
      [{ 'prometheus-header': 'Authorization=Bearer x' }, /set by the client itself/],
      [{ 'prometheus-header': 'novalue' }, /not Name=value/],
    ] as const) {
      expect(() => prometheusOptionsFromFlags({ ...base, ...f })).to.throw(UsageError, re);
    }
  });
});
