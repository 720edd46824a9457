// Small builders for the recommender-loop tests: VPAs, pods and a recording RecommenderIO.
import type { VerticalPodAutoscalerCheckpointJSON } from '../../../../src/vpa/model/checkpoint-json.ts';
import type { OomInfo } from '../../../../src/vpa/input/oom-observer.ts';
import type { PodHistory, PodObject, TargetSelection, UsageSample, VpaObject } from '../../../../src/vpa/input/cluster-feeder.ts';
import type { RecommenderIO } from '../../../../src/vpa/routines/recommender-loop.ts';
import type { EhpaForSplit } from '../../../../src/vpa/routines/resource-split.ts';
import type { VpaStatusJSON } from '../../../../src/vpa/routines/vpa-status.ts';

export function vpaObj(name: string, app: string, extra: Partial<NonNullable<VpaObject['spec']>> = {}, namespace = 'ns'): VpaObject {
  return {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: { name, namespace, generation: 1 },
    spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: app }, ...extra },
  };
}

export function podObj(name: string, labels: Record<string, string>, opts: { phase?: string; rv?: string; containers?: string[]; memory?: string; namespace?: string } = {}): PodObject {
  return {
    metadata: { name, namespace: opts.namespace ?? 'ns', labels, resourceVersion: opts.rv ?? '1' },
    spec: { containers: (opts.containers ?? ['app']).map((c) => ({ name: c, resources: { requests: { cpu: '100m', memory: opts.memory ?? '1Gi' } } })) },
    status: { phase: opts.phase ?? 'Running' },
  };
}

/** Selector "app=<value of the VPA target name>" (what a Deployment named like its app label has). */
export function appSelector(vpa: VpaObject): TargetSelection {
  const app = vpa.spec?.targetRef?.name ?? '';
  return { selector: (l) => l['app'] === app, selectorKey: `app=${app}`, equalityLabels: { app } };
}

export class FakeIO implements RecommenderIO {
  vpaList: VpaObject[] = [];
  podList: PodObject[] = [];
  ehpaList: EhpaForSplit[] = [];
  usage: UsageSample[] = [];
  ooms: OomInfo[] = [];
  stored = new Map<string, VerticalPodAutoscalerCheckpointJSON>();
  statusWrites: { name: string; status: VpaStatusJSON }[] = [];
  checkpointWrites = 0;
  deleted: string[] = [];
  events: { name: string; reason: string; message: string }[] = [];
  history?: () => Promise<PodHistory[]>;
  selectorFor: (vpa: VpaObject) => TargetSelection = appSelector;

  vpas() {
    return this.vpaList;
  }
  pods() {
    return this.podList;
  }
  ehpas() {
    return this.ehpaList;
  }
  async targetSelector(vpa: VpaObject) {
    return this.selectorFor(vpa);
  }
  async currentUsage() {
    const u = this.usage;
    this.usage = [];
    return u;
  }
  async checkpoints() {
    return [...this.stored.values()];
  }
  takeOoms() {
    const o = this.ooms;
    this.ooms = [];
    return o;
  }
  /** Applies the write to the stored VPA object, as the API server would. */
  async writeStatus(vpa: VpaObject, status: VpaStatusJSON) {
    this.statusWrites.push({ name: vpa.metadata.name, status });
    const stored = this.vpaList.find((v) => v.metadata.name === vpa.metadata.name && v.metadata.namespace === vpa.metadata.namespace);
    if (stored) stored.status = structuredClone(status) as Record<string, unknown>;
  }
  async writeCheckpoint(cp: VerticalPodAutoscalerCheckpointJSON) {
    this.checkpointWrites++;
    this.stored.set(`${cp.metadata.namespace}/${cp.metadata.name}`, structuredClone(cp));
  }
  async deleteCheckpoint(namespace: string, name: string) {
    this.deleted.push(`${namespace}/${name}`);
    this.stored.delete(`${namespace}/${name}`);
  }
  event(vpa: VpaObject, _type: string, reason: string, message: string) {
    this.events.push({ name: vpa.metadata.name, reason, message });
  }
}
