import { expect } from 'chai';
import forge from 'node-forge';
import { issueCertificate } from '../../../src/adapter/cert-factory.ts';

describe('adapter/cert-factory', () => {
  it('encodes subject names as UTF8String, so Go clients accept client-go style names with "@"', () => {
    // Go's x509 parser (kube-apiserver's aggregator dialling the adapter) rejects '@' in a PrintableString:
    // "x509: invalid RDNSequence: invalid attribute value: invalid PrintableString".
    const now = new Date();
    const ca = issueCertificate({ commonName: 'localhost-ca@1795339584', usage: 'ca', notBefore: now, notAfter: new Date(now.getTime() + 3600_000) });
    const leaf = issueCertificate({ commonName: 'localhost@1795339584', organizations: ['o@x'], usage: 'server', notBefore: now, notAfter: new Date(now.getTime() + 3600_000) }, ca);
    const cert = forge.pki.certificateFromPem(leaf.certPem);
    const cn = cert.subject.getField('CN') as { value: string; valueTagClass: number };
    const o = cert.subject.getField('O') as { value: string; valueTagClass: number };
    expect([cn.value, cn.valueTagClass]).to.deep.equal(['localhost@1795339584', forge.asn1.Type.UTF8]);
    expect(o.valueTagClass).to.equal(forge.asn1.Type.UTF8);
    const issuerCn = cert.issuer.getField('CN') as { value: string; valueTagClass: number };
    expect([issuerCn.value, issuerCn.valueTagClass]).to.deep.equal(['localhost-ca@1795339584', forge.asn1.Type.UTF8]);
  });
});
