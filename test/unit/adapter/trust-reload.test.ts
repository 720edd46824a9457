// M3 over real HTTPS: the running adapter follows a rotated front-proxy CA, from the flag file (polled)
// and from the extension-apiserver-authentication ConfigMap (watched), without a restart; a bad bundle is
// logged and the old trust stays. L3: an empty allowed-names list is warned about at start.
import { expect } from 'chai';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, request, Agent, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { issueCertificate, type KeyedCert } from '../../../src/adapter/cert-factory.ts';
import { parseFlags } from '../../../src/config/flags.ts';
import { ADAPTER_FLAGS } from '../../../src/adapter/flags.ts';
import { startAdapterFromFlags } from '../../../src/adapter/start-from-flags.ts';
import type { MetricsAdapterHandle } from '../../../src/adapter/server.ts';
import { MapSources, testPki } from '../../helpers/adapter-fixture.ts';
import { capturingLogger } from '../../helpers/capturing-logger.ts';
import { until } from '../../helpers/until.ts';

/** GET /apis with a client certificate over a kept-alive connection (one per client). */
function clientOf(client: KeyedCert) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false, cert: client.certPem, key: client.keyPem });
  const get = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/apis', agent, headers: { 'X-Remote-User': 'hpa' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  return { get, close: () => agent.destroy() };
}

/** Replaces a file in one step (as kubelet's atomic writer does for mounted ConfigMaps), so a poll never reads half of it. */
async function replaceFile(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

const allowAll = { authorize: async () => ({ allowed: true }) };

describe('request-header trust follows rotation (M3) over HTTPS', function () {
  this.timeout(60_000);
  const nb = new Date(Date.now() - 3_600_000);
  const na = new Date(Date.now() + 86_400_000);
  const oldCa = issueCertificate({ commonName: 'front-proxy-ca', usage: 'ca', notBefore: nb, notAfter: na });
  const newCa = issueCertificate({ commonName: 'front-proxy-ca', usage: 'ca', notBefore: nb, notAfter: na });
  const oldClient = clientOf(issueCertificate({ commonName: 'front-proxy-client', usage: 'client', notBefore: nb, notAfter: na }, oldCa));
  const newClient = clientOf(issueCertificate({ commonName: 'front-proxy-client', usage: 'client', notBefore: nb, notAfter: na }, newCa));
  after(() => {
    oldClient.close();
    newClient.close();
  });

  it('--requestheader-client-ca-file: a rewritten file is picked up by the poll; a broken one is logged and ignored', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'trust-file-'));
    const caFile = join(dir, 'front-proxy-ca.crt');
    await writeFile(caFile, oldCa.certPem);
    const { logger, lines } = capturingLogger();
    const flags = parseFlags(ADAPTER_FLAGS, ['--secure-port=0', '--bind-address=127.0.0.1', `--cert-dir=${dir}`, `--requestheader-client-ca-file=${caFile}`, '--requestheader-allowed-names=front-proxy-client']);
    const handle = await startAdapterFromFlags(flags, { sources: new MapSources(), registry: new Registry(), logger, authorizer: allowAll, trustPollMs: 50 });
    try {
      expect(await oldClient.get(handle.port)).to.equal(200);
      expect(await newClient.get(handle.port)).to.equal(401);
      await replaceFile(caFile, newCa.certPem);
      await until('the new CA to be trusted', async () => (await newClient.get(handle.port)) === 200);
      // The old client's kept-alive connection was verified under the old trust: re-checked, refused.
      expect(await oldClient.get(handle.port)).to.equal(401);
      expect(lines.some((l) => l.msg === 'request-header trust reloaded')).to.equal(true);

      await replaceFile(caFile, '-----BEGIN CERTIFICATE-----\nnot base64 DER\n-----END CERTIFICATE-----\n');
      await until('the broken bundle to be logged', () => lines.some((l) => l.level === 50 && /rejected, keeping the previous one/.test(l.msg)));
      expect(await newClient.get(handle.port)).to.equal(200);
      expect(await oldClient.get(handle.port)).to.equal(401);
      expect(lines.filter((l) => l.level === 50), 'logged once, not at every poll').to.have.length(1);
    } finally {
      await handle.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('extension-apiserver-authentication: a MODIFIED event from the watch swaps the trust', async () => {
    const p = testPki();
    const data = (ca: string, allowed = '["front-proxy-client"]') => ({
      'requestheader-client-ca-file': ca,
      'requestheader-allowed-names': allowed,
      'requestheader-username-headers': '["X-Remote-User"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    });
    const cm = (rv: string, d: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extension-apiserver-authentication', namespace: 'kube-system', resourceVersion: rv }, data: d });
    const watchers: ServerResponse[] = [];
    const watchQueries: string[] = [];
    let current = cm('1', data(oldCa.certPem));
    const api: Server = createServer({ cert: p.serving.certPem, key: p.serving.keyPem }, (req, res) => {
      res.setHeader('Content-Type', 'application/json');
      const url = new URL(req.url ?? '/', 'https://x');
      if (url.pathname === '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication') {
        res.end(JSON.stringify(current));
      } else if (url.pathname === '/api/v1/namespaces/kube-system/configmaps' && url.searchParams.get('watch') === 'true') {
        watchQueries.push(url.search);
        res.writeHead(200);
        res.write('');
        watchers.push(res);
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', () => r()));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `https://localhost:${(api.address() as AddressInfo).port}`, caData: Buffer.from(p.servingCa.certPem).toString('base64') }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const dir = await mkdtemp(join(tmpdir(), 'trust-cm-'));
    const { logger, lines } = capturingLogger();
    let handle: MetricsAdapterHandle | undefined;
    try {
      const flags = parseFlags(ADAPTER_FLAGS, ['--secure-port=0', '--bind-address=127.0.0.1', `--cert-dir=${dir}`]);
      handle = await startAdapterFromFlags(flags, { kubeConfig: kc, sources: new MapSources(), registry: new Registry(), logger, authorizer: allowAll, trustPollMs: 60_000 });
      const port = handle.port;
      expect(await oldClient.get(port)).to.equal(200);
      expect(await newClient.get(port)).to.equal(401);
      await until('the watch to be opened', () => watchers.length > 0);
      expect(new URLSearchParams(watchQueries[0]).get('fieldSelector')).to.equal('metadata.name=extension-apiserver-authentication');
      expect(new URLSearchParams(watchQueries[0]).get('resourceVersion')).to.equal('1');

      current = cm('2', data(newCa.certPem, '[]'));
      for (const w of watchers) w.write(JSON.stringify({ type: 'MODIFIED', object: current }) + '\n');
      await until('the new CA to be trusted', async () => (await newClient.get(port)) === 200);
      expect(await oldClient.get(port)).to.equal(401);
      // L3 on reload: the new ConfigMap allows any name.
      expect(lines.some((l) => l.level === 40 && /requestheader-allowed-names is empty/.test(l.msg))).to.equal(true);
    } finally {
      for (const w of watchers) w.destroy();
      await handle?.close();
      api.closeAllConnections();
      api.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('warns at start-up when requestheader-allowed-names is empty (L3), and not when it is set', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'trust-names-'));
    const caFile = join(dir, 'ca.crt');
    await writeFile(caFile, oldCa.certPem);
    for (const names of [[], ['--requestheader-allowed-names=front-proxy-client']]) {
      const { logger, lines } = capturingLogger();
      const flags = parseFlags(ADAPTER_FLAGS, ['--secure-port=0', '--bind-address=127.0.0.1', `--cert-dir=${dir}`, `--requestheader-client-ca-file=${caFile}`, ...names]);
      const handle = await startAdapterFromFlags(flags, { sources: new MapSources(), registry: new Registry(), logger, authorizer: allowAll });
      await handle.close();
      const warned = lines.some((l) => l.level === 40 && /requestheader-allowed-names is empty: any client certificate signed by the front-proxy CA/.test(l.msg));
      expect(warned, `allowed names ${JSON.stringify(names)}`).to.equal(names.length === 0);
    }
    await rm(dir, { recursive: true, force: true });
  });
});
