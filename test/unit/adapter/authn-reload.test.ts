// The request-header authenticator's trust swaps (M3), per-socket verdict re-checks, and Go's reading of
// a subject with several CNs (L2), on fake sockets that hand out real certificates as Node's TLS does.
import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { issueCertificate, type KeyedCert } from '../../../src/adapter/cert-factory.ts';
import { RequestHeaderAuthenticator, commonName, type RequestHeaderConfig } from '../../../src/adapter/authn.ts';

function cfg(caPem: string, allowedNames = ['front-proxy-client']): RequestHeaderConfig {
  return { caPem, allowedNames, usernameHeaders: ['X-Remote-User'], uidHeaders: [], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] };
}

/** A socket presenting `client` (issued directly by a root) for the whole connection. */
function socketWith(client: KeyedCert): object {
  const raw = new X509Certificate(client.certPem).raw;
  return { getPeerCertificate: () => ({ raw, issuerCertificate: undefined }) };
}

function request(socket: object, user = 'hpa'): IncomingMessage {
  const rawHeaders = ['X-Remote-User', user];
  return { socket, rawHeaders, headers: { 'x-remote-user': user } } as unknown as IncomingMessage;
}

describe('request-header authenticator: reloads and re-checks (M3)', function () {
  this.timeout(30_000);
  const t0 = Date.now();
  const nb = new Date(t0 - 3_600_000);
  const na = new Date(t0 + 86_400_000);
  const oldCa = issueCertificate({ commonName: 'front-proxy-ca', usage: 'ca', notBefore: nb, notAfter: na });
  const newCa = issueCertificate({ commonName: 'front-proxy-ca', usage: 'ca', notBefore: nb, notAfter: na });
  const oldClient = issueCertificate({ commonName: 'front-proxy-client', usage: 'client', notBefore: nb, notAfter: na }, oldCa);
  const newClient = issueCertificate({ commonName: 'front-proxy-client', usage: 'client', notBefore: nb, notAfter: na }, newCa);

  it('after a reload, a certificate of the new CA is accepted and one of the old CA refused, on connections already open too', () => {
    const a = new RequestHeaderAuthenticator(cfg(oldCa.certPem), () => t0);
    const oldSocket = socketWith(oldClient);
    const newSocket = socketWith(newClient);
    expect(a.authenticate(request(oldSocket))).to.deep.include({ ok: true });
    expect(a.authenticate(request(newSocket))).to.deep.equal({ ok: false, reason: 'client certificate is not signed by a trusted CA' });
    a.reload(cfg(newCa.certPem));
    expect(a.generation).to.equal(1);
    // Same sockets: their cached verdicts belonged to generation 0 and are re-checked.
    expect(a.authenticate(request(oldSocket))).to.deep.equal({ ok: false, reason: 'client certificate is not signed by a trusted CA' });
    const ok = a.authenticate(request(newSocket));
    expect(ok.ok && ok.user.name).to.equal('hpa');
  });

  it('a bundle without a CA certificate, or one that does not parse, is refused and the old trust stays', () => {
    const a = new RequestHeaderAuthenticator(cfg(oldCa.certPem), () => t0);
    expect(() => a.reload(cfg('not a certificate'))).to.throw(/no CA certificate/);
    expect(() => a.reload(cfg('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'))).to.throw(/unparseable certificate/);
    expect(() => a.reload(cfg(oldClient.certPem))).to.throw(/no CA certificate/);
    expect(a.generation).to.equal(0);
    expect(a.config.caPem).to.equal(oldCa.certPem);
    expect(a.authenticate(request(socketWith(oldClient)))).to.deep.include({ ok: true });
  });

  it('a cached verdict is re-checked once the client certificate has expired', () => {
    const shortLived = issueCertificate({ commonName: 'front-proxy-client', usage: 'client', notBefore: nb, notAfter: new Date(t0 + 60_000) }, oldCa);
    const clock = { now: t0 };
    const a = new RequestHeaderAuthenticator(cfg(oldCa.certPem), () => clock.now);
    const socket = socketWith(shortLived);
    expect(a.authenticate(request(socket))).to.deep.include({ ok: true });
    clock.now = t0 + 30_000;
    expect(a.authenticate(request(socket))).to.deep.include({ ok: true });
    clock.now = t0 + 61_000;
    expect(a.authenticate(request(socket))).to.deep.equal({ ok: false, reason: 'client certificate is not signed by a trusted CA' });
  });
});

describe('several CN attributes (L2): the last one counts, as in Go', function () {
  this.timeout(30_000);
  const nb = new Date(Date.now() - 3_600_000);
  const na = new Date(Date.now() + 86_400_000);
  const ca = issueCertificate({ commonName: 'front-proxy-ca', usage: 'ca', notBefore: nb, notAfter: na });

  it('reads the last CN (Go crypto/x509/pkix FillFromRDNSequence assigns CommonName for each CN in order)', () => {
    const two = issueCertificate({ commonName: 'someone-else', extraCommonNames: ['front-proxy-client'], usage: 'client', notBefore: nb, notAfter: na }, ca);
    expect(commonName(new X509Certificate(two.certPem))).to.equal('front-proxy-client');
    // Values are taken unescaped: a comma or newline in a CN is not a separator.
    const odd = issueCertificate({ commonName: 'a', extraCommonNames: ['b, CN=c\nCN=d'], usage: 'client', notBefore: nb, notAfter: na }, ca);
    expect(commonName(new X509Certificate(odd.certPem))).to.equal('b, CN=c\nCN=d');
  });

  it('accepts CN=other,CN=front-proxy-client and refuses CN=front-proxy-client,CN=other against allowed name front-proxy-client', () => {
    const a = new RequestHeaderAuthenticator(cfg(ca.certPem), Date.now);
    const lastAllowed = issueCertificate({ commonName: 'other', extraCommonNames: ['front-proxy-client'], usage: 'client', notBefore: nb, notAfter: na }, ca);
    const firstAllowed = issueCertificate({ commonName: 'front-proxy-client', extraCommonNames: ['other'], usage: 'client', notBefore: nb, notAfter: na }, ca);
    expect(a.authenticate(request(socketWith(lastAllowed)))).to.deep.include({ ok: true });
    expect(a.authenticate(request(socketWith(firstAllowed)))).to.deep.equal({ ok: false, reason: 'client certificate CN "other" is not an allowed request-header name' });
  });
});
