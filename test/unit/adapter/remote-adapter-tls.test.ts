// The remote-adapter TLS test (M4): a real HTTPS server on loopback with a certificate from a test CA.
// Without --remote-adapter-ca-file the system roots do not know that CA: refused, naming verification;
// with the CA file: served; with --remote-adapter-insecure: served, and a warning logged. Bodies over the
// cap and remotes that trickle past the deadline end in clean errors.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteAdapter, type RemoteAdapterOptions } from '../../../src/adapter/remote-adapter.ts';
import { parseFlags } from '../../../src/config/flags.ts';
import { ADAPTER_FLAGS } from '../../../src/adapter/flags.ts';
import { testPki } from '../../helpers/adapter-fixture.ts';

describe('--remote-adapter TLS and bounds (M4)', function () {
  this.timeout(30_000);
  let server: Server;
  let url: string;
  let dir: string;
  let caFile: string;
  let handler: (req: IncomingMessage, res: ServerResponse) => void;

  before(async () => {
    const p = testPki();
    server = createServer({ cert: p.serving.certPem, key: p.serving.keyPem }, (req, res) => handler(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `https://localhost:${(server.address() as AddressInfo).port}`;
    dir = await mkdtemp(join(tmpdir(), 'remote-tls-'));
    caFile = join(dir, 'ca.crt');
    await writeFile(caFile, p.servingCa.certPem);
  });
  beforeEach(() => {
    handler = (_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end('{"kind":"APIResourceList","resources":[]}');
    };
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const opts = (over: Partial<RemoteAdapterOptions> = {}): RemoteAdapterOptions => ({ url, insecure: false, timeoutMs: 5_000, ...over });
  const warnings: string[] = [];
  const log = { warn: (_o: object, msg: string) => void warnings.push(msg) };
  const fetchWith = async (o: RemoteAdapterOptions) => {
    const remote = createRemoteAdapter(o, log);
    try {
      const r = await remote.get('/apis/custom.metrics.k8s.io/v1beta1');
      return { status: r.status, body: r.body.toString('utf8') };
    } catch (e) {
      return { error: (e as Error).message };
    } finally {
      remote.close();
    }
  };

  it('--remote-adapter-insecure defaults to false', () => {
    expect(parseFlags(ADAPTER_FLAGS, [])['remote-adapter-insecure']).to.equal(false);
  });

  it('without a CA file: refused against the system roots, with an error that names verification', async () => {
    const r = await fetchWith(opts());
    expect(r.error).to.match(/^remote adapter certificate verification failed against the system roots \(set --remote-adapter-ca-file\): /);
  });

  it('with --remote-adapter-ca-file: served, and no warning', async () => {
    warnings.length = 0;
    expect(await fetchWith(opts({ caFile }))).to.deep.equal({ status: 200, body: '{"kind":"APIResourceList","resources":[]}' });
    expect(warnings).to.deep.equal([]);
  });

  it('with a CA file of another CA: refused (the file replaces the roots, it does not add to a skip)', async () => {
    const other = join(dir, 'other.crt');
    await writeFile(other, testPki().frontProxyCa.certPem);
    expect((await fetchWith(opts({ caFile: other }))).error).to.match(/certificate verification failed against --remote-adapter-ca-file/);
  });

  it('with --remote-adapter-insecure: served, with a warning', async () => {
    warnings.length = 0;
    expect((await fetchWith(opts({ insecure: true }))).status).to.equal(200);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(/--remote-adapter-insecure: the remote adapter's certificate is not verified/);
  });

  it('a body over the cap is a clean error, whether announced by Content-Length or streamed chunked', async () => {
    handler = (_req, res) => {
      res.setHeader('Content-Length', 2048);
      res.end('x'.repeat(2048));
    };
    expect((await fetchWith(opts({ caFile, maxBodyBytes: 1024 }))).error).to.equal('remote adapter response exceeds 1024 bytes');
    let written = 0;
    handler = (_req, res) => {
      // Chunked, without end: only the cap can stop the reader.
      const pump = () => {
        while (written < 10 * 1024 * 1024 && res.write('y'.repeat(256))) written += 256;
        if (written < 10 * 1024 * 1024) res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    };
    expect((await fetchWith(opts({ caFile, maxBodyBytes: 4096 }))).error).to.equal('remote adapter response exceeds 4096 bytes');
    expect(written, 'the server was cut off long before it sent 10 MiB').to.be.lessThan(10 * 1024 * 1024);
  });

  it('the timeout is a total deadline: a remote trickling bytes never resets it', async () => {
    const timers: NodeJS.Timeout[] = [];
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const t = setInterval(() => res.write(' '), 20);
      timers.push(t);
      res.on('close', () => clearInterval(t));
    };
    const started = Date.now();
    const r = await fetchWith(opts({ caFile, timeoutMs: 300 }));
    const took = Date.now() - started;
    for (const t of timers) clearInterval(t);
    expect(r.error).to.equal('remote adapter did not answer within 300ms');
    expect(took).to.be.lessThan(3_000);
  });
});
