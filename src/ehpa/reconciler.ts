// The EHPA reconcile loop body (docs/crane-behaviour.md §B.1): read the EHPA and what it owns from
// the shared caches, build the desired HPA/TSP/status with the pure builders, write only differences.
// Level-triggered and idempotent; a bad EHPA ends with a condition and an event, never an exception that
// would stop the others (errors that may heal, like a missing target kind, requeue with backoff).
import type { Logger } from 'pino';
import { KubeApiError, resourcePath, type ObjectWriter } from '../kube/api-client.ts';
import { NotOwnedError, OwnedApplier, controllerUid } from '../kube/apply-owned.ts';
import type { EventSink } from '../kube/event-recorder.ts';
import type { CacheReader } from '../kube/informers.ts';
import { splitKey } from '../kube/work-queue.ts';
import { parseLabelSelector } from '../selectors/label-selector.ts';
import { PodSelectorIndex } from './selector-index.ts';
import { ehpaForecastValue } from '../metric-values/forecast-value.ts';
import type { ScaleAccess } from '../kube/scale-client.ts';
import { semanticEqual } from '../kube/semantic-equal.ts';
import type { StatusWriter } from '../kube/status-writer.ts';
import { TSP_API_VERSION, TSP_PLURAL, type TimeSeriesPrediction } from '../api/prediction.ts';
import { buildDesiredHpa, needsPodRequests, type HpaShape, type PodRequestsLookup } from './desired-hpa.ts';
import { buildDesiredTsp } from './desired-tsp.ts';
import { AUTO_MODE_ANNOTATIONS } from '../prediction/coverage-annotation.ts';
import { HPA_API_VERSION, HPA_PLURAL, type HorizontalPodAutoscaler, type Scale, type Substitute } from '../api/autoscaling.ts';
import { POD_CPU_USAGE_IDENTIFIER, POD_CPU_USAGE_METRIC, PREDICTION_METRIC, ownedObjectName } from '../api/names.ts';
import { CURRENT_METRICS_ANNOTATION, controllerOwnerReference, ownedLabels } from './naming.ts';
import { currentMetricsAnnotation } from './current-metrics.ts';
import { summarizeRequests } from './pod-requests.ts';
import type { PodLike } from '../api/pod.ts';
import { buildStatus, type StatusInput } from './status.ts';
import { EHPA_API_VERSION, EHPA_PLURAL, SUBSTITUTE_KIND, SUBSTITUTE_PLURAL, predictionEnabled, type EffectiveHorizontalPodAutoscaler, type EhpaStatus } from '../api/ehpa.ts';
import { validateEhpa } from './validation.ts';

/** Everything the reconciler touches, as narrow interfaces: `serve` passes the API client and informer
 *  caches, unit tests pass in-memory fakes. */
export interface EhpaReconcilerDeps {
  client: ObjectWriter;
  ehpas: CacheReader<EffectiveHorizontalPodAutoscaler>;
  hpas: CacheReader<HorizontalPodAutoscaler>;
  tsps: CacheReader<TimeSeriesPrediction>;
  substitutes: CacheReader<Substitute>;
  pods: CacheReader<PodLike & { apiVersion?: string; kind?: string }>;
  scale: ScaleAccess;
  events: EventSink;
  status: Pick<StatusWriter, 'update'>;
  log: Logger;
  now?: () => number;
  /** Periodic re-check of every EHPA (pods' requests, target replicas). */
  resyncMs: number;
  /** Crane's Substitute controller period: how often the Preview stand-in is pulled back to the real replicas. */
  previewResyncMs?: number;
  /** Called with every status a reconcile computes (metrics), and with undefined when the EHPA is gone. */
  observeStatus?: (namespace: string, name: string, status: EhpaStatus | undefined) => void;
  /** Labels/annotations to copy from the EHPA to the HPA (craned's propagation flags). */
  propagate?: (ehpa: EffectiveHorizontalPodAutoscaler) => { labels?: Record<string, string>; annotations?: Record<string, string> };
  /** Crane generation whose metric names the backing HPA carries (--hpa-shape; default `v0.7`). */
  hpaShape?: HpaShape;
}

/** The metric through which the HPA reads the workload's predicted CPU, in either shape (§B.3, §C.9). */
function predictedCpuMetricName(hpa: HorizontalPodAutoscaler | undefined): string | undefined {
  for (const m of hpa?.spec?.metrics ?? []) {
    if (m.type === 'Pods' && m.pods?.metric?.name === POD_CPU_USAGE_METRIC) return POD_CPU_USAGE_METRIC;
    if (m.type === 'External' && m.external?.metric?.name === PREDICTION_METRIC && m.external.metric.selector?.matchLabels?.['resourceIdentifier'] === 'resource.cpu') return PREDICTION_METRIC;
  }
  return undefined;
}

class Failure extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly retry: boolean,
    readonly currentReplicas?: number,
  ) {
    super(message);
  }
}

export class EhpaReconciler {
  private readonly now: () => number;
  private readonly owned: OwnedApplier;
  /** Last seen pod selector of each EHPA's target, so pod changes can requeue the right EHPAs. */
  private readonly selectors = new PodSelectorIndex();

  constructor(private readonly d: EhpaReconcilerDeps) {
    this.now = d.now ?? Date.now;
    this.owned = new OwnedApplier(d.client, this.now);
  }

  /** EHPA keys (ns/name) whose request-based conversion depends on this pod. */
  ehpasForPod(pod: PodLike): string[] {
    return this.selectors.keysFor(pod.metadata.namespace, pod.metadata.labels);
  }

  forget(key: string): void {
    this.selectors.delete(key);
    const { namespace, name } = splitKey(key);
    // The HPA, TSP and Substitute go with the EHPA (ownerReference GC); so does what the applier remembers of them.
    const owned = ownedObjectName(name);
    this.owned.forget(resourcePath(HPA_API_VERSION, HPA_PLURAL, namespace), owned);
    this.owned.forget(resourcePath(TSP_API_VERSION, TSP_PLURAL, namespace), owned);
    this.owned.forget(resourcePath(EHPA_API_VERSION, SUBSTITUTE_PLURAL, namespace), owned);
  }

  /** Owned objects whose last write is remembered (bounded by the live EHPAs). */
  get rememberedWrites(): number {
    return this.owned.remembered;
  }

  async reconcile(key: string): Promise<{ requeueAfterMs?: number }> {
    const { namespace, name } = splitKey(key);
    const ehpa = this.d.ehpas.get(namespace, name);
    if (!ehpa || ehpa.metadata.deletionTimestamp) {
      // Owned objects go with the EHPA through ownerReference garbage collection (§B.6).
      this.forget(key);
      this.d.observeStatus?.(namespace, name, undefined);
      return {};
    }
    const log = this.d.log.child({ namespace, name });
    const problems = validateEhpa(ehpa);
    if (problems.length > 0) {
      const first = problems[0] as (typeof problems)[number];
      const message = problems.map((p) => p.message).join('; ');
      this.d.events.event(ehpa, 'Warning', first.reason, message);
      await this.writeStatus(ehpa, { failure: { reason: first.reason, message } });
      log.info({ reason: first.reason }, 'invalid spec');
      return {};
    }
    const preview = ehpa.spec.scaleStrategy === 'Preview';
    const requeue = { requeueAfterMs: preview ? (this.d.previewResyncMs ?? 15_000) : this.d.resyncMs };
    try {
      const scale = await this.getScale(ehpa);
      if ((scale.spec.replicas ?? 0) === 0 && (ehpa.spec.minReplicas ?? 1) !== 0) {
        // Crane's message; when this EHPA's own Preview scaled the target to zero, it says so (otherwise the
        // tenant sees a target that "is zero" for no reason it wrote).
        const own = preview && ehpa.spec.specificReplicas === 0 ? '; spec.specificReplicas is 0 in Preview' : '';
        throw new Failure('ScalingDisabled', `scaling is disabled since the replica count of the target is zero${own}`, false, 0);
      }
      if (preview) await this.reconcileSubstitute(ehpa, scale);
      // The HPA first: it does not depend on the TSP (no readiness gate, the adapter falls back), so a
      // failing TSP must not leave the workload without its autoscaler.
      const { hpa, conversionProblem, unpredicted } = await this.reconcileHpa(ehpa, scale);
      const tsp = await this.reconcileTsp(ehpa);
      let currentReplicas: number | undefined;
      let scaledNow = false;
      const specific = ehpa.spec.specificReplicas;
      if (preview && specific != null && specific !== scale.status.replicas) {
        try {
          const updated = await this.d.scale.setReplicas(namespace, ehpa.spec.scaleTargetRef, specific);
          currentReplicas = updated.status.replicas;
          scaledNow = true;
          this.d.events.event(ehpa, 'Normal', 'SuccessfulManualScale', `scaled ${ehpa.spec.scaleTargetRef.kind}/${ehpa.spec.scaleTargetRef.name} from ${scale.status.replicas} to ${specific}`);
        } catch (e) {
          this.d.events.event(ehpa, 'Warning', 'FailedManualScale', (e as Error).message);
          throw new Failure('FailedScale', `spec.specificReplicas ${specific}: ${(e as Error).message}`, true);
        }
      }
      const input: Omit<StatusInput, 'ehpa' | 'nowMs'> = { hpa, tsp, currentReplicas, scaledNow, ...(predictionEnabled(ehpa.spec) ? { unpredicted } : {}) };
      // Same test the adapter applies when the HPA asks for predicted CPU (either shape's name), so the
      // condition says what the HPA is being served (re-evaluated on every TSP change and resync).
      const cpuMetric = predictedCpuMetricName(hpa);
      if (cpuMetric) {
        input.cpuForecast = ehpaForecastValue(tsp ? [tsp] : [], ehpa, POD_CPU_USAGE_IDENTIFIER, this.now());
        input.cpuForecastMetric = cpuMetric;
      }
      if (conversionProblem) {
        this.d.events.event(ehpa, 'Warning', conversionProblem.reason, conversionProblem.message);
        input.failure = conversionProblem;
      }
      await this.writeStatus(ehpa, input);
      await this.syncCurrentMetrics(ehpa, hpa);
      return requeue;
    } catch (e) {
      if (!(e instanceof Failure)) throw e;
      if (e.reason !== 'ScalingDisabled') this.d.events.event(ehpa, 'Warning', e.reason, e.message);
      await this.writeStatus(ehpa, { failure: { reason: e.reason, message: e.message }, currentReplicas: e.currentReplicas });
      if (e.retry) throw e;
      return requeue;
    }
  }

  private async getScale(ehpa: EffectiveHorizontalPodAutoscaler): Promise<Scale> {
    try {
      return await this.d.scale.get(ehpa.metadata.namespace, ehpa.spec.scaleTargetRef);
    } catch (e) {
      // Crane's message, then which field points where: a tenant's typo in apiVersion or kind otherwise reads
      // as a cluster problem ("the server does not serve kind Deployment in v1").
      const ref = ehpa.spec.scaleTargetRef;
      const target = `spec.scaleTargetRef (apiVersion ${JSON.stringify(ref.apiVersion ?? '')}, kind ${JSON.stringify(ref.kind)}, name ${JSON.stringify(ref.name)})`;
      throw new Failure('FailedGetScale', `Failed to get scale: ${target}: ${(e as Error).message}`, true);
    }
  }

  private podRequests(ehpa: EffectiveHorizontalPodAutoscaler, scale: Scale): PodRequestsLookup | undefined {
    const key = `${ehpa.metadata.namespace}/${ehpa.metadata.name}`;
    const needs = needsPodRequests(ehpa);
    if (!needs || !scale.status.selector) {
      this.selectors.delete(key);
      return needs ? () => ({ pods: 0, requestMilli: 0, missing: [] }) : undefined;
    }
    let matches: (l: Record<string, string> | undefined) => boolean;
    try {
      const selector = parseLabelSelector(scale.status.selector);
      matches = (labels) => selector.matches(labels);
    } catch (e) {
      throw new Failure('FailedGetScale', `target selector: ${(e as Error).message}`, false);
    }
    this.selectors.set(key, ehpa.metadata.namespace, matches);
    const pods = this.d.pods.list(ehpa.metadata.namespace).filter((p) => matches(p.metadata.labels));
    const nowMs = this.now();
    return (resource, container) => summarizeRequests(pods, nowMs, resource, container);
  }

  private async reconcileHpa(ehpa: EffectiveHorizontalPodAutoscaler, scale: Scale) {
    const ns = ehpa.metadata.namespace;
    const podRequests = this.podRequests(ehpa, scale);
    const { hpa: desired, problem, unpredicted } = buildDesiredHpa({ ehpa, ...(podRequests ? { podRequests } : {}), propagate: this.d.propagate?.(ehpa), shape: this.d.hpaShape ?? 'v0.7' });
    const existing = this.d.hpas.get(ns, desired.metadata.name);
    let hpa: HorizontalPodAutoscaler;
    try {
      const r = await this.owned.apply({ path: resourcePath(HPA_API_VERSION, HPA_PLURAL, ns), desired, existing, ownerUid: ehpa.metadata.uid, syncLabelsAndAnnotations: true });
      hpa = r.object;
      if (r.action === 'created') this.d.events.event(ehpa, 'Normal', 'HPACreated', `Create HorizontalPodAutoscaler ${desired.metadata.name}`);
    } catch (e) {
      if (e instanceof NotOwnedError) {
        throw new Failure('FailedReconcileHPA', `HorizontalPodAutoscaler ${desired.metadata.name} exists and is not controlled by this EHPA`, false);
      }
      // A conflict means the cache is behind; the update event requeues us.
      if (e instanceof KubeApiError && (e.conflict || e.alreadyExists)) throw e;
      this.d.events.event(ehpa, 'Warning', existing ? 'FailedUpdateHPA' : 'FailedCreateHPA', (e as Error).message);
      throw new Failure('FailedReconcileHPA', (e as Error).message, true);
    }
    return { hpa, conversionProblem: problem, unpredicted };
  }

  private async reconcileTsp(ehpa: EffectiveHorizontalPodAutoscaler): Promise<TimeSeriesPrediction | undefined> {
    const desired = buildDesiredTsp(ehpa, this.d.hpaShape ?? 'v0.7');
    const ns = ehpa.metadata.namespace;
    const name = ownedObjectName(ehpa.metadata.name);
    const existing = this.d.tsps.get(ns, name);
    // Crane never deletes the TSP when prediction is turned off; GC removes it with the EHPA (§B.4).
    if (!desired) return existing && controllerUid(existing) === ehpa.metadata.uid ? existing : undefined;
    try {
      const r = await this.owned.apply({ path: resourcePath(TSP_API_VERSION, TSP_PLURAL, ns), desired, existing, ownerUid: ehpa.metadata.uid, exactAnnotations: [...AUTO_MODE_ANNOTATIONS] });
      if (r.action === 'created') this.d.events.event(ehpa, 'Normal', 'PredictionCreated', `Create TimeSeriesPrediction ${name}`);
      return r.object;
    } catch (e) {
      if (e instanceof NotOwnedError) {
        throw new Failure('FailedReconcilePrediction', `TimeSeriesPrediction ${name} exists and is not controlled by this EHPA`, false);
      }
      if (e instanceof KubeApiError && (e.conflict || e.alreadyExists)) throw e;
      this.d.events.event(ehpa, 'Warning', existing ? 'FailedUpdatePrediction' : 'FailedCreatePrediction', (e as Error).message);
      throw new Failure('FailedReconcilePrediction', (e as Error).message, true);
    }
  }

  /** Preview's stand-in scale target: mirrors the real target so the HPA computes from real replicas (§B.5).
   *  Owned like the HPA and TSP (created, updated when its spec differs, never taken from another owner), but
   *  its spec is merge-patched: the controllers' RBAC grants patch on Substitutes, not update. */
  private async reconcileSubstitute(ehpa: EffectiveHorizontalPodAutoscaler, scale: Scale): Promise<void> {
    const ns = ehpa.metadata.namespace;
    const name = ownedObjectName(ehpa.metadata.name);
    const path = resourcePath(EHPA_API_VERSION, SUBSTITUTE_PLURAL, ns);
    const existing = this.d.substitutes.get(ns, name);
    const desired: Substitute = {
      apiVersion: EHPA_API_VERSION,
      kind: SUBSTITUTE_KIND,
      metadata: { name, namespace: ns, labels: ownedLabels(ehpa), ownerReferences: [controllerOwnerReference(ehpa)] },
      spec: { substituteTargetRef: { ...ehpa.spec.scaleTargetRef }, replicas: scale.status.replicas },
    };
    try {
      const r = await this.owned.apply({ path, desired, existing, ownerUid: ehpa.metadata.uid, patchSpec: true });
      const sub = r.object;
      if (r.action === 'created') this.d.events.event(ehpa, 'Normal', 'SubstituteCreated', `Create Substitute ${name}`);
      const wanted = { labelSelector: scale.status.selector ?? '', replicas: scale.status.replicas };
      if (!semanticEqual(sub.status ?? {}, wanted)) {
        await this.d.client.patch(resourcePath(EHPA_API_VERSION, SUBSTITUTE_PLURAL, ns, name, 'status'), { status: wanted });
      }
    } catch (e) {
      if (e instanceof NotOwnedError) {
        throw new Failure('FailedReconcileSubstitute', `Substitute ${name} exists and is not controlled by this EHPA`, false);
      }
      if (e instanceof KubeApiError && (e.conflict || e.alreadyExists)) throw e;
      this.d.events.event(ehpa, 'Warning', existing ? 'FailedUpdateSubstitute' : 'FailedCreateSubstitute', (e as Error).message);
      throw new Failure('FailedReconcileSubstitute', (e as Error).message, true);
    }
  }

  /**
   * Crane's current-metrics annotation (current-metrics.ts), after the status write so that write is not
   * refused for a resourceVersion this patch moved. A merge patch of one annotation leaves the others alone;
   * a failure is an event, as Crane only logs it, and never fails the reconcile.
   */
  private async syncCurrentMetrics(ehpa: EffectiveHorizontalPodAutoscaler, hpa: HorizontalPodAutoscaler | undefined): Promise<void> {
    const value = currentMetricsAnnotation(hpa);
    if (value === undefined || ehpa.metadata.annotations?.[CURRENT_METRICS_ANNOTATION] === value) return;
    const path = resourcePath(EHPA_API_VERSION, EHPA_PLURAL, ehpa.metadata.namespace, ehpa.metadata.name);
    try {
      await this.d.client.patch(path, { metadata: { annotations: { [CURRENT_METRICS_ANNOTATION]: value } } });
    } catch (e) {
      this.d.events.event(ehpa, 'Warning', 'FailedUpdateCurrentMetrics', (e as Error).message);
    }
  }

  private async writeStatus(ehpa: EffectiveHorizontalPodAutoscaler, input: Omit<StatusInput, 'ehpa' | 'nowMs'>): Promise<void> {
    const path = resourcePath(EHPA_API_VERSION, EHPA_PLURAL, ehpa.metadata.namespace, ehpa.metadata.name);
    const nowMs = this.now();
    try {
      let last: EhpaStatus | undefined;
      await this.d.status.update(path, ehpa, (obj) => (last = buildStatus({ ...input, ehpa: obj, nowMs })));
      this.d.observeStatus?.(ehpa.metadata.namespace, ehpa.metadata.name, last);
    } catch (e) {
      this.d.events.event(ehpa, 'Warning', 'FailedUpdateStatus', (e as Error).message);
      throw e;
    }
  }
}
