// L11: a serving pair found in --cert-dir is reused only while it is sound; an expired one, one expiring
// within 30 days, or one whose key is not the certificate's is regenerated, and the log says why. The
// directory the generator creates is private (0700).
import { expect } from 'chai';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCertificate } from '../../src/adapter/cert-factory.ts';
import { loadOrCreateServingCert, servingPairProblem } from '../../src/adapter/serving-cert.ts';

const DAY = 86_400_000;

describe('serving certificate renewal in --cert-dir (L11)', function () {
  this.timeout(60_000);
  const now = Date.now();
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'serving-renew-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  /** Writes a CA-signed serving pair valid [now-1d, now+days) into a fresh cert dir. */
  async function dirWith(days: number, opts: { foreignKey?: boolean } = {}): Promise<{ dir: string; cert: string; key: string }> {
    const dir = await mkdtemp(join(root, 'd-'));
    const notBefore = new Date(now - DAY);
    const notAfter = new Date(now + days * DAY);
    const ca = issueCertificate({ commonName: 'ca', usage: 'ca', notBefore, notAfter: new Date(now + 400 * DAY) });
    const leaf = issueCertificate({ commonName: 'localhost', usage: 'server', dnsNames: ['localhost'], notBefore, notAfter }, ca);
    const key = opts.foreignKey ? issueCertificate({ commonName: 'other', usage: 'server', notBefore, notAfter }).keyPem : leaf.keyPem;
    const cert = leaf.certPem + ca.certPem;
    await writeFile(join(dir, 'apiserver.crt'), cert);
    await writeFile(join(dir, 'apiserver.key'), key, { mode: 0o600 });
    return { dir, cert, key };
  }

  async function load(dir: string) {
    const warnings: { reason: string }[] = [];
    const logger = { info: () => undefined, warn: (o: object) => void warnings.push(o as { reason: string }) };
    const s = await loadOrCreateServingCert({ certDir: dir, dnsNames: [], now: () => now, logger });
    return { s, warnings };
  }

  it('reuses a sound pair valid for more than 30 days', async () => {
    const { dir, cert, key } = await dirWith(90);
    const { s, warnings } = await load(dir);
    expect(s).to.deep.equal({ cert, key, source: 'cert-dir' });
    expect(warnings).to.deep.equal([]);
  });

  for (const [name, days, foreignKey, why] of [
    ['one expiring within 30 days', 10, false, /expires at .*, within 30 days/],
    ['an expired one', -0.5, false, /^apiserver\.crt expired at /],
    ['one whose key is not the certificate\'s', 90, true, /^apiserver\.key is not the key of apiserver\.crt$/],
  ] as const) {
    it(`regenerates ${name}, and logs why`, async () => {
      const { dir, cert } = await dirWith(days, { foreignKey });
      const { s, warnings } = await load(dir);
      expect(s.source).to.equal('generated');
      expect(s.cert).to.not.equal(cert);
      expect(warnings.map((w) => w.reason)).to.have.length(1);
      expect(warnings[0]!.reason).to.match(why);
      // What was written is sound and is what a restart will reuse.
      expect(servingPairProblem(await readFile(join(dir, 'apiserver.crt'), 'utf8'), await readFile(join(dir, 'apiserver.key'), 'utf8'), now)).to.equal(undefined);
      expect((await load(dir)).s.source).to.equal('cert-dir');
    });
  }

  it('regenerates a pair that does not parse', async () => {
    const dir = await mkdtemp(join(root, 'd-'));
    await writeFile(join(dir, 'apiserver.crt'), 'garbage');
    await writeFile(join(dir, 'apiserver.key'), 'garbage');
    const { s, warnings } = await load(dir);
    expect(s.source).to.equal('generated');
    expect(warnings[0]!.reason).to.equal('apiserver.crt holds no certificate');
  });

  it('creates a missing cert dir with mode 0700 and the key with 0600', async () => {
    const dir = join(root, 'new', 'certs');
    const { s } = await load(dir);
    expect(s.source).to.equal('generated');
    expect((await stat(dir)).mode & 0o777).to.equal(0o700);
    expect((await stat(join(dir, 'apiserver.key'))).mode & 0o777).to.equal(0o600);
  });
});
