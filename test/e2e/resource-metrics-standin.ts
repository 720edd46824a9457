// The scenario suites' view of `metrics.k8s.io`: CPU set per namespace as a function of the pod and the
// number of live pods, in millicores on the first container, so the real HPA can use an EHPA's original
// Resource CPU metric. On a cluster started with `nodes: 'kwok'` the numbers go the real way: written as
// kwok's usage annotation on each pod, reported by kwok's kubelet endpoint, scraped by the real
// metrics-server (so a change shows after one or two --metric-resolution periods, 10 s each) and by
// Prometheus (job "kubelet", every second): they are the pods' CPU everywhere, so a suite does not also
// drive the same pods with followWorkloadUsage. Otherwise the harness's metrics-server stand-in
// (harness/resource-metrics.ts) answers at once from the callback, and Prometheus does not see them.
import { cpuMilliAnnotation, podsOf, startResourceMetrics, USAGE_CPU_ANNOTATION, type Cluster, type KwokStack } from './harness/index.ts';

export interface ResourceMetricsStandin {
  port: number;
  /**
   * CPU usage (millicores) each pod of `namespace` reports; `podCount` is the live pods of its workload (on
   * kwok: those with the same `app` label). Undefined = no metrics (on kwok: kwok's default, 1m).
   */
  setCpu(namespace: string, milliFor: (podName: string, podCount: number) => number | undefined): void;
  /** PodMetrics list requests answered so far (by the stand-in, or by the real metrics-server). */
  requests(): Promise<number>;
  close(): Promise<void>;
}

export async function startResourceMetricsStandin(c: Cluster): Promise<ResourceMetricsStandin> {
  if (c.kwok) return kwokUsage(c, c.kwok);
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
    requests: () => Promise.resolve(server.requests),
    close: () => server.close(),
  };
}

/**
 * Keeps kwok's usage annotation on every live pod of the namespaces set, every second: new pods of a
 * scale-up get theirs within a second of being created (kwok reports 1m until then, its default).
 */
function kwokUsage(c: Cluster, kwok: KwokStack): ResourceMetricsStandin {
  const usage = new Map<string, (pod: string, count: number) => number | undefined>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const [ns, f] of usage) {
        try {
          const pods = await podsOf(c, ns, '');
          // The stand-in's podCount is the pods of the HPA's request, i.e. of one workload: count the pods
          // sharing this pod's `app` label (createDeployment's selector).
          const workload = (app: string | undefined) => pods.filter((q) => q.labels['app'] === app).length;
          for (const p of pods) {
            const milli = f(p.name, workload(p.labels['app']));
            const want = milli === undefined ? undefined : cpuMilliAnnotation(milli);
            if (p.annotations[USAGE_CPU_ANNOTATION] !== want) await kwok.setPodCpu(ns, p.name, milli);
          }
        } catch {
          // An apiserver restart (faults suite): try again on the next round.
        }
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return {
    port: kwok.metricsServerPort,
    setCpu(namespace, f) {
      usage.set(namespace, f);
    },
    requests: () => kwok.podMetricsRequests(),
    async close() {
      stopped = true;
      await loop;
    },
  };
}
