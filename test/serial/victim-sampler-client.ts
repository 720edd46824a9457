// Starts victim-sampler.mjs in a worker thread: the victim HPA's metric reads, made where the test's own
// work (creating and polling thousands of objects) never delays them.
import { Worker } from 'node:worker_threads';

export interface VictimSampler {
  /** Measures at `perSecond`, open loop, until stopped; resolves with each request's latency (ms). */
  start(perSecond: number): { stop(): Promise<number[]> };
  /** The same, counting answers by HTTP code (0: none) instead of failing on one that is not 200. */
  tally(perSecond: number): { stop(): Promise<{ latencies: number[]; codes: Record<string, number> }> };
  close(): Promise<number>;
}

export interface SamplerTarget {
  /** https://host:port of kube-apiserver (through the aggregator) or of serve itself. */
  server: string;
  /** CA of the serving certificate; null trusts any (serve's own certificate is self-signed). */
  ca: string | null;
  cert: string;
  key: string;
  paths: string[];
  /** Sent with every request: the front-proxy's X-Remote-User/X-Remote-Group when straight to serve. */
  headers?: Record<string, string>;
  /** Pins the sampler's thread to this CPU (BURST_PIN: on serve's core, off the control plane's). */
  cpu?: number;
}

export function startVictimSampler(target: SamplerTarget): VictimSampler {
  const worker = new Worker(new URL('./victim-sampler.mjs', import.meta.url), { workerData: target });
  const answer = () =>
    new Promise<{ latencies: number[]; codes: Record<string, number> }>((resolve, reject) => {
      worker.once('message', (m: { latencies?: number[]; codes?: Record<string, number>; error?: string }) =>
        m.error !== undefined ? reject(new Error(m.error)) : resolve({ latencies: m.latencies ?? [], codes: m.codes ?? {} }),
      );
    });
  const run = (perSecond: number, tally: boolean) => {
    const a = answer();
    worker.postMessage({ until: 'stop', perSecond, tally });
    return () => {
      worker.postMessage('stop');
      return a;
    };
  };
  return {
    start(perSecond) {
      const stop = run(perSecond, false);
      return { stop: async () => (await stop()).latencies };
    },
    tally(perSecond) {
      return { stop: run(perSecond, true) };
    },
    close: () => worker.terminate(),
  };
}

export function p99(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)] as number;
}
