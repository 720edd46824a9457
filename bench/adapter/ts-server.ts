// Our adapter as its own process for the benchmark (so the load generator never shares its event loop).
// argv: <fixture.json> <certDir with tls.crt, tls.key, front-proxy-ca.crt>; prints the port on stdout.
import { readFile } from 'node:fs/promises';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { startMetricsAdapter } from '../../src/adapter/server.ts';
import { benchAdapterOptions, fixtureSources, type BenchFixture } from './fixture.ts';

const [fixturePath, certDir] = process.argv.slice(2) as [string, string];
const fx = JSON.parse(await readFile(fixturePath, 'utf8')) as BenchFixture;
const now = Date.now();
const handle = await startMetricsAdapter(
  await benchAdapterOptions(certDir),
  fixtureSources(fx, now),
  new Registry(),
  pino({ level: 'silent' }),
);
process.stdout.write(`${handle.port}\n`);
process.on('SIGTERM', () => void handle.close().then(() => process.exit(0)));
