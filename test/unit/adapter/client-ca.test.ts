import { expect } from 'chai';
import { request } from 'node:https';
import { issueCertificate } from '../../../src/adapter/cert-factory.ts';
import { startTestAdapter, testPki } from '../../helpers/adapter-fixture.ts';

describe('x509 client-certificate users (--client-ca-file)', function () {
  this.timeout(30_000);
  it('authenticates CN as the user and O as groups, and never believes their X-Remote-* headers', async () => {
    const p = testPki();
    const nb = new Date(Date.now() - 3_600_000);
    const na = new Date(Date.now() + 3_600_000);
    const clientCa = issueCertificate({ commonName: 'client-ca', usage: 'ca', notBefore: nb, notAfter: na });
    const alice = issueCertificate({ commonName: 'alice', organizations: ['dev', 'ops'], usage: 'client', notBefore: nb, notAfter: na }, clientCa);
    const a = await startTestAdapter({
      requestHeader: {
        caPem: p.frontProxyCa.certPem, allowedNames: ['front-proxy-client'], usernameHeaders: ['X-Remote-User'], uidHeaders: [],
        groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'], clientCaPem: clientCa.certPem,
      },
    });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          { host: 'localhost', port: a.handle.port, path: '/apis', ca: p.servingCa.certPem, cert: alice.certPem, key: alice.keyPem, headers: { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(status).to.equal(403);
      expect(a.authorizer.calls.map((c) => c.user)).to.deep.equal([{ name: 'alice', groups: ['dev', 'ops', 'system:authenticated'], extra: {} }]);
    } finally {
      await a.close();
    }
  });
});
