import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Counter } from 'prom-client';
import { startHealthServer } from '../../../src/observability/health-server.ts';
import { createMetricsRegistry } from '../../../src/observability/metrics-registry.ts';
import { assertBuildFresh } from '../../e2e/harness/build-freshness.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../../bin/ehpa-adapter.js', import.meta.url));

describe('operations endpoint', () => {
  it('serves /healthz, /metrics with registered series, and /readyz from its checks', async () => {
    const registry = createMetricsRegistry();
    const c = new Counter({ name: 'ehpa_adapter_test_total', help: 'test', registers: [registry] });
    c.inc(3);
    let ready = false;
    const server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      registry,
      readiness: new Map([['caches', () => (ready ? { ok: true } : { ok: false, reason: 'not synced' })]]),
    });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const h = await fetch(`${base}/healthz`);
      expect(h.status).to.equal(200);
      expect(await h.text()).to.equal('ok');
      const m = await (await fetch(`${base}/metrics`)).text();
      expect(m).to.match(/^ehpa_adapter_test_total 3$/m);
      expect(m).to.include('ehpa_adapter_process_cpu_user_seconds_total');
      const notReady = await fetch(`${base}/readyz`);
      expect(notReady.status).to.equal(503);
      expect(await notReady.text()).to.include('caches: not synced');
      ready = true;
      expect((await fetch(`${base}/readyz`)).status).to.equal(200);
    } finally {
      await server.close();
    }
  });

  it('appends extraText after the registry\'s series, computed before them (so a gauge it sets is current)', async () => {
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const g = new Counter({ name: 'ehpa_adapter_extra_calls_total', help: 'test', registers: [registry] });
    const server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      registry,
      extraText: [async () => {
        g.inc();
        return '# HELP crane_prediction_tsp t\n# TYPE crane_prediction_tsp gauge\ncrane_prediction_tsp{a="b"} 1.5 1767781860000\n';
      }],
    });
    try {
      const m = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
      expect(m).to.match(/^ehpa_adapter_extra_calls_total 1$/m);
      expect(m.endsWith('crane_prediction_tsp{a="b"} 1.5 1767781860000\n')).to.equal(true);
    } finally {
      await server.close();
    }
  });

  it('`ehpa-adapter serve --metrics-port 0` answers /healthz and /metrics and stops on SIGTERM', async () => {
    assertBuildFresh(ROOT);
    const p = spawn(process.execPath, [BIN, 'serve', '--metrics-port', '0', '--metrics-bind-address', '127.0.0.1', '--adapter=false', '--controllers='], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const lines = createInterface({ input: p.stderr });
      let port = 0;
      for await (const line of lines) {
        const rec = JSON.parse(line) as { msg?: string; port?: number };
        if (rec.msg === 'operations endpoint listening') {
          port = rec.port as number;
          break;
        }
      }
      expect(port).to.be.greaterThan(0);
      expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).text()).to.equal('ok');
      expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).to.include('ehpa_adapter_');
      p.kill('SIGTERM');
      const [code] = await once(p, 'exit');
      expect(code).to.equal(0);
    } finally {
      if (p.exitCode === null) p.kill('SIGKILL');
    }
  });
});
