// A stub Prometheus for benchmarks that need history without a real Prometheus (forecast-offload, scale).
// `query_range` answers with Crane's input1 trace (test/fixtures/traces/crane, 16 days at 60 s) shifted so
// its last sample is the range's end: a TSP reads 15 days of it, in the chunks the client splits (11,000
// points each). One body per range is built and reused. With `observedPods`, the adapter's observed-usage
// fallback (`sum by (pod) (...{pod=~"a|b"}...)`, src/adapter/observed-usage.ts) gets one flat series per pod
// named in the regex, so the fallback path answers as against a real Prometheus instead of erroring.
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubPrometheus {
  url: string;
  /** query_range requests answered so far. */
  readonly queries: number;
  close: () => void;
}

export async function startStubPrometheus(opts: { observedPods?: boolean } = {}): Promise<StubPrometheus> {
  const csv = await readFile(new URL('../../test/fixtures/traces/crane/input1.csv', import.meta.url), 'utf8');
  const rows = csv.trim().split('\n').slice(1).map((l) => l.split(',').map(Number) as [number, number]);
  const last = (rows[rows.length - 1] as [number, number])[0];
  const bodies = new Map<string, string>();
  let queries = 0;
  const bodyFor = (start: number, end: number, rangeEnd: number): string => {
    const key = `${start} ${end} ${rangeEnd}`;
    let body = bodies.get(key);
    if (body === undefined) {
      const shift = rangeEnd - last;
      const values = rows.filter((r) => r[0] + shift >= start && r[0] + shift <= end).map((r) => [r[0] + shift, String(r[1])]);
      body = JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [{ metric: {}, values }] } });
      if (bodies.size > 64) bodies.clear();
      bodies.set(key, body);
    }
    return body;
  };
  const observedBody = (query: string, start: number, end: number, step: number): string | undefined => {
    if (!opts.observedPods || !query.startsWith('sum by (pod)')) return undefined;
    const m = /pod=~"((?:[^"\\]|\\.)*)"/.exec(query);
    const pods = m ? m[1]!.replace(/\\\\/g, '\\').split('|').map((p) => p.replace(/\\\./g, '.')) : [];
    const values: [number, string][] = [];
    for (let t = start; t <= end; t += step) values.push([t, '0.25']);
    return JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: pods.map((pod) => ({ metric: { pod }, values })) } });
  };
  const server = createHttpServer((req, res) => {
    let form = '';
    req.on('data', (c: Buffer) => (form += c.toString()));
    req.on('end', () => {
      queries++;
      const p = new URLSearchParams(form);
      const start = Number(p.get('start'));
      const end = Number(p.get('end'));
      const observed = observedBody(p.get('query') ?? '', start, end, Number(p.get('step')) || 15);
      // The reader's range ends on the current minute (TspReconciler: now truncated to the step).
      const rangeEnd = Math.floor(Date.now() / 60_000) * 60;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(observed ?? bodyFor(start, end, Math.max(end, rangeEnd)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get queries() {
      return queries;
    },
    close: () => server.close(),
  };
}
