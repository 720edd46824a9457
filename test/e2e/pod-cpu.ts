// The scenario suites' pod CPU, set per namespace as a function of the pod and the number of live pods of
// its workload, in millicores, so the real HPA can use an EHPA's original Resource CPU metric. The numbers
// go the real way: written as kwok's usage annotation on each pod, reported by kwok's kubelet endpoint,
// scraped by the real metrics-server (so a change shows after one or two --metric-resolution periods, 10 s
// each) and by Prometheus (job "kubelet", every second): they are the pods' CPU everywhere, so a suite does
// not also drive the same pods with followWorkloadUsage.
import { cpuMilliAnnotation, podsOf, USAGE_CPU_ANNOTATION, type Cluster } from './harness/index.ts';

export interface PodCpu {
  /** metrics-server's port. */
  port: number;
  /**
   * CPU usage (millicores) each pod of `namespace` reports; `podCount` is the live pods of its workload (those
   * with the same `app` label). Undefined = kwok's default, 1m.
   */
  setCpu(namespace: string, milliFor: (podName: string, podCount: number) => number | undefined): void;
  /** PodMetrics list requests the real metrics-server answered so far. */
  requests(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Keeps kwok's usage annotation on every live pod of the namespaces set, every second: new pods of a
 * scale-up get theirs within a second of being created (kwok reports 1m until then, its default).
 */
export function startPodCpu(c: Cluster): PodCpu {
  const kwok = c.kwok;
  if (!kwok) throw new Error('startPodCpu: the cluster runs no nodes (started with kubelet: false)');
  const usage = new Map<string, (pod: string, count: number) => number | undefined>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const [ns, f] of usage) {
        try {
          const pods = await podsOf(c, ns, '');
          // podCount is the pods of the HPA's request, i.e. of one workload: count the pods sharing this
          // pod's `app` label (createDeployment's selector).
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
