// prom-client series for the controllers (docs/operations.md "Metrics" lists them).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { KubeApiClient } from './api-client.ts';

export interface ControllerMetrics {
  observe(controller: string): (outcome: 'success' | 'error', ms: number) => void;
  setLeader(leading: boolean): void;
  /** Crane's crane_autoscaling_effective_hpa_replicas: the EHPA's expectReplicas; undefined removes it. */
  setExpectReplicas(namespace: string, name: string, replicas: number | undefined): void;
}

export function registerControllerMetrics(registry: Registry, client: KubeApiClient): ControllerMetrics {
  const reconciles = new Counter({
    name: 'ehpa_adapter_controller_reconcile_total',
    help: 'Reconciles by controller and outcome',
    labelNames: ['controller', 'outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'ehpa_adapter_controller_reconcile_duration_seconds',
    help: 'Reconcile duration by controller',
    labelNames: ['controller'],
    buckets: [0.001, 0.005, 0.02, 0.1, 0.5, 2, 10, 60],
    registers: [registry],
  });
  const expect = new Gauge({
    name: 'ehpa_adapter_effective_hpa_replicas',
    help: 'status.expectReplicas of each EHPA (the backing HPA desiredReplicas)',
    labelNames: ['namespace', 'name'],
    registers: [registry],
  });
  const leader = new Gauge({ name: 'ehpa_adapter_controller_leader', help: '1 while this replica holds the controllers Lease', registers: [registry] });
  new Counter({
    name: 'ehpa_adapter_kube_api_requests_total',
    help: 'Requests sent to the Kubernetes API (watches excluded), by HTTP method',
    labelNames: ['method'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [method, n] of client.requestCounts) this.inc({ method }, n);
    },
  });
  new Counter({
    name: 'ehpa_adapter_kube_api_throttled_seconds_total',
    help: 'Time requests to the Kubernetes API waited for the client-side rate limit (--kube-api-qps, --kube-api-burst)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(client.throttledMs / 1000);
    },
  });
  return {
    observe: (controller) => (outcome, ms) => {
      reconciles.inc({ controller, outcome });
      duration.observe({ controller }, ms / 1000);
    },
    setLeader: (leading) => leader.set(leading ? 1 : 0),
    setExpectReplicas: (namespace, name, replicas) => {
      if (replicas === undefined) expect.remove({ namespace, name });
      else expect.set({ namespace, name }, replicas);
    },
  };
}
