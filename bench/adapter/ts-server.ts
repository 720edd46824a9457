// Our adapter as its own process for the benchmark (so the load generator never shares its event loop).
// argv: <fixture.json> <certDir with tls.crt, tls.key, front-proxy-ca.crt>; prints the port on stdout.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { startMetricsAdapter } from '../../src/adapter/server.ts';
import { fixtureSources, type BenchFixture } from './fixture.ts';

const [fixturePath, certDir] = process.argv.slice(2) as [string, string];
const fx = JSON.parse(await readFile(fixturePath, 'utf8')) as BenchFixture;
const now = Date.now();
const handle = await startMetricsAdapter(
  {
    securePort: 0,
    bindAddress: '127.0.0.1',
    tlsCertFile: join(certDir, 'tls.crt'),
    tlsKeyFile: join(certDir, 'tls.key'),
    certDir,
    predictionFallback: 'observed',
    requestHeader: {
      caPem: await readFile(join(certDir, 'front-proxy-ca.crt'), 'utf8'),
      allowedNames: ['front-proxy-client'],
      usernameHeaders: ['X-Remote-User'],
      uidHeaders: [],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
    },
    authorizer: { authorize: async () => ({ allowed: false, reason: 'bench sends system:masters' }) },
    authzCacheTtlMs: 10_000,
    now: Date.now,
    localZone: 'UTC',
  },
  fixtureSources(fx, now),
  new Registry(),
  pino({ level: 'silent' }),
);
process.stdout.write(`${handle.port}\n`);
process.on('SIGTERM', () => void handle.close().then(() => process.exit(0)));
