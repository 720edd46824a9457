import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCertificate } from '../../../src/adapter/cert-factory.ts';
import { chainsTo, requestHeaderConfigFromConfigMap, withAuthenticated } from '../../../src/adapter/authn.ts';
import { CachingAuthorizer, sarSpec, type Authorizer } from '../../../src/adapter/authz.ts';
import { loadOrCreateServingCert } from '../../../src/adapter/serving-cert.ts';

describe('certificate chains (docs/metrics-api.md §5.3)', function () {
  this.timeout(20_000);
  const nb = new Date(Date.now() - 3_600_000);
  const na = new Date(Date.now() + 3_600_000);
  const root = issueCertificate({ commonName: 'root', usage: 'ca', notBefore: nb, notAfter: na });
  const inter = issueCertificate({ commonName: 'intermediate', usage: 'ca', notBefore: nb, notAfter: na }, root);
  const leaf = issueCertificate({ commonName: 'front-proxy-client', usage: 'client', notBefore: nb, notAfter: na }, inter);
  const server = issueCertificate({ commonName: 'srv', usage: 'server', notBefore: nb, notAfter: na }, root);
  const x = (pem: string) => new X509Certificate(pem);
  it('verifies through an intermediate the client sent, and not without it', () => {
    expect(chainsTo(x(leaf.certPem), [x(inter.certPem)], [x(root.certPem)], Date.now())).to.equal(true);
    expect(chainsTo(x(leaf.certPem), [], [x(root.certPem)], Date.now())).to.equal(false);
  });
  it('refuses expired certificates and certificates without clientAuth', () => {
    expect(chainsTo(x(leaf.certPem), [x(inter.certPem)], [x(root.certPem)], Date.now() + 7_200_000)).to.equal(false);
    expect(chainsTo(x(server.certPem), [], [x(root.certPem)], Date.now())).to.equal(false);
  });
});

describe('request-header config from extension-apiserver-authentication', () => {
  it('reads JSON-encoded lists and defaults the header names', () => {
    const cfg = requestHeaderConfigFromConfigMap({
      'requestheader-client-ca-file': 'PEM',
      'requestheader-allowed-names': '["front-proxy-client"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-username-headers': '["X-Remote-User"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
      'client-ca-file': 'CLIENT',
    });
    expect(cfg).to.deep.equal({ caPem: 'PEM', allowedNames: ['front-proxy-client'], usernameHeaders: ['X-Remote-User'], uidHeaders: [], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'], clientCaPem: 'CLIENT' });
    expect(() => requestHeaderConfigFromConfigMap({})).to.throw(/requestheader-client-ca-file/);
    expect(() => requestHeaderConfigFromConfigMap({ 'requestheader-client-ca-file': 'x', 'requestheader-allowed-names': '{"a":1}' })).to.throw(/JSON array/);
  });
  it('adds system:authenticated except for anonymous or already-grouped users', () => {
    expect(withAuthenticated({ name: 'system:kube-aggregator', groups: [], extra: {} }).groups).to.deep.equal(['system:authenticated']);
    expect(withAuthenticated({ name: 'system:anonymous', groups: [], extra: {} }).groups).to.deep.equal([]);
    expect(withAuthenticated({ name: 'u', groups: ['system:unauthenticated'], extra: {} }).groups).to.deep.equal(['system:unauthenticated']);
  });
});

describe('CachingAuthorizer', () => {
  it('caches allowed and denied answers for the TTL, keyed by the SAR spec', async () => {
    let calls = 0;
    const inner: Authorizer = { authorize: async (u) => (calls++, { allowed: u.name === 'ok' }) };
    const clock = { t: 0 };
    const cache = new CachingAuthorizer(inner, { ttlMs: 10_000, now: () => clock.t });
    const attrs = { nonResource: { path: '/apis', verb: 'get' } };
    const ok = { name: 'ok', groups: [], extra: {} };
    const no = { name: 'no', groups: [], extra: {} };
    expect((await cache.authorize(ok, attrs)).allowed).to.equal(true);
    expect((await cache.authorize(no, attrs)).allowed).to.equal(false);
    await cache.authorize(ok, attrs);
    await cache.authorize(no, attrs);
    expect(calls).to.equal(2);
    clock.t = 10_001;
    await cache.authorize(ok, attrs);
    expect(calls).to.equal(3);
  });
  it('builds the SAR spec the way the reference does', () => {
    expect(sarSpec({ name: 'u', uid: '1', groups: ['g'], extra: { k: ['v'] } }, { resource: { verb: 'get', group: 'g', version: 'v', resource: 'r' } })).to.deep.equal({
      user: 'u', uid: '1', groups: ['g'], extra: { k: ['v'] }, resourceAttributes: { verb: 'get', group: 'g', version: 'v', resource: 'r' },
    });
  });
});

describe('serving certificate', function () {
  this.timeout(20_000);
  it('generates a CA + leaf into --cert-dir with localhost, 127.0.0.1 and the Service names, then reuses it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'certdir-'));
    const now = Date.now();
    const first = await loadOrCreateServingCert({ certDir: dir, dnsNames: ['ehpa-adapter', 'ehpa-adapter.crane-system.svc'], now: () => now });
    expect(first.source).to.equal('generated');
    const [leafPem, caPem] = first.cert.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) as [string, string];
    const leaf = new X509Certificate(leafPem);
    expect(leaf.subjectAltName).to.equal('DNS:localhost, DNS:ehpa-adapter, DNS:ehpa-adapter.crane-system.svc, IP Address:127.0.0.1');
    expect(leaf.verify(new X509Certificate(caPem).publicKey)).to.equal(true);
    expect(leaf.checkHost('ehpa-adapter.crane-system.svc')).to.equal('ehpa-adapter.crane-system.svc');
    expect(await readFile(join(dir, 'apiserver.key'), 'utf8')).to.match(/^-----BEGIN RSA PRIVATE KEY-----/);
    const second = await loadOrCreateServingCert({ certDir: dir, dnsNames: [], now: () => now });
    expect(second).to.deep.equal({ ...first, source: 'cert-dir' });
  });
  it('refuses a cert file without its key', async () => {
    let err: Error | undefined;
    try {
      await loadOrCreateServingCert({ certFile: '/x', certDir: '/tmp', dnsNames: [], now: Date.now });
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).to.match(/must be given together/);
  });
});
