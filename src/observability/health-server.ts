// Plain-HTTP operations endpoint: /metrics for Prometheus, /healthz (process alive) and /readyz (every
// registered readiness check passes) for kubelet probes.
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export type ReadinessCheck = () => { ok: boolean; reason?: string };

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export async function startHealthServer(opts: {
  port: number;
  host?: string;
  registry: Registry;
  readiness?: Map<string, ReadinessCheck>;
  /**
   * Exposition text appended after the registry's (exposition-text.ts), for series with their own timestamps.
   * Computed before the registry's text so a registry gauge that one of them sets describes this scrape.
   */
  extraText?: ReadonlyArray<() => Promise<string>>;
}): Promise<HealthServer> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  app.get('/livez', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  app.get('/readyz', (_req, res) => {
    const failed: string[] = [];
    for (const [name, check] of opts.readiness ?? []) {
      const r = check();
      if (!r.ok) failed.push(`${name}: ${r.reason ?? 'not ready'}`);
    }
    if (failed.length) res.status(503).type('text/plain').send(failed.join('\n'));
    else res.type('text/plain').send('ok');
  });
  app.get('/metrics', async (_req, res) => {
    const extra = await Promise.all((opts.extraText ?? []).map((f) => f()));
    res.type(opts.registry.contentType).send((await opts.registry.metrics()) + extra.join(''));
  });
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(opts.port, opts.host ?? '0.0.0.0', (err?: Error) => (err ? reject(err) : resolve(s)));
    s.once('error', reject);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
