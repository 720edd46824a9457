// A load generator that speaks to a metrics adapter the way kube-apiserver's proxy does: one HTTP/2
// connection (client-go's transport negotiates h2 and multiplexes, k8s.io/apimachinery v0.34
// pkg/util/net/http.go), `streams` requests kept in flight on it, each timed from send to last byte.
// autocannon speaks HTTP/1.1 only.
import { connect, type ClientHttp2Session } from 'node:http2';
import { performance } from 'node:perf_hooks';

export interface H2LoadOptions {
  port: number;
  streams: number;
  durationS: number;
  pathFor: (i: number) => string;
  headers: Record<string, string>;
  tls: { ca: string; cert: string; key: string };
}

export interface H2LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

function session(o: H2LoadOptions): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const s = connect(`https://localhost:${o.port}`, { ...o.tls });
    s.once('remoteSettings', () => (s.alpnProtocol === 'h2' ? resolve(s) : reject(new Error(`ALPN gave ${String(s.alpnProtocol)}, not h2`))));
    s.once('error', reject);
  });
}

export async function h2Load(o: H2LoadOptions): Promise<H2LoadResult> {
  const s = await session(o);
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let i = 0;
  const end = performance.now() + o.durationS * 1000;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const req = s.request({ ':path': o.pathFor(i++), ...o.headers });
      let status = 0;
      req.on('response', (h) => (status = Number(h[':status'])));
      req.on('data', () => undefined);
      req.on('end', () => {
        latencies.push(performance.now() - t0);
        if (status < 200 || status > 299) non2xx++;
        resolve();
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
    });
  const worker = async () => {
    while (performance.now() < end) await one();
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: o.streams }, worker));
  const seconds = (performance.now() - started) / 1000;
  s.close();
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN);
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), non2xx, errors };
}
