// The serving pair given as files follows rotation without a restart: a new pair published the way kubelet
// updates a Secret volume (the `..data` symlink swap) is served to new connections; a mismatched or
// half-written pair is refused with one error line and a counter, and the pair in force keeps being served.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import type { Logger } from 'pino';
import { issueCertificate, type KeyedCert } from '../../../src/adapter/cert-factory.ts';
import { parseFlags } from '../../../src/config/flags.ts';
import { ADAPTER_FLAGS } from '../../../src/adapter/flags.ts';
import { startAdapterFromFlags } from '../../../src/adapter/start-from-flags.ts';
import { leafInfo, readServingFiles, servingPairProblem } from '../../../src/adapter/serving-cert.ts';
import type { MetricsAdapterHandle } from '../../../src/adapter/server.ts';
import { MapSources, testPki } from '../../helpers/adapter-fixture.ts';
import { SecretVolume } from '../../helpers/secret-volume.ts';
import { capturingLogger } from '../../helpers/capturing-logger.ts';
import { until } from '../../helpers/until.ts';

/** The serial of the leaf a new TLS connection is handed, verified against `cas`. */
function servedSerial(port: number, cas: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: cas, ALPNProtocols: ['http/1.1'] }, () => {
      const serial = s.getPeerCertificate().serialNumber;
      s.end();
      resolve(serial);
    });
    s.on('error', reject);
  });
}

async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name) as { values: { value: number; labels: Record<string, string | number> }[] } | undefined;
  return m?.values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))?.value;
}

describe('serving certificate reload (--tls-cert-file, --tls-private-key-file)', function () {
  this.timeout(60_000);
  const nb = new Date(Date.now() - 3_600_000);
  const na = new Date(Date.now() + 86_400_000);
  const ca = issueCertificate({ commonName: 'serving-ca', usage: 'ca', notBefore: nb, notAfter: na });
  const leaf = (cn: string, days = 1): KeyedCert =>
    issueCertificate({ commonName: cn, usage: 'server', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], notBefore: nb, notAfter: new Date(Date.now() + days * 86_400_000) }, ca);
  const serial = (k: KeyedCert) => leafInfo(k.certPem)!.serialNumber;

  let dir: string;
  let handle: MetricsAdapterHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  async function start(vol: SecretVolume, logger: Logger, registry: Registry): Promise<MetricsAdapterHandle> {
    const caFile = join(dir, 'front-proxy-ca.crt');
    await writeFile(caFile, testPki().frontProxyCa.certPem);
    const flags = parseFlags(ADAPTER_FLAGS, [
      '--secure-port=0', '--bind-address=127.0.0.1', `--cert-dir=${join(dir, 'unused')}`, `--requestheader-client-ca-file=${caFile}`,
      `--tls-cert-file=${vol.path('tls.crt')}`, `--tls-private-key-file=${vol.path('tls.key')}`,
    ]);
    return startAdapterFromFlags(flags, { sources: new MapSources(), registry, logger, authorizer: { authorize: async () => ({ allowed: true }) }, trustPollMs: 50 });
  }

  it('a pair swapped in through the ..data symlink is served to new connections, logged and counted', async () => {
    dir = await mkdtemp(join(tmpdir(), 'serving-reload-'));
    const [first, second] = [leaf('first'), leaf('second', 2)];
    const vol = new SecretVolume(join(dir, 'secret'));
    await vol.publish({ 'tls.crt': first.certPem + ca.certPem, 'tls.key': first.keyPem });
    const { logger, lines } = capturingLogger();
    const registry = new Registry();
    handle = await start(vol, logger, registry);
    const port = handle.port;
    expect(await servedSerial(port, [ca.certPem])).to.equal(serial(first));
    expect(await metricValue(registry, 'ehpa_adapter_serving_certificate_expiry_timestamp_seconds')).to.equal(leafInfo(first.certPem)!.notAfterMs / 1000);

    await vol.publish({ 'tls.crt': second.certPem + ca.certPem, 'tls.key': second.keyPem });
    await until('the second certificate to be served', async () => (await servedSerial(port, [ca.certPem])) === serial(second));
    const reloaded = lines.filter((l) => l.msg === 'serving certificate reloaded');
    expect(reloaded.map((l) => l.serialNumber)).to.deep.equal([serial(second)]);
    expect(await metricValue(registry, 'ehpa_adapter_serving_certificate_reloads_total', { outcome: 'reloaded' })).to.equal(1);
    expect(await metricValue(registry, 'ehpa_adapter_serving_certificate_expiry_timestamp_seconds')).to.equal(leafInfo(second.certPem)!.notAfterMs / 1000);
    expect(lines.filter((l) => l.level >= 50)).to.deep.equal([]);
  });

  it('a mismatched pair, then a half-written one, is refused with one error line each and a counter; the old pair stays served', async () => {
    dir = await mkdtemp(join(tmpdir(), 'serving-refuse-'));
    const [first, second] = [leaf('first'), leaf('second')];
    const vol = new SecretVolume(join(dir, 'secret'));
    await vol.publish({ 'tls.crt': first.certPem, 'tls.key': first.keyPem });
    const { logger, lines } = capturingLogger();
    const registry = new Registry();
    handle = await start(vol, logger, registry);
    const port = handle.port;
    const errors = () => lines.filter((l) => l.level >= 50);

    // The new certificate beside the old key: what a writer that copies one file at a time leaves for a while.
    await vol.publish({ 'tls.crt': second.certPem, 'tls.key': first.keyPem });
    await until('the mismatch to be logged', () => errors().length > 0);
    expect(errors()[0]!.msg).to.equal(
      `new serving certificate (${vol.path('tls.crt')}, ${vol.path('tls.key')}) rejected, keeping the previous one: ${vol.path('tls.key')} is not the key of ${vol.path('tls.crt')}`,
    );
    expect(await servedSerial(port, [ca.certPem])).to.equal(serial(first));
    // Polls go on every 50 ms: the log says it once, the counter counts every check that refused it (so a
    // rotation stuck on bad files keeps it rising, which is what an alert wants).
    await new Promise((r) => setTimeout(r, 300));
    expect(errors()).to.have.length(1);
    expect(await metricValue(registry, 'ehpa_adapter_serving_certificate_reloads_total', { outcome: 'rejected' })).to.be.greaterThan(1);

    // Half a PEM block.
    await vol.publish({ 'tls.crt': second.certPem.slice(0, 400), 'tls.key': second.keyPem });
    await until('the half-written file to be logged', () => errors().length > 1);
    expect(errors()[1]!.msg).to.match(/rejected, keeping the previous one: .*tls\.crt holds no certificate$/);
    expect(await servedSerial(port, [ca.certPem])).to.equal(serial(first));
    expect(lines.some((l) => l.msg === 'serving certificate reloaded')).to.equal(false);
    expect(await metricValue(registry, 'ehpa_adapter_serving_certificate_reloads_total', { outcome: 'reloaded' })).to.equal(undefined);

    // Once the pair is whole again it is taken.
    await vol.publish({ 'tls.crt': second.certPem, 'tls.key': second.keyPem });
    await until('the second certificate to be served', async () => (await servedSerial(port, [ca.certPem])) === serial(second));
  });

  it('an expired certificate is refused; one that expires soon is not (rotation, not renewal, is the files\' owner\'s job)', () => {
    const now = Date.now();
    const expired = issueCertificate({ commonName: 'x', usage: 'server', notBefore: new Date(now - 2 * 86_400_000), notAfter: new Date(now - 1000) });
    const soon = leaf('soon', 0.5);
    const check = { certName: 'tls.crt', keyName: 'tls.key', renewBeforeMs: 0 };
    expect(servingPairProblem(expired.certPem, expired.keyPem, now, check)).to.match(/^tls\.crt expired at /);
    expect(servingPairProblem(soon.certPem, soon.keyPem, now, check)).to.equal(undefined);
    // The --cert-dir rule is unchanged: renew within 30 days.
    expect(servingPairProblem(soon.certPem, soon.keyPem, now)).to.match(/^apiserver\.crt expires at .*, within 30 days$/);
  });

  it('reads the pair again when the certificate changed while the key was read (a rotation between the two reads)', async () => {
    const files: Record<string, string> = { crt: 'old-cert', key: 'old-key' };
    const reads: string[] = [];
    const read = async (p: string) => {
      reads.push(p);
      const text = files[p]!;
      // The rotation lands right after the first read of the certificate.
      if (reads.length === 1) Object.assign(files, { crt: 'new-cert', key: 'new-key' });
      return text;
    };
    expect(await readServingFiles('crt', 'key', read)).to.deep.equal({ cert: 'new-cert', key: 'new-key' });
    expect(reads).to.deep.equal(['crt', 'key', 'crt', 'key', 'crt']);
  });
});
