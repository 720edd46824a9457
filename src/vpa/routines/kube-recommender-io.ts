// RecommenderIO on a real cluster: caches from the shared informers, writes through the API client
// (status as upstream's JSON Patch `add /status`, checkpoints as `add /status` or a create when the
// checkpoint does not exist yet), events through the shared recorder.
import { KubeApiError, resourcePath, type KubeApiClient } from '../../kube/api-client.ts';
import type { SharedInformer, KubeObject } from '../../kube/informers.ts';
import type { EventSink } from '../../kube/event-recorder.ts';
import type { VerticalPodAutoscalerCheckpointJSON } from '../model/checkpoint-json.ts';
import type { OomInfo } from '../input/oom-observer.ts';
import type { PodHistory, PodObject, TargetSelection, UsageSample, VpaObject } from '../input/cluster-feeder.ts';
import type { RecommenderIO } from './recommender-loop.ts';
import type { EhpaForSplit } from './resource-split.ts';
import type { VpaStatusJSON } from './vpa-status.ts';
import type { UsageSource } from '../input/usage-sources.ts';
import type { TargetSelectors } from '../input/target-selectors.ts';
import { KINDS, VPA_API_VERSION } from '../../api/kinds.ts';


export interface KubeRecommenderIOOptions {
  client: KubeApiClient;
  vpas: SharedInformer<VpaObject & KubeObject>;
  pods: SharedInformer<PodObject & KubeObject>;
  /** Undefined when the EHPA split is off. */
  ehpas?: SharedInformer<EhpaForSplit & KubeObject>;
  selectors: TargetSelectors;
  usage: UsageSource;
  history?: () => Promise<PodHistory[]>;
  ooms: { take(): OomInfo[] };
  events: EventSink;
  /** --vpa-object-namespace: list checkpoints of this namespace only. */
  namespace?: string;
}

export class KubeRecommenderIO implements RecommenderIO {
  readonly history?: () => Promise<PodHistory[]>;
  constructor(private readonly o: KubeRecommenderIOOptions) {
    this.history = o.history;
  }

  vpas(): readonly VpaObject[] {
    return this.o.vpas.list();
  }
  pods(): readonly PodObject[] {
    return this.o.pods.list();
  }
  ehpas(): readonly EhpaForSplit[] {
    return this.o.ehpas?.list() ?? [];
  }
  targetSelector(vpa: VpaObject): Promise<TargetSelection> {
    return this.o.selectors.get(vpa);
  }
  currentUsage(): Promise<UsageSample[]> {
    return this.o.usage.current();
  }
  takeOoms(): OomInfo[] {
    return this.o.ooms.take();
  }

  async checkpoints(): Promise<VerticalPodAutoscalerCheckpointJSON[]> {
    const l = await this.o.client.get<{ items: VerticalPodAutoscalerCheckpointJSON[] }>(resourcePath(VPA_API_VERSION, KINDS.vpaCheckpoint.plural, this.o.namespace));
    return l.items ?? [];
  }

  async writeStatus(vpa: VpaObject, status: VpaStatusJSON): Promise<void> {
    const path = resourcePath(VPA_API_VERSION, KINDS.vpa.plural, vpa.metadata.namespace, vpa.metadata.name, 'status');
    await this.o.client.patch(path, [{ op: 'add', path: '/status', value: status }], 'json');
  }

  async writeCheckpoint(cp: VerticalPodAutoscalerCheckpointJSON): Promise<void> {
    const ns = cp.metadata.namespace;
    try {
      await this.o.client.patch(resourcePath(VPA_API_VERSION, KINDS.vpaCheckpoint.plural, ns, cp.metadata.name), [{ op: 'add', path: '/status', value: cp.status }], 'json');
    } catch (e) {
      if (!(e instanceof KubeApiError && e.notFound)) throw e;
      await this.o.client.create(resourcePath(VPA_API_VERSION, KINDS.vpaCheckpoint.plural, ns), cp);
    }
  }

  async deleteCheckpoint(namespace: string, name: string): Promise<void> {
    try {
      await this.o.client.delete(resourcePath(VPA_API_VERSION, KINDS.vpaCheckpoint.plural, namespace, name));
    } catch (e) {
      if (!(e instanceof KubeApiError && e.notFound)) throw e;
    }
  }

  event(vpa: VpaObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.o.events.event(
      { apiVersion: vpa.apiVersion ?? VPA_API_VERSION, kind: vpa.kind ?? 'VerticalPodAutoscaler', metadata: { name: vpa.metadata.name, namespace: vpa.metadata.namespace, uid: vpa.metadata.uid, resourceVersion: vpa.metadata.resourceVersion } },
      type,
      reason,
      message,
    );
  }
}
