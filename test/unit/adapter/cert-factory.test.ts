// The generated serving certificate must parse under Go's strict x509 rules: kube-apiserver's aggregator
// refused our self-signed `localhost@<unix>` certificate ("x509: invalid RDNSequence: invalid attribute
// value: invalid PrintableString") because '@' is not a PrintableString character (X.680 §41.4).
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { issueCertificate } from '../../../src/adapter/cert-factory.ts';
import { loadOrCreateServingCert } from '../../../src/adapter/serving-cert.ts';

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** Every string value in the DER with its universal tag number. */
function strings(der: string): { tag: number; value: string }[] {
  const out: { tag: number; value: string }[] = [];
  const walk = (n: forge.asn1.Asn1) => {
    if (Array.isArray(n.value)) for (const c of n.value) walk(c);
    else if (n.tagClass === forge.asn1.Class.UNIVERSAL && [12, 19, 22].includes(n.type)) out.push({ tag: n.type, value: forge.util.decodeUtf8(n.value) });
  };
  walk(forge.asn1.fromDer(der));
  return out;
}

function pemBlocks(pem: string): string[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((b) => forge.pem.decode(b)[0]!.body);
}

describe('cert-factory: names Go can parse', function () {
  // Generating an RSA pair in JavaScript (node-forge) takes seconds on a loaded 2-core machine.
  this.timeout(90_000);
  it('the generated serving pair has no PrintableString holding a forbidden character, and keeps its names', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cert-factory-'));
    try {
      const now = Date.UTC(2026, 10, 22);
      const s = await loadOrCreateServingCert({ certDir: dir, dnsNames: [], now: () => now });
      const blocks = pemBlocks(s.cert);
      expect(blocks).to.have.length(2);
      for (const der of blocks) {
        const values = strings(der);
        expect(values.length).to.be.greaterThan(0);
        for (const v of values.filter((x) => x.tag === 19)) expect(v.value, 'PrintableString').to.match(PRINTABLE);
      }
      const leaf = strings(blocks[0]!);
      expect(leaf.filter((v) => v.value === `localhost@${now / 1000}`).map((v) => v.tag)).to.deep.equal([12]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('organizations are UTF8String too (O=system:masters style names with any characters)', () => {
    const c = issueCertificate({ commonName: 'user@example', organizations: ['team@a'], usage: 'client', notBefore: new Date(0), notAfter: new Date(86_400_000) });
    const v = strings(pemBlocks(c.certPem)[0]!);
    expect(v.filter((x) => x.value === 'team@a' || x.value === 'user@example').map((x) => x.tag)).to.deep.equal([12, 12, 12, 12]);
  });
});
