// X.509 issuing for the self-signed serving certificate (and test fixtures): RSA 2048 keys from Node's
// crypto, certificates assembled and signed with node-forge because Node can read certificates but not
// create them. Shapes follow client-go's GenerateSelfSignedCertKey (docs/metrics-api.md §6.1).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface KeyedCert {
  certPem: string;
  /** PKCS#1 `RSA PRIVATE KEY`, as client-go writes apiserver.key. */
  keyPem: string;
}

export interface IssueOptions {
  commonName: string;
  /** More CN attributes after the first (test fixtures: Go takes the last one as the CommonName). */
  extraCommonNames?: string[];
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: 'ca' | 'server' | 'client';
  notBefore: Date;
  notAfter: Date;
}

function newKeys(): { pub: forge.pki.rsa.PublicKey; priv: forge.pki.rsa.PrivateKey; keyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return {
    pub: forge.pki.publicKeyFromPem(publicKey) as forge.pki.rsa.PublicKey,
    priv: forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey,
    keyPem: privateKey,
  };
}

/** Issues a certificate signed by `issuer`, or self-signed when `issuer` is undefined. */
export function issueCertificate(opts: IssueOptions, issuer?: KeyedCert): KeyedCert {
  const keys = newKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.pub;
  // Positive 127-bit serial: first byte's top bit cleared.
  const serial = randomBytes(16);
  serial[0] = (serial[0] as number) & 0x7f;
  cert.serialNumber = serial.toString('hex');
  cert.validity.notBefore = opts.notBefore;
  cert.validity.notAfter = opts.notAfter;
  // UTF8String, not forge's default PrintableString: names like client-go's `localhost@<unix>` hold
  // characters PrintableString forbids ('@'), and Go's x509 (kube-apiserver's aggregator) then refuses the
  // whole certificate ("invalid PrintableString").
  // (@types/node-forge types valueTagClass as an asn1 Class; forge reads it as the universal tag number.)
  const utf8 = forge.asn1.Type.UTF8 as unknown as forge.asn1.Class;
  const subject: forge.pki.CertificateField[] = [{ name: 'commonName', value: opts.commonName, valueTagClass: utf8 }];
  for (const cn of opts.extraCommonNames ?? []) subject.push({ name: 'commonName', value: cn, valueTagClass: utf8 });
  for (const o of opts.organizations ?? []) subject.push({ name: 'organizationName', value: o, valueTagClass: utf8 });
  cert.setSubject(subject);
  const issuerCert = issuer ? forge.pki.certificateFromPem(issuer.certPem) : undefined;
  cert.setIssuer(issuerCert ? issuerCert.subject.attributes : subject);
  const ext: object[] = [];
  if (opts.usage === 'ca') {
    ext.push({ name: 'basicConstraints', cA: true, critical: true });
    ext.push({ name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true, critical: true });
  } else {
    ext.push({ name: 'basicConstraints', cA: false });
    ext.push({ name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true });
    ext.push({ name: 'extKeyUsage', serverAuth: opts.usage === 'server', clientAuth: opts.usage === 'client' });
  }
  const alt = [
    ...(opts.dnsNames ?? []).map((value) => ({ type: 2, value })),
    ...(opts.ipAddresses ?? []).map((ip) => ({ type: 7, ip })),
  ];
  if (alt.length) ext.push({ name: 'subjectAltName', altNames: alt });
  ext.push({ name: 'subjectKeyIdentifier' });
  cert.setExtensions(ext);
  const signer = issuer ? (forge.pki.privateKeyFromPem(issuer.keyPem) as forge.pki.rsa.PrivateKey) : keys.priv;
  cert.sign(signer, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}
