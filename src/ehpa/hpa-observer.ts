// Crane's HPA observer (gocrane/crane pkg/controller/ehpa/hpa_observer_controller.go and
// hpa_event_handler.go, v0.2 to HEAD), for its two series: every HPA's status.desiredReplicas as
// crane_autoscaling_hpa_replicas, and crane_autoscaling_hpa_scale_count{type} counting rescales: an update
// that changes desiredReplicas while a condition says SucceededRescale or SucceededOverloadRescale.
// `type` is "ehpa" for an HPA named ehpa-*, else "hpa". Crane means the same but calls
// strings.HasPrefix("ehpa-", name) with its arguments swapped, so it reports "hpa" for nearly every HPA;
// we report what the label was meant to say (docs/crane-behaviour.md §B.7).
// Every HPA of the cluster counts, as in Crane, not only the ones an EHPA owns. Crane never deletes a
// series; we drop an HPA's series when the HPA is deleted.
import type { HorizontalPodAutoscaler } from '../api/autoscaling.ts';

export interface HpaObserverSink {
  setHpaReplicas(namespace: string, name: string, replicas: number | undefined): void;
  countHpaScale(namespace: string, name: string, type: 'ehpa' | 'hpa'): void;
  forgetHpaScales(namespace: string, name: string): void;
}

const RESCALE_REASONS = new Set(['SucceededRescale', 'SucceededOverloadRescale']);

export class HpaObserver {
  /** Last desiredReplicas seen per HPA (the informer hands out the new object only). */
  private readonly desired = new Map<string, number | undefined>();

  constructor(private readonly sink: HpaObserverSink) {}

  /** An HPA was listed, added or updated. */
  observe(hpa: HorizontalPodAutoscaler): void {
    const ns = hpa.metadata.namespace ?? '';
    const name = hpa.metadata.name;
    const key = `${ns}/${name}`;
    const now = hpa.status?.desiredReplicas;
    const known = this.desired.has(key);
    const before = this.desired.get(key);
    this.desired.set(key, now);
    this.sink.setHpaReplicas(ns, name, now ?? 0);
    // Crane counts on update events only (not on the initial list), when desiredReplicas changed.
    if (!known || before === now) return;
    if ((hpa.status?.conditions ?? []).some((c) => RESCALE_REASONS.has(c.reason ?? ''))) {
      this.sink.countHpaScale(ns, name, name.startsWith('ehpa-') ? 'ehpa' : 'hpa');
    }
  }

  /** The HPA is gone: its series go too. */
  forget(hpa: HorizontalPodAutoscaler): void {
    const ns = hpa.metadata.namespace ?? '';
    this.desired.delete(`${ns}/${hpa.metadata.name}`);
    this.sink.setHpaReplicas(ns, hpa.metadata.name, undefined);
    this.sink.forgetHpaScales(ns, hpa.metadata.name);
  }
}
