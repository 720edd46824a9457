// The scenario suites' view of the harness's metrics-server stand-in (harness/resource-metrics.ts): CPU set
// per namespace as a function of the pod and the number of live pods, written in millicores on the first
// container (others 0) with a token memory figure, so the real HPA can use an EHPA's original Resource
// CPU metric.
import { startResourceMetrics, type Cluster } from './harness/index.ts';

export interface ResourceMetricsStandin {
  port: number;
  /** CPU usage (millicores) each pod of `namespace` matching the request reports; undefined = no metrics. */
  setCpu(namespace: string, milliFor: (podName: string, podCount: number) => number | undefined): void;
  readonly requests: number;
  close(): Promise<void>;
}

export async function startResourceMetricsStandin(c: Cluster): Promise<ResourceMetricsStandin> {
  const usage = new Map<string, (pod: string, count: number) => number | undefined>();
  const server = await startResourceMetrics(c, (ns, pod, _container, index, count) => {
    const milli = usage.get(ns)?.(pod, count);
    if (milli === undefined) return undefined;
    return { cpu: index === 0 ? `${Math.round(milli)}m` : '0', memory: '1Mi' };
  });
  return {
    port: server.port,
    setCpu(namespace, f) {
      usage.set(namespace, f);
    },
    get requests() {
      return server.requests;
    },
    close: () => server.close(),
  };
}
