// prom-client series for the controllers (docs/operations.md "Metrics" lists them).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { KubeApiClient } from './api-client.ts';
import type { InformerRegistry } from './informers.ts';

export interface ControllerMetrics {
  observe(controller: string): (outcome: 'success' | 'error', ms: number) => void;
  setLeader(leading: boolean): void;
  /**
   * The EHPA's expectReplicas, exported as ehpa_adapter_effective_hpa_replicas and under Crane's name
   * crane_autoscaling_effective_hpa_replicas; undefined removes both.
   */
  setExpectReplicas(namespace: string, name: string, replicas: number | undefined): void;
  /** Crane's HPA observer: crane_autoscaling_hpa_replicas (an HPA's desiredReplicas); undefined removes it. */
  setHpaReplicas(namespace: string, name: string, replicas: number | undefined): void;
  /** Crane's HPA observer: crane_autoscaling_hpa_scale_count{type} += 1 for one rescale; `forget` drops an HPA's series. */
  countHpaScale(namespace: string, name: string, type: 'ehpa' | 'hpa'): void;
  forgetHpaScales(namespace: string, name: string): void;
}

// Crane's own series (gocrane/crane pkg/metrics/autoscaling.go, v0.2 to HEAD), same names, help, label names
// and type (gauges, the scale count too), so Crane's dashboards and alerts keep working.
function craneSeries(registry: Registry) {
  return {
    ehpaReplicas: new Gauge({ name: 'crane_autoscaling_effective_hpa_replicas', help: 'Replicas for Effective HPA', labelNames: ['namespace', 'name'], registers: [registry] }),
    hpaReplicas: new Gauge({ name: 'crane_autoscaling_hpa_replicas', help: 'Replicas for HPA', labelNames: ['namespace', 'name'], registers: [registry] }),
    hpaScaleCount: new Gauge({ name: 'crane_autoscaling_hpa_scale_count', help: 'Scale count for HPA', labelNames: ['namespace', 'name', 'type'], registers: [registry] }),
  };
}

export function registerControllerMetrics(registry: Registry, client: KubeApiClient, informers?: Pick<InformerRegistry, 'syncCounts'>): ControllerMetrics {
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
  const crane = craneSeries(registry);
  const leader = new Gauge({ name: 'ehpa_adapter_controller_leader', help: '1 while this replica holds the controllers Lease', registers: [registry] });
  new Counter({
    name: 'ehpa_adapter_kube_api_requests_total',
    help: 'Requests sent to the Kubernetes API (watches excluded), by HTTP method, resource and subresource',
    labelNames: ['method', 'resource', 'subresource'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [key, n] of client.requestCountsByResource) {
        const [method, resource, subresource] = key.split(' ') as [string, string, string];
        this.inc({ method, resource, subresource }, n);
      }
    },
  });
  new Counter({
    name: 'ehpa_adapter_informer_syncs_total',
    help: 'Full reads of a kind into its informer cache (the first, and one after each 410 Gone), by resource and how: one streaming list (watch-list) or list pages (list)',
    labelNames: ['resource', 'mode'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of informers?.syncCounts() ?? []) {
        if (c.watchList > 0) this.inc({ resource: c.resource, mode: 'watch-list' }, c.watchList);
        if (c.pages > 0) this.inc({ resource: c.resource, mode: 'list' }, c.pages);
      }
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
      for (const g of [expect, crane.ehpaReplicas]) {
        if (replicas === undefined) g.remove({ namespace, name });
        else g.set({ namespace, name }, replicas);
      }
    },
    setHpaReplicas: (namespace, name, replicas) => {
      if (replicas === undefined) crane.hpaReplicas.remove({ namespace, name });
      else crane.hpaReplicas.set({ namespace, name }, replicas);
    },
    countHpaScale: (namespace, name, type) => crane.hpaScaleCount.inc({ namespace, name, type }),
    forgetHpaScales: (namespace, name) => {
      for (const type of ['ehpa', 'hpa']) crane.hpaScaleCount.remove({ namespace, name, type });
    },
  };
}
